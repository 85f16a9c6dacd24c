# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""ONNX exports run in ONNX Runtime as a pipeline, and ONNX models measured by its profiler.

    onnx_pipeline_runs.py CLEAVE_CLI WORK_DIR SAMPLE.onnx...

- `cleave-cli profile` on every ONNX sample: an entry > 0 for every node, keyed as Cleave keys
  nodes (counted here from the onnx package's own read of the file), with provenance and
  calibration; the export's profile.py gives the same keys.
- Exports of every sample and of small resnet50 / mobilenet_v2 / inception_v3 / densenet121-shaped
  models (onnx_models.py) at 2, 3 and 4 stages: `run_pipeline.py --check` exits 0 (outputs equal to
  the whole model run in one session), and `cleave-cli verify --runtime onnxruntime` agrees.
- A tied weight (onnx_models.tied_mlp) cut between its readers: each stage computes it again,
  only activations cross, and run_pipeline.py --check still matches.
- A deliberately mis-wired export (two same-shaped inputs swapped in partitions.json): exit 1.
- `--bench 20` prints the per-stage table (measured beside predicted) and a JSON report.
- `--ray` runs a 2-stage export as local Ray actors with the same outputs, in under 2 minutes.
"""

import json
import os
import shutil
import subprocess
import sys
import time

import onnx
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_models  # noqa: E402

failures = []
PYTHON = sys.executable


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(args, timeout=600, env=None):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)


def expected_keys(path):
    """Node keys by the rule of the ONNX importer (the node's name; unnamed: OP_i), counted
    here from onnx's own read of the file."""
    graph = onnx.load(path, load_external_data=False).graph
    taken = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    counts, keys = {}, []
    for node in graph.node:
        key = node.name or "%s_%d" % (node.op_type, counts.setdefault(node.op_type, 0))
        if not node.name:
            counts[node.op_type] += 1
        base, k = key, 2
        while key in taken:
            key, k = "%s#%d" % (base, k), k + 1
        taken.add(key)
        keys.append(key)
    return keys


def check_profile(cli, work, sample):
    name = os.path.basename(sample)
    table_path = os.path.join(work, name + ".latency.json")
    r = run([cli, "profile", sample, "-o", table_path, "--runs", "5", "--warmup", "1",
             "--python", PYTHON])
    if not check(r.returncode == 0, "%s: profile exits 0 %s" % (name, r.stderr[-400:])):
        return None
    with open(table_path, encoding="utf-8") as f:
        table = json.load(f)
    keys = expected_keys(sample)
    nodes = table.get("nodes", {})
    missing = [k for k in keys if k not in nodes]
    check(not missing and len(nodes) == len(keys),
          "%s: profile has an entry for each of the %d nodes (missing %s)"
          % (name, len(keys), missing[:3]))
    bad = [k for k in keys if not (nodes.get(k, 0) > 0)]
    check(not bad, "%s: every entry is > 0 us (not: %s)" % (name, bad[:3]))
    p = table.get("provenance", {})
    check(p.get("onnxruntime") == ort.__version__ and p.get("intra_op_threads") == 1
          and p.get("runs") == 5 and p.get("execution_provider") == "CPUExecutionProvider",
          "%s: provenance says onnxruntime %s, 1 thread, 5 runs, CPU (%s)"
          % (name, ort.__version__, {k: p.get(k) for k in ("onnxruntime", "runs")}))
    c = table.get("calibration", {})
    check(c.get("run_overhead_us", 0) > 0 and c.get("handoff_us", 0) > 0
          and c.get("copy_bytes_per_second", 0) > 1e8,
          "%s: calibration measured (%s)" % (name, c))
    whole = p.get("whole_model_us", 0)
    total = sum(nodes.values())
    check(whole > 0 and 0.5 * whole <= total + c.get("run_overhead_us", 0) <= 1.5 * whole,
          "%s: the node entries sum to the whole model's run (%.0f + %.0f vs %.0f us)"
          % (name, total, c.get("run_overhead_us", 0), whole))
    r = run([cli, "profile", sample, "--python", "/bin/false", "-o", table_path + ".no"])
    check(r.returncode == 2 and "cannot import onnxruntime" in r.stderr
          and not os.path.exists(table_path + ".no"),
          "%s: profile without onnxruntime exits 2 and says why (%d)" % (name, r.returncode))
    return table_path


def export(cli, model, folder, extra):
    shutil.rmtree(folder, ignore_errors=True)
    r = run([cli, "auto", model, "--out", folder] + extra)
    check(r.returncode == 0, "%s: auto %s --out exits 0 %s"
          % (os.path.basename(model), " ".join(extra), r.stderr[-300:]))
    return r.returncode == 0


def run_check(folder, what, source=None):
    args = [PYTHON, os.path.join(folder, "run_pipeline.py"), "--check"]
    if source:
        args += ["--source", source]
    r = run(args)
    check(r.returncode == 0 and "all outputs match" in r.stdout,
          "%s: run_pipeline.py --check exits 0 with matching outputs (%d) %s"
          % (what, r.returncode, (r.stdout + r.stderr)[-300:]))


def check_tied_weights(cli, work):
    """A weight read by three layers (onnx_models.tied_mlp), cut between the layers: the later
    stages compute Transpose + Mul of the weight again instead of receiving their 16x16 float32
    result (1,024 B), so only the 4x16 float32 activations (256 B) cross, and the pipeline still
    equals the whole model in ONNX Runtime."""
    model = os.path.join(work, "tied_mlp.onnx")
    onnx.save(onnx_models.tied_mlp(), model)
    folder = os.path.join(work, "tied_mlp.3")
    shutil.rmtree(folder, ignore_errors=True)
    r = run([cli, "partition", model, "--cut-after", "MatMul:0", "--cut-after", "MatMul:1",
             "--out", folder])
    if not check(r.returncode == 0, "tied_mlp: 3-stage export exits 0 %s" % r.stderr[-300:]):
        return
    check("partition.weight_duplicated" in r.stdout and "instead of receiving 1.0 KiB" in r.stdout,
          "tied_mlp: the duplication is said, with the 1,024 B it saves")
    with open(os.path.join(folder, "partitions.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    crossing = [(b["tensor"], b["bytes"]) for b in manifest["boundary"]]
    check(crossing == [("layer0", 256), ("layer1", 256)],
          "tied_mlp: only the activations cross, 256 B each (%s)" % crossing)
    recomputes = [p["recomputes"] for p in manifest["partitions"]]
    check(recomputes == [[], ["tied_t", "tied_ws"], ["tied_t", "tied_ws"]],
          "tied_mlp: partitions.json says which nodes stage1 and stage2 recompute (%s)"
          % recomputes)
    for k in range(3):
        m = onnx.load(os.path.join(folder, "mod%d.onnx" % k))
        ops = [n.op_type for n in m.graph.node]
        inputs = [i.name for i in m.graph.input]
        check(ops[:2] == ["Transpose", "Mul"] and "tied_ws" not in inputs
              and {"tied.weight", "tied.scale"} <= {t.name for t in m.graph.initializer},
              "mod%d.onnx computes the tied weight from its own initializers (%s, inputs %s)"
              % (k, ops, inputs))
    run_check(folder, "tied_mlp at 3 stages")
    r = run([cli, "verify", folder])
    check(r.returncode == 0, "tied_mlp: verify accepts the duplicated nodes %s" % r.stdout[-300:])


def main():
    cli, work, samples = sys.argv[1], sys.argv[2], sys.argv[3:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if not check(len(samples) > 0, "there are ONNX samples"):
        return 1

    tables = {}
    for sample in samples:
        tables[sample] = check_profile(cli, work, sample)

    # Small models of the four families (a quarter of the widths, fewer blocks, 64x64 inputs).
    zoo = []
    for name in onnx_models.MODELS:
        path = os.path.join(work, name + ".onnx")
        onnx_models.write(name, path, scale=0.25, resolution=75 if name == "inception_v3" else 64,
                          classes=10)
        zoo.append(path)

    for model in samples + zoo:
        name = os.path.basename(model)
        for k in (2, 3, 4):
            folder = os.path.join(work, "%s.%d" % (name, k))
            level = ["--level", "blocks"] if model in zoo else []
            if not export(cli, model, folder, ["--stages", str(k), "--flops-rate", "50"] + level):
                continue
            with open(os.path.join(folder, "partitions.json"), encoding="utf-8") as f:
                manifest = json.load(f)
            check(len(manifest["partitions"]) == k
                  and all(isinstance(p.get("predicted_us"), (int, float))
                          for p in manifest["partitions"]),
                  "%s: %d partitions, each with predicted_us" % (name, k))
            run_check(folder, "%s at %d stages" % (name, k))

    sample = samples[0]
    name = os.path.basename(sample)
    folder = os.path.join(work, name + ".measured")
    if tables.get(sample) and export(cli, sample, folder,
                                     ["--stages", "3", "--latency", tables[sample]]):
        with open(os.path.join(folder, "partitions.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        with open(os.path.join(folder, "build_pipeline.py"), encoding="utf-8") as f:
            script = f.read()
        check("mod<k>.onnx" in script and "mod<k>.relay" not in script,
              "%s: build_pipeline.py's docstring speaks of mod<k>.onnx, not .relay" % name)
        check(manifest.get("cost_model", "").startswith("latency table (onnxruntime "),
              "%s: the measured export names its cost model (%s)"
              % (name, manifest.get("cost_model")))
        r = run([cli, "verify", folder, "--runtime", "onnxruntime", "--python", PYTHON])
        check(r.returncode == 0 and "every output matches in ONNX Runtime" in r.stdout,
              "%s: verify --runtime onnxruntime exits 0 (%d) %s"
              % (name, r.returncode, (r.stdout + r.stderr)[-300:]))
        r = run([cli, "verify", folder, "--runtime", "tvm"])
        check(r.returncode == 2 and "--runtime onnxruntime" in r.stderr,
              "%s: verify --runtime tvm on an ONNX export exits 2 naming the right one" % name)
        # profile.py of the export folder: the same script as the CLI's.
        r = run([PYTHON, os.path.join(folder, "profile.py"), sample, "-o",
                 os.path.join(work, "from_export.json"), "--runs", "2", "--warmup", "0"])
        if check(r.returncode == 0, "%s: the export's profile.py runs %s" % (name, r.stderr[-200:])):
            with open(os.path.join(work, "from_export.json"), encoding="utf-8") as f:
                keys = set(json.load(f)["nodes"])
            check(keys == set(expected_keys(sample)),
                  "%s: the export's profile.py keys every node as Cleave does" % name)

        # --bench: the per-stage table, measured beside predicted, and the JSON report.
        report = os.path.join(work, "bench.json")
        r = run([PYTHON, os.path.join(folder, "run_pipeline.py"), "--bench", "20", "--json",
                 report])
        lines = r.stdout.splitlines()
        rows = [l for l in lines if l.split() and l.split()[0] in
                [p["name"] for p in manifest["partitions"]]]
        check(r.returncode == 0 and any(l.startswith("stage ") and "measured us" in l
                                        and "predicted us" in l for l in lines)
              and len(rows) == 3 and "throughput: pipeline" in r.stdout,
              "%s: --bench 20 prints a row per stage and the throughput %s"
              % (name, r.stdout[-500:] + r.stderr[-200:]))
        if os.path.isfile(report):
            with open(report, encoding="utf-8") as f:
                bench = json.load(f)
            check(len(bench["stages"]) == 3
                  and all(s["measured_us"] > 0 and s.get("predicted_us", 0) > 0
                          for s in bench["stages"])
                  and bench["bottleneck_us"] == max(s["measured_us"] for s in bench["stages"])
                  and bench["throughput_per_s"] > 0 and bench["items"] == 20,
                  "%s: the bench report has 3 measured and predicted stages" % name)

    # A mis-wired export: stage1's two inputs (same shape) swapped.
    folder = os.path.join(work, name + ".miswired")
    shutil.rmtree(folder, ignore_errors=True)
    r = run([cli, "partition", sample, "--cut-after", "Relu:1", "--out", folder])
    if check(r.returncode == 0, "%s: partition --cut-after Relu:1 exports" % name):
        path = os.path.join(folder, "partitions.json")
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
        ins = manifest["partitions"][1]["inputs"]
        same = [i for i in ins if "mod_idx" in i["from"]]
        if check(len(same) == 2 and same[0]["shape"] == same[1]["shape"],
                 "%s: stage1 reads two same-shaped tensors from stage0" % name):
            run_check(folder, "%s, correctly wired" % name)
            same[0]["from"], same[1]["from"] = same[1]["from"], same[0]["from"]
            with open(path, "w", encoding="utf-8") as f:
                json.dump(manifest, f)
            r = run([PYTHON, os.path.join(folder, "run_pipeline.py"), "--check"])
            check(r.returncode == 1 and "MISMATCH" in r.stdout,
                  "%s: the mis-wired export exits 1 with MISMATCH (%d)" % (name, r.returncode))

    check_tied_weights(cli, work)

    # --ray: a 2-stage export as local Ray actors.
    try:
        import ray  # noqa: F401
        has_ray = True
    except ImportError:
        has_ray = False
    if has_ray:
        folder = os.path.join(work, "%s.2" % name)
        env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
        start = time.monotonic()
        r = run([PYTHON, os.path.join(folder, "run_pipeline.py"), "--ray", "--check", "--bench",
                 "5", "--warmup", "1"], timeout=300, env=env)
        elapsed = time.monotonic() - start
        check(r.returncode == 0 and "all outputs match" in r.stdout and "(ray," in r.stdout
              and elapsed < 120,
              "%s: --ray runs 2 stages as local actors with matching outputs in %.0f s (%d) %s"
              % (name, elapsed, r.returncode, (r.stdout + r.stderr)[-400:]))
    else:
        print("SKIP --ray: the environment has no ray")

    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
