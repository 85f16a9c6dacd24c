#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Oracle for Cleave's per-partition ONNX export (run by tests/core/tst_onnx_export.cpp).

    onnx_oracle.py compare SOURCE.onnx MODULE.onnx
        runs onnx.checker.check_model on MODULE, then onnx.utils.extract_model(SOURCE,
        <MODULE's graph inputs>, <MODULE's graph outputs>) and compares the two models: node
        multiset (op_type + name), edges (each node's input / output tensor names) and
        attributes, initializers (names and values). Prints one JSON verdict line.
    onnx_oracle.py delete-node MODULE.onnx NODE_NAME
    onnx_oracle.py set-attr MODULE.onnx NODE_NAME ATTR INT[,INT...]
        alter a module in place (for the tests of `cleave-cli verify`).

Needs Debian's python3-onnx (/usr/bin/python3).
"""
import collections
import json
import os
import sys
import tempfile

import numpy as np
import onnx
import onnx.utils
from onnx import helper, numpy_helper


def node_signature(node):
    attrs = sorted((a.name, a.SerializeToString()) for a in node.attribute)
    return (node.op_type, node.name, tuple(node.input), tuple(node.output), tuple(attrs))


def compare(source, module_path):
    verdict = {"file": os.path.basename(module_path), "differences": []}
    diffs = verdict["differences"]
    module = onnx.load(module_path)
    try:
        onnx.checker.check_model(module)
        verdict["checker"] = "ok"
    except onnx.checker.ValidationError as e:  # pragma: no cover - reported to the test
        verdict["checker"] = str(e).splitlines()[0]
    inputs = [v.name for v in module.graph.input]
    outputs = [v.name for v in module.graph.output]
    verdict["inputs"] = inputs
    verdict["outputs"] = outputs
    with tempfile.TemporaryDirectory() as tmp:
        extracted_path = os.path.join(tmp, "extracted.onnx")
        onnx.utils.extract_model(source, extracted_path, inputs, outputs)
        extracted = onnx.load(extracted_path)

    mine = collections.Counter((n.op_type, n.name) for n in module.graph.node)
    theirs = collections.Counter((n.op_type, n.name) for n in extracted.graph.node)
    verdict["nodes"] = sum(mine.values())
    verdict["extract_model_nodes"] = sum(theirs.values())
    verdict["same_nodes"] = mine == theirs
    if mine != theirs:
        diffs.append("nodes only in the module: %s; only in extract_model: %s"
                     % (sorted(mine - theirs), sorted(theirs - mine)))

    mine_edges = collections.Counter(node_signature(n) for n in module.graph.node)
    their_edges = collections.Counter(node_signature(n) for n in extracted.graph.node)
    verdict["same_edges"] = mine_edges == their_edges
    if mine_edges != their_edges:
        diffs.append("nodes whose inputs, outputs or attributes differ: %s"
                     % sorted({s[1] for s in (mine_edges ^ their_edges)}))

    def tensors(model):
        return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}

    mine_init = tensors(module)
    their_init = tensors(extracted)
    verdict["initializers"] = len(mine_init)
    verdict["extract_model_initializers"] = len(their_init)
    same_init = sorted(mine_init) == sorted(their_init)
    if not same_init:
        diffs.append("initializers only in the module: %s; only in extract_model: %s"
                     % (sorted(set(mine_init) - set(their_init)),
                        sorted(set(their_init) - set(mine_init))))
    else:
        for name, value in mine_init.items():
            other = their_init[name]
            if value.dtype != other.dtype or value.shape != other.shape \
                    or not np.array_equal(value, other):
                same_init = False
                diffs.append("initializer %s has other values" % name)
    verdict["same_initializers"] = same_init
    src = onnx.load(source)
    verdict["same_opsets"] = sorted((o.domain, o.version) for o in module.opset_import) \
        == sorted((o.domain, o.version) for o in src.opset_import)
    verdict["same_ir_version"] = module.ir_version == src.ir_version
    verdict["ok"] = (verdict["checker"] == "ok" and verdict["same_nodes"]
                     and verdict["same_edges"] and same_init and verdict["same_opsets"]
                     and verdict["same_ir_version"])
    print(json.dumps(verdict, sort_keys=True))
    return 0


def find_node(model, name):
    for n in model.graph.node:
        if n.name == name:
            return n
    sys.exit("no node named %s" % name)


def main(argv):
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "delete-node":
        model = onnx.load(argv[2])
        model.graph.node.remove(find_node(model, argv[3]))
        onnx.save(model, argv[2])
        return 0
    if len(argv) == 6 and argv[1] == "set-attr":
        model = onnx.load(argv[2])
        node = find_node(model, argv[3])
        values = [int(v) for v in argv[5].split(",")]
        kept = [a for a in node.attribute if a.name != argv[4]]
        del node.attribute[:]
        node.attribute.extend(kept)
        node.attribute.append(helper.make_attribute(argv[4], values))
        onnx.save(model, argv[2])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
