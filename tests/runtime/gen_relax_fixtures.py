#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Relax fixtures made by TVM itself (issue 29): small ONNX models built with onnx.helper (seeded
weights) and the ONNX samples, converted by TVM's own frontend
(tvm.relax.frontend.onnx.from_onnx) and printed by TVM (mod.script()).

Weights become function parameters (keep_params_in_input=True; the frontend's "params"
attribute, which only carries their values, is dropped so that the text parses), except in
`<name>_consts`, where they stay constants and the module is printed with show_meta=True: the
metadata header in TVM 0.27's own format.

Writes OUTDIR/<name>.relax.py, OUTDIR/<name>.onnx and OUTDIR/fixtures.json:
[{"name", "relax", "onnx", "function"}]. Usage: gen_relax_fixtures.py OUTDIR [SAMPLE.onnx ...]
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import tvm
from tvm.relax.frontend.onnx import from_onnx

RNG = np.random.default_rng(29)


def weight(name, shape):
    return numpy_helper.from_array(RNG.uniform(-0.5, 0.5, size=shape).astype(np.float32), name)


def model(name, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def conv_bn_relu():
    """Three Conv -> BatchNormalization -> Relu stages."""
    nodes, inits, x, c = [], [], "x", 3
    for i, out in enumerate((8, 8, 16)):
        inits += [weight("w%d" % i, (out, c, 3, 3)), weight("b%d" % i, (out,)),
                  weight("s%d" % i, (out,)), weight("o%d" % i, (out,)), weight("m%d" % i, (out,)),
                  numpy_helper.from_array(RNG.uniform(0.5, 1.5, size=(out,)).astype(np.float32),
                                          "v%d" % i)]
        nodes += [helper.make_node("Conv", [x, "w%d" % i, "b%d" % i], ["c%d" % i], pads=[1] * 4),
                  helper.make_node("BatchNormalization",
                                   ["c%d" % i, "s%d" % i, "o%d" % i, "m%d" % i, "v%d" % i],
                                   ["n%d" % i]),
                  helper.make_node("Relu", ["n%d" % i], ["r%d" % i])]
        x, c = "r%d" % i, out
    return model("conv_bn_relu", nodes, [tensor("x", [1, 3, 16, 16])],
                 [tensor(x, [1, 16, 16, 16])], inits)


def residual():
    """conv -> relu -> conv, added to the block's input (a skip connection), then relu."""
    inits = [weight("w1", (8, 8, 3, 3)), weight("w2", (8, 8, 3, 3))]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1] * 4),
             helper.make_node("Add", ["c2", "x"], ["s"]),
             helper.make_node("Relu", ["s"], ["y"])]
    return model("residual", nodes, [tensor("x", [1, 8, 12, 12])], [tensor("y", [1, 8, 12, 12])],
                 inits)


def inception():
    """Four parallel branches (1x1, 1x1 -> 3x3, max pool -> 1x1, average pool) concatenated."""
    inits = [weight("a", (4, 8, 1, 1)), weight("b1", (4, 8, 1, 1)), weight("b2", (6, 4, 3, 3)),
             weight("c", (2, 8, 1, 1))]
    nodes = [helper.make_node("Conv", ["x", "a"], ["ya"]),
             helper.make_node("Conv", ["x", "b1"], ["yb1"]),
             helper.make_node("Relu", ["yb1"], ["rb1"]),
             helper.make_node("Conv", ["rb1", "b2"], ["yb"], pads=[1] * 4),
             helper.make_node("MaxPool", ["x"], ["pc"], kernel_shape=[3, 3], pads=[1] * 4,
                              strides=[1, 1]),
             helper.make_node("Conv", ["pc", "c"], ["yc"]),
             helper.make_node("AveragePool", ["x"], ["yd"], kernel_shape=[3, 3], pads=[1] * 4,
                              strides=[1, 1], count_include_pad=0),
             helper.make_node("Concat", ["ya", "yb", "yc", "yd"], ["y"], axis=1)]
    return model("inception", nodes, [tensor("x", [1, 8, 10, 10])],
                 [tensor("y", [1, 20, 10, 10])], inits)


def attention():
    """Single-head self-attention: Q, K, V projections, QK^T scaled, Softmax, times V."""
    d, t = 16, 6
    inits = [weight("wq", (d, d)), weight("wk", (d, d)), weight("wv", (d, d)),
             numpy_helper.from_array(np.array(0.25, dtype=np.float32), "scale"),
             numpy_helper.from_array(np.array([t, d], dtype=np.int64), "shape2d")]
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"]),
             helper.make_node("MatMul", ["x", "wk"], ["k"]),
             helper.make_node("MatMul", ["x", "wv"], ["v"]),
             helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]),
             helper.make_node("Mul", ["qk", "scale"], ["qks"]),
             helper.make_node("Softmax", ["qks"], ["p"], axis=-1),
             helper.make_node("MatMul", ["p", "v"], ["o"]),
             helper.make_node("Reshape", ["o", "shape2d"], ["y"])]
    return model("attention", nodes, [tensor("x", [1, t, d])], [tensor("y", [t, d])], inits)


def split_concat():
    """Split in three along channels, a different activation on each, concatenated back."""
    nodes = [helper.make_node("Split", ["x", "parts"], ["a", "b", "c"], axis=1),
             helper.make_node("Relu", ["a"], ["ra"]),
             helper.make_node("Sigmoid", ["b"], ["sb"]),
             helper.make_node("Tanh", ["c"], ["tc"]),
             helper.make_node("Concat", ["tc", "ra", "sb"], ["y"], axis=1)]
    return model("split_concat", nodes, [tensor("x", [2, 6, 4, 4])], [tensor("y", [2, 6, 4, 4])],
                 [numpy_helper.from_array(np.array([2, 2, 2], dtype=np.int64), "parts")])


def convert(m, with_constants):
    mod = from_onnx(m, keep_params_in_input=not with_constants)
    if not with_constants and mod["main"].attrs is not None and "params" in mod["main"].attrs:
        mod["main"] = mod["main"].without_attr("params")
    return mod.script(show_meta=with_constants)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = [conv_bn_relu(), residual(), inception(), attention(), split_concat()]
    for path in sys.argv[2:]:
        m = onnx.load(path)
        m.graph.name = os.path.basename(path)[:-5]
        models.append(m)
    listed = []
    for m in models:
        for with_constants in (False, True) if m.graph.name == "conv_bn_relu" else (False,):
            name = m.graph.name + ("_consts" if with_constants else "")
            onnx.save(m, os.path.join(out, name + ".onnx"))
            with open(os.path.join(out, name + ".relax.py"), "w", encoding="utf-8") as f:
                f.write(convert(m, with_constants))
            listed.append({"name": name, "relax": name + ".relax.py", "onnx": name + ".onnx",
                           "function": "main"})
            print("%s: converted by TVM %s" % (name, tvm.__version__))
    with open(os.path.join(out, "fixtures.json"), "w", encoding="utf-8") as f:
        json.dump(listed, f, indent=1)
    print("%d fixtures in %s" % (len(listed), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
