# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Measure -> partition -> run, on resnet50 / mobilenet_v2 / inception_v3 / densenet121-shaped
models (tests/runtime/onnx_models.py, seeded random weights, made here, never committed).

For each model: `cleave-cli profile` measures every node in ONNX Runtime (one intra-op thread);
five 4-stage plans are exported: the uniform split (op count) and the parameter split (bytes) of
program order, as torch pipelining / DeepSpeed make them, the FLOPs-balanced split, auto with the
FLOPs model (--flops-rate 50) and auto with the measured table; each export's stages are then timed
for real by its own run_pipeline.py --bench (median of R runs per stage, one thread each). Prints
the measured bottleneck of each plan, auto-measured's bottleneck against (sum of stages) / K, the
largest gap between predicted and measured stage times, and the pipelining gain of a 2-stage
measured plan (run_pipeline.py --bench throughput against the whole model in one session).

Usage: python3 bench_measured_auto.py CLEAVE_CLI [--models a,b] [--runs R] [--work DIR]
       (run with the Python of packaging/pydeps.sh: tests/runtime/with_pyenv.sh does it)
"""

import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "runtime"))
import onnx_models  # noqa: E402

PYTHON = sys.executable


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (r.returncode, " ".join(args), r.stdout[-2000:],
                                            r.stderr[-2000:]))
    return r.stdout


def bench(folder, runs, items=None):
    report = os.path.join(folder, "bench.json")
    run([PYTHON, os.path.join(folder, "run_pipeline.py"), "--bench", str(items or runs),
         "--warmup", "3", "--json", report])
    with open(report, encoding="utf-8") as f:
        return json.load(f)


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else None
    if not cli:
        sys.exit(__doc__)
    names = option("--models", ",".join(onnx_models.MODELS)).split(",")
    runs = int(option("--runs", "15"))
    work = option("--work", os.path.join("/tmp", "cleave-bench-measured"))
    os.makedirs(work, exist_ok=True)
    stages = 4
    rows = []
    for name in names:
        model = os.path.join(work, name + ".onnx")
        if not os.path.isfile(model):
            onnx_models.write(name, model)
        table = os.path.join(work, name + ".latency.json")
        run([cli, "profile", model, "-o", table, "--runs", str(runs), "--python", PYTHON])
        with open(table, encoding="utf-8") as f:
            whole_us = json.load(f)["provenance"]["whole_model_us"]
        plans = {
            "uniform": ["--level", "ops", "--flops-rate", "50", "--baseline", "uniform"],
            "parameters": ["--level", "ops", "--flops-rate", "50", "--baseline", "parameters"],
            "flops split": ["--level", "ops", "--flops-rate", "50", "--baseline", "flops"],
            "auto FLOPs": ["--level", "blocks", "--flops-rate", "50"],
            "auto measured": ["--level", "blocks", "--latency", table],
        }
        measured = {}
        for plan, extra in plans.items():
            folder = os.path.join(work, "%s.%s" % (name, plan.replace(" ", "_")))
            shutil.rmtree(folder, ignore_errors=True)
            run([cli, "auto", model, "--stages", str(stages), "--out", folder] + extra)
            measured[plan] = bench(folder, runs)
        m = measured["auto measured"]
        errors = [abs(s["predicted_us"] - s["measured_us"]) / s["measured_us"]
                  for s in m["stages"] if s.get("predicted_us") and s["measured_us"] > 0]
        folder = os.path.join(work, name + ".two")
        shutil.rmtree(folder, ignore_errors=True)
        run([cli, "auto", model, "--stages", "2", "--out", folder, "--level", "blocks",
             "--latency", table])
        two = bench(folder, runs, items=max(40, 2 * runs))
        rows.append((name, whole_us, measured, m["sum_us"] / stages, max(errors) if errors else 0,
                     two["speedup"], two))
        print("%s done" % name, file=sys.stderr, flush=True)

    plans = ["uniform", "parameters", "flops split", "auto FLOPs", "auto measured"]
    print("Measured bottleneck of 4 stages (ms, ONNX Runtime, 1 thread per stage, median of %d)"
          % runs)
    print("%-14s %8s " % ("model", "whole") + " ".join("%13s" % p for p in plans)
          + " %9s %8s %9s %8s" % ("sum/K", "vs sum/K", "pred err", "2-st gain"))
    for name, whole_us, measured, per_k, error, gain, _ in rows:
        cells = " ".join("%13.2f" % (measured[p]["bottleneck_us"] / 1000) for p in plans)
        auto = measured["auto measured"]["bottleneck_us"]
        print("%-14s %8.2f %s %9.2f %7.0f%% %8.0f%% %8.2fx"
              % (name, whole_us / 1000, cells, per_k / 1000, 100 * (auto / per_k - 1),
                 100 * error, gain))
    print("\nPredicted vs measured stage times of auto measured (us):")
    for name, _, measured, _, _, _, _ in rows:
        s = measured["auto measured"]["stages"]
        print("  %-14s " % name + "  ".join("%s %.0f/%.0f" % (x["name"], x.get("predicted_us", 0),
                                                              x["measured_us"]) for x in s))
    print("\n2 stages, auto measured: pipeline throughput vs the whole model in one session:")
    for name, _, _, _, _, gain, two in rows:
        print("  %-14s %.1f/s vs %.1f/s: %.2fx (stages %s us)"
              % (name, two["throughput_per_s"], two["whole_throughput_per_s"], gain,
                 " / ".join("%.0f" % x["measured_us"] for x in two["stages"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
