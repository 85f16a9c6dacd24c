#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Relax exports run in real TVM (issue 29): every module is exported by cleave-cli and checked by
TVM itself, never by Cleave's own reader.

For each module (the TVM-converted fixtures of relax_fixtures, the hand-written ones in
tests/data/relax_run/, and every corpus file TVM parses):
  identity   an uncut export (one partition): TVM parses mod0.relax.py and
             tvm.ir.assert_structural_equal holds against TVM's parse of the source, function by
             function (mod0's `main` against the source's partitioned function).
  cuts       2, 3 and 4 partitions from --cut-after (evenly spaced in the module's most frequent
             operator) and from `auto --stages K`: `python build_relax.py --json REPORT` in the
             export folder, as a user runs it, builds every mod<k> for llvm, runs them on the
             Relax VM wired by partitions.json and compares with the whole source module built
             and run by TVM: exit 0 and max relative difference <= 1e-5.
  placed     `build_relax.py --placed` on the 2-partition export: placed.relax.py declares two
             llvm vdevices, passes RealizeVDevice, builds, runs and gives the partitions' outputs.
             Where TVM itself cannot run a placed module (see KNOWN_PLACED_LIMIT), the test
             requires the build to succeed and the run to fail with that known reason.

Usage: relax_tvm_runs.py CLEAVE_CLI WORK_DIR [--fixtures DIR] [--corpus DIR] [--data DIR]
Prints one line per check and a table of the largest relative differences; exit 1 on any failure.
"""

import glob
import json
import os
import shutil
import subprocess
import sys

import tvm

from tvm_support import arg, check, failures, parse, var_name

RTOL = 1e-5
# TVM 0.27: LegalizeOps does not keep the vdevice of operators whose struct-info inference does
# not carry it (conv2d, pooling, ...), so their outputs land on the first device of the kind.
KNOWN_PLACED_LIMIT = "cannot run it on"


CLI, WORK = sys.argv[1], sys.argv[2]
FIXTURES, CORPUS, DATA = arg("--fixtures"), arg("--corpus"), arg("--data")
PYTHON = sys.executable
table = []


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def modules():
    """(name, path, function) of every module to run."""
    found = []
    if FIXTURES and os.path.isfile(os.path.join(FIXTURES, "fixtures.json")):
        with open(os.path.join(FIXTURES, "fixtures.json"), encoding="utf-8") as f:
            for fx in json.load(f):
                found.append((fx["name"], os.path.join(FIXTURES, fx["relax"]), fx["function"], []))
    elif FIXTURES:
        print("SKIP-PART: no fixtures.json in %s" % FIXTURES)
    if DATA:
        for path in sorted(glob.glob(os.path.join(DATA, "*.relax.py"))):
            with open(path, encoding="utf-8") as f:
                first = f.readline()  # "# cleave-test: function=NAME [dims=n=3,m=4]"
            fields = dict(w.split("=", 1) for w in first.split()[2:] if "=" in w)
            dims = list(filter(None, fields.get("dims", "").split(",")))
            found.append((os.path.basename(path)[:-9], path, fields.get("function", "main"), dims))
    if CORPUS:
        for path in sorted(glob.glob(os.path.join(CORPUS, "*.relax.py"))):
            name = os.path.basename(path)
            try:
                mod = parse(path)
            except Exception as error:  # listed: TVM rejects it
                print("TVM %s rejects %s: %s" % (tvm.__version__, name, str(error).splitlines()[0]))
                continue
            names = [gv.name_hint for gv in mod.get_global_vars()]
            function = "main" if "main" in names else None
            if function is None:
                print("skip %s: no main function" % name)
                continue
            found.append((name[:-9], path, function, []))
    return found


def comparable_source(path, function, mod0):
    """The source module with the differences an uncut export may have, and no others:
    (1) the partitioned function is the module's `main`; (2) functions it does not use are not
    in the module; (3) inputs no operator reads are not parameters; (4) the parameters come in
    order of first use in program order (Cleave's partition interface: modules are wired by
    input name, see partitions.json). Edited on the syntax tree of the source text (Python's
    ast), then parsed by TVM."""
    import ast
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    keep = {gv.name_hint for gv in mod0.get_global_vars()}
    kept_params = [var_name(p) for p in mod0["main"].params]
    for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
        body = []
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef):
                if stmt.name == function:
                    stmt.name = "main"
                    used = {n.id for n in ast.walk(ast.Module(body=stmt.body, type_ignores=[]))
                            if isinstance(n, ast.Name)}
                    args = {a.arg: a for a in stmt.args.args}
                    extra = [a for a in stmt.args.args if a.arg not in kept_params
                             and a.arg in used]
                    stmt.args.args = [args[n] for n in kept_params if n in args] + extra
                if stmt.name not in keep:
                    continue
            body.append(stmt)
        cls.body = body
        for node in ast.walk(cls):
            if isinstance(node, ast.Attribute) and node.attr == function:
                node.attr = "main"
    return tvm.script.from_source(ast.unparse(tree))


def identity(name, path, function):
    out = os.path.join(WORK, name, "identity")
    r = cli("partition", path, "--function", function, "--out", out, "--force")
    if not check(r.returncode == 0, "%s: uncut export (%s)" % (name, r.stderr.strip()[-300:])):
        return
    try:
        mod0 = parse(os.path.join(out, "mod0.relax.py"))
    except Exception as error:
        check(False, "%s: TVM parses mod0.relax.py: %s" % (name, str(error).splitlines()[0]))
        return
    try:
        tvm.ir.assert_structural_equal(mod0, comparable_source(path, function, mod0))
    except Exception as error:
        check(False, "%s: mod0.relax.py is structurally equal to the source: %s"
              % (name, str(error).splitlines()[0][:400]))
        return
    check(True, "%s: identity, mod0.relax.py structurally equal to the source (%d functions)"
          % (name, len(mod0.get_global_vars())))


def ops_of(path, function):
    r = cli("inspect", path, "--json")
    summary = json.loads(r.stdout)
    return summary["ops"]


def run_export(name, label, folder, dims, placed=False):
    report = os.path.join(folder, "report.json")
    args = [PYTHON, "build_relax.py", "--json", report] + (["--placed"] if placed else [])
    for d in dims:
        args += ["--dim", d]
    r = subprocess.run(args, cwd=folder, capture_output=True, text=True)
    if placed and r.returncode == 1 and KNOWN_PLACED_LIMIT in r.stderr:
        print("note %s %s: %s" % (name, label, r.stderr.strip().splitlines()[-1][:300]))
        return check("placed.relax.py builds" in r.stderr or KNOWN_PLACED_LIMIT in r.stderr,
                     "%s %s: placed.relax.py parses, passes RealizeVDevice and builds; "
                     "TVM cannot run it (known limit)" % (name, label))
    if not check(r.returncode == 0 and os.path.isfile(report),
                 "%s %s: build_relax.py exits 0 (exit %d) %s"
                 % (name, label, r.returncode, (r.stderr or r.stdout).strip()[-600:])):
        return False
    with open(report, encoding="utf-8") as f:
        rep = json.load(f)
    rels = [o.get("max_rel_diff", 0.0) for o in rep["outputs"] + rep["placed"]]
    worst = max(rels) if rels else 0.0
    table.append((name, label, rep["partitions"], worst))
    return check(rep["ok"] and worst <= RTOL and rep["outputs"],
                 "%s %s: %d partitions, %d outputs compared, max relative difference %.3g"
                 % (name, label, rep["partitions"], len(rep["outputs"]), worst))


def needs_external_codegen(path):
    """The BYOC compilers a module's Codegen functions name: TVM builds such a module only with
    them registered (the corpus diamond names the test-only compiler_A / compiler_B)."""
    mod = parse(path)
    return sorted({str(mod[gv].attrs["Codegen"]) for gv in mod.get_global_vars()
                   if mod[gv].attrs is not None and "Codegen" in mod[gv].attrs})


def cuts(name, path, function, dims):
    codegens = needs_external_codegen(path)
    if codegens:
        print("note %s: not run, its Codegen functions need the BYOC compilers %s, which TVM %s "
              "does not have" % (name, ", ".join(codegens), tvm.__version__))
        return
    ops = ops_of(path, function)
    op, count = max(ops.items(), key=lambda kv: (kv[1], kv[0]))
    total = sum(ops.values())
    for k in (2, 3, 4):
        if count >= k:
            picks = sorted({max(0, (count * i) // k - 1) for i in range(1, k)})
            out = os.path.join(WORK, name, "cut%d" % k)
            args = ["partition", path, "--function", function, "--out", out, "--force"]
            for p in picks:
                args += ["--cut-after", "%s:%d" % (op, p)]
            r = cli(*args)
            if check(r.returncode == 0, "%s: --cut-after %s at %s exports (%s)"
                     % (name, op, picks, r.stderr.strip()[-300:])):
                run_export(name, "cut-after K=%d" % k, out, dims)
                if k == 2:
                    run_export(name, "placed K=2", out, dims, placed=True)
        if total < k:
            continue
        # Free links (no latency, 1 TB/s): the cost model then balances compute, as a pipeline
        # of these small models on one host would want, rather than keeping them whole.
        plan = os.path.join(WORK, name, "auto%d.plan.json" % k)
        r = cli("auto", path, "--stages", str(k), "--save-plan", plan, "--link-latency", "0",
                "--bandwidth", "1000", *(["--function", function] if function != "main" else []))
        if r.returncode == 2 and "stages were asked but only" in r.stderr:
            # Fewer than K stages hold operators (the others would hold only nodes computed from
            # weights, which run with their consumers): auto says why instead of an empty stage.
            continue
        if not check(r.returncode == 0,
                     "%s: auto --stages %d (%s)" % (name, k, r.stderr.strip()[-300:])):
            continue
        out = os.path.join(WORK, name, "auto%d" % k)
        r = cli("partition", path, "--function", function, "--plan", plan, "--out", out, "--force")
        if check(r.returncode == 0, "%s: auto plan K=%d exports (%s)" % (name, k,
                                                                        r.stderr.strip()[-300:])):
            run_export(name, "auto K=%d" % k, out, dims)


def runtime_verify(name, path, folder):
    """`cleave-cli verify DIR --runtime tvm` as a user runs it: exit 0 when TVM's outputs match,
    2 when the interpreter cannot run TVM; and build_relax.py against a source that computes
    something else (relu reads the matmul before its bias) exits 1 naming the output."""
    r = cli("verify", folder, "--runtime", "tvm", "--python", PYTHON)
    check(r.returncode == 0 and "every output matches in TVM" in r.stdout
          and "output 0: ok (max relative difference" in r.stdout,
          "%s: verify --runtime tvm exits 0 with per-output differences (exit %d) %s"
          % (name, r.returncode, (r.stdout + r.stderr).strip()[-400:]))
    r = cli("verify", folder, "--runtime", "tvm", "--python", "/bin/false")
    check(r.returncode == 2 and "cannot import tvm" in r.stderr,
          "%s: verify --runtime tvm with a Python without TVM exits 2 (exit %d) %s"
          % (name, r.returncode, r.stderr.strip()[-300:]))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    wrong = os.path.join(WORK, name, "wrong_source.relax.py")
    with open(wrong, "w", encoding="utf-8") as f:
        f.write(text.replace("R.nn.relu(hb)", "R.nn.relu(h)"))
    r = subprocess.run([PYTHON, "build_relax.py", "--source", wrong], cwd=folder,
                       capture_output=True, text=True)
    check(r.returncode == 1 and "output 0: MISMATCH" in r.stdout,
          "%s: build_relax.py against a different source exits 1 with MISMATCH (exit %d)"
          % (name, r.returncode))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    found = modules()
    if not found:
        print("SKIP: no module to run")
        return 77
    for name, path, function, dims in found:
        identity(name, path, function)
        cuts(name, path, function, dims)
        if name == "mlp_softmax":
            runtime_verify(name, path, os.path.join(WORK, name, "cut2"))
    print("\n%-40s %-18s %5s %s" % ("module", "plan", "parts", "max relative difference"))
    for row in table:
        print("%-40s %-18s %5d %.3g" % row)
    print("\n%d checks failed" % len(failures) if failures else "\nevery check passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
