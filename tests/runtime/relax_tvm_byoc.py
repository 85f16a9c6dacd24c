#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""byoc.relax.py in TVM's own terms (issue 29): TVM parses it, relax.analysis.well_formed holds,
and its BYOC regions are the ones TVM's own passes form with the same op patterns.

  diamond   ../shared/corpus/relax diamond A -> B -> A (before MergeCompositeFunctions): Cleave
            exports the plan {conv2d, relu} on compiler_A, {gelu} on compiler_B, {add} on
            compiler_A; TVM runs MergeCompositeFunctions on the same module.
  onnx      a TVM-converted ONNX fixture (conv / add / relu): Cleave forms regions with
            `auto --targets dnnl=OPS.json,llvm`; TVM runs FuseOpsByPattern with one pattern per
            listed op ("dnnl.<op>") and MergeCompositeFunctions.

The region structure compared: the Codegen functions main calls, each as (codegen name, the
operators inside it, closures counted once per call), as a multiset over main's calls.

Usage: relax_tvm_byoc.py CLEAVE_CLI WORK_DIR --corpus DIR --fixtures DIR
"""

import json
import os
import shutil
import subprocess
import sys
from collections import Counter

import tvm
from tvm import relax
from tvm.relax.dpl import is_op, wildcard

from tvm_support import arg, check, failures, parse

CLI, WORK = sys.argv[1], sys.argv[2]


ran = 0


def ops_in(func, counts=None):
    """Operator calls in a function, a closure's operators counted once per call of it."""
    counts = Counter() if counts is None else counts
    closures = {}

    def walk(e):
        if isinstance(e, relax.SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    if isinstance(b.value, relax.Function):
                        closures[b.var] = b.value
                    else:
                        walk(b.value)
            walk(e.body)
        elif isinstance(e, relax.Call):
            if isinstance(e.op, tvm.ir.Op):
                counts[e.op.name] += 1
            elif isinstance(e.op, relax.Function):
                ops_in(e.op, counts)
            elif e.op in closures:
                ops_in(closures[e.op], counts)

    walk(func.body)
    return counts


def calls_of_regions(mod):
    """Main's calls of Codegen functions, each as (codegen, sorted operator histogram)."""
    signature = {}
    for gv in mod.get_global_vars():
        f = mod[gv]
        if isinstance(f, relax.Function) and f.attrs is not None and "Codegen" in f.attrs:
            signature[gv.name_hint] = (str(f.attrs["Codegen"]), tuple(sorted(ops_in(f).items())))
    calls = []

    def visit(e):
        if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.GlobalVar) \
                and e.op.name_hint in signature:
            calls.append(signature[e.op.name_hint])

    relax.analysis.post_order_visit(mod["main"], visit)
    return Counter(calls)


def compare(name, byoc_path, reference):
    global ran
    ran += 1
    try:
        mine = parse(byoc_path)
    except Exception as error:
        check(False, "%s: TVM parses byoc.relax.py: %s" % (name, str(error).splitlines()[0]))
        return
    # check_well_formed answers True/False (TVM >= 0.27); well_formed answers before it.
    checker = getattr(relax.analysis, "check_well_formed", relax.analysis.well_formed)
    check(checker(mine) is True, "%s: byoc.relax.py is well formed (relax.analysis)" % name)
    symbols = [str(mine[gv].attrs["global_symbol"]) for gv in mine.get_global_vars()
               if mine[gv].attrs is not None and "Codegen" in mine[gv].attrs]
    check(symbols and all(symbols), "%s: every Codegen function has a global_symbol (%d), as "
          "RunCodegen needs" % (name, len(symbols)))
    a, b = calls_of_regions(mine), calls_of_regions(reference)
    check(a == b, "%s: main calls %d Codegen regions, TVM's passes %d; the same regions with the "
          "same operators%s" % (name, sum(a.values()), sum(b.values()),
                                "" if a == b else ": only Cleave %s, only TVM %s"
                                % (dict(a - b), dict(b - a))))


def cli(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    check(r.returncode == 0, "cleave-cli %s (%s)" % (" ".join(args[:2]), r.stderr.strip()[-300:]))
    return r.returncode == 0


def diamond(corpus):
    before = os.path.join(corpus, "diamond-A-B-A_before-merge_tvm-test.relax.py")
    if not os.path.isfile(before):
        print("SKIP-PART: no diamond module in %s" % corpus)
        return
    plan = os.path.join(WORK, "diamond.plan.json")
    if not cli("partition", before, "--cut-after", "fused_relax_nn_relu:0", "--cut-after",
               "fused_relax_nn_gelu:0", "--save-plan", plan):
        return
    with open(plan, encoding="utf-8") as f:
        doc = json.load(f)
    for part, target in zip(doc["partitions"], ["compiler_A", "compiler_B", "compiler_A"]):
        part["target"] = target
    with open(plan, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    out = os.path.join(WORK, "diamond")
    if cli("partition", before, "--plan", plan, "--out", out):
        reference = relax.transform.MergeCompositeFunctions()(parse(before))
        compare("diamond A-B-A", os.path.join(out, "byoc.relax.py"), reference)


def onnx_fixture(fixtures):
    index = os.path.join(fixtures, "fixtures.json") if fixtures else ""
    if not os.path.isfile(index):
        print("SKIP-PART: no fixtures.json in %s" % fixtures)
        return
    with open(index, encoding="utf-8") as f:
        listed = json.load(f)
    ops = ["relax.nn.conv2d", "relax.add", "relax.nn.relu"]
    for fx in listed:
        path = os.path.join(fixtures, fx["relax"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if not all("R." + op[6:] + "(" in text for op in ops):
            continue
        support = os.path.join(WORK, "dnnl_ops.json")
        with open(support, "w", encoding="utf-8") as f:
            json.dump({"target": "dnnl", "ops": ops}, f)
        out = os.path.join(WORK, fx["name"])
        if not cli("auto", path, "--targets", "dnnl=%s,llvm" % support, "--out", out):
            return
        patterns = [("dnnl.conv2d", is_op("relax.nn.conv2d")(wildcard(), wildcard())),
                    ("dnnl.add", is_op("relax.add")(wildcard(), wildcard())),
                    ("dnnl.relu", is_op("relax.nn.relu")(wildcard()))]
        reference = relax.transform.FuseOpsByPattern(patterns, bind_constants=False,
                                                     annotate_codegen=False)(parse(path))
        reference = relax.transform.MergeCompositeFunctions()(reference)
        compare("ONNX fixture %s" % fx["name"], os.path.join(out, "byoc.relax.py"), reference)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if arg("--corpus"):
        diamond(arg("--corpus"))
    onnx_fixture(arg("--fixtures"))
    if ran == 0:
        print("SKIP: neither the diamond module nor a conv/add/relu fixture is available")
        return 77
    print("%d checks failed" % len(failures) if failures else "every check passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
