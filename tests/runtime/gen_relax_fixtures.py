#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Relax fixtures made by TVM itself (issue 29): small ONNX models built with onnx.helper (seeded
weights, fp32) and the ONNX samples, converted by TVM's own frontend
(tvm.relax.frontend.onnx.from_onnx, opset 17) and printed by TVM (mod.script()).

Frontend options, per variant (the name's suffix):
  <name>          keep_params_in_input=True: the weights are parameters of `main` after the data
                  inputs (`R.func_attr({"num_input": k})`). The frontend's "params" attribute,
                  which only carries their values, is dropped so that the text parses.
  <name>_consts   keep_params_in_input=False: the weights are constants, printed with
                  show_meta=True, i.e. as metadata["ir.GenericConst"][i] with TVM 0.27's metadata
                  header (tvm-ffi graph: root_index, ffi.Tensor payloads); rank-0 constants print
                  inline as R.const(...).
  <name>_fused    the <name> module after LegalizeOps, AnnotateTIROpPattern and FuseOps: main
                  calls "Primitive" Relax functions whose ops are R.call_tir of @T.prim_funcs.
  <name>_lowered  the same and FuseTIR: every op an R.call_tir of a fused @T.prim_func (TVM
                  0.27's TIR: s_tir, T.sblock).

Writes OUTDIR/<name>.relax.py and OUTDIR/<name>.onnx for each, and two indexes of the same layout,
[{"name", "relax", "onnx", "function"}]:
  fixtures.json         modules for the import oracle and the export / run tests: static shapes,
                        float inputs (conv_bn_relu, conv_bn_relu_consts, residual, inception,
                        attention, split_concat and the ONNX samples).
  import_fixtures.json  modules only the import oracle reads: symbolic dims (TVM 0.27 declares them
                        as `n = TypeVar("n")` before the class), R.match_cast (NonZero, Range),
                        integer and boolean inputs, several outputs, a tuple-valued op (TopK),
                        if / else, fused and lowered modules, and `printed_forms`, a module
                        written here (closures, kernels and packed calls, R.print) that TVM
                        parses and prints again, whose "onnx" is null.
Usage: gen_relax_fixtures.py OUTDIR [SAMPLE.onnx ...]
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import tvm
from tvm import relax
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


def tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


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


def dynamic_mlp():
    """A batch of any size ("batch"): Gemm -> Relu -> Gemm (transB) -> Softmax."""
    inits = [weight("w1", (12, 16)), weight("b1", (16,)), weight("w2", (4, 16)),
             weight("b2", (4,))]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["l"], transB=1),
             helper.make_node("Softmax", ["l"], ["y"], axis=-1)]
    return model("dynamic_mlp", nodes, [tensor("x", ["batch", 12])], [tensor("y", ["batch", 4])],
                 inits)


def dynamic_conv():
    """Symbolic batch and height (N, H): Conv -> Relu -> Flatten, whose output has the
    symbolic dim H * 16."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1] * 4),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Flatten", ["r"], ["y"], axis=1)]
    return model("dynamic_conv", nodes, [tensor("x", ["N", 3, "H", 4])],
                 [tensor("y", ["N", None])], [weight("w", (4, 3, 3, 3))])


def three_outputs():
    """Conv -> Relu, its global average, and the average's ArgMax (int64): three outputs."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1] * 4),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("ArgMax", ["f"], ["am"], axis=1, keepdims=0)]
    return model("three_outputs", nodes, [tensor("x", [1, 3, 6, 6])],
                 [tensor("r", [1, 4, 6, 6]), tensor("f", [1, 4]),
                  tensor("am", [1], TensorProto.INT64)], [weight("w", (4, 3, 3, 3))])


def embedding():
    """int64 token ids and a bool mask: Gather from a table, LayerNormalization, MatMul, Erf,
    Slice, Cast to float16, Where; two outputs of different dtypes."""
    inits = [weight("emb", (10, 8)), weight("g", (8,)), weight("b", (8,)), weight("wo", (8, 8)),
             ints("starts", [0, 2]), ints("ends", [3, 8]), ints("axes", [1, 2])]
    nodes = [helper.make_node("Gather", ["emb", "ids"], ["e"], axis=0),
             helper.make_node("LayerNormalization", ["e", "g", "b"], ["n"], axis=-1,
                              epsilon=1e-5),
             helper.make_node("MatMul", ["n", "wo"], ["m"]),
             helper.make_node("Erf", ["m"], ["er"]),
             helper.make_node("Slice", ["er", "starts", "ends", "axes"], ["s"]),
             helper.make_node("Cast", ["s"], ["y"], to=TensorProto.FLOAT16),
             helper.make_node("Where", ["mask", "m", "n"], ["z"])]
    return model("embedding", nodes,
                 [tensor("ids", [1, 5], TensorProto.INT64),
                  tensor("mask", [1, 5, 8], TensorProto.BOOL)],
                 [tensor("y", [1, 3, 6], TensorProto.FLOAT16), tensor("z", [1, 5, 8])], inits)


def nonzero():
    """NonZero, whose count is known at run time only: TVM binds it with R.match_cast."""
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["y"])]
    return model("nonzero", nodes, [tensor("x", [3, 4])],
                 [tensor("y", [None, 2], TensorProto.INT64)], [])


def arange():
    """Range of int64 scalar inputs, cast to float: R.match_cast of a shape, and its symbolic
    length passed to R.arange as a value."""
    nodes = [helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
             helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT)]
    scalar = [tensor(n, [], TensorProto.INT64) for n in ("start", "limit", "delta")]
    return model("arange", nodes, scalar, [tensor("y", [None])], [])


def top_k():
    """TopK: an op with a tuple result whose two fields are the model's outputs."""
    nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=-1)]
    return model("top_k", nodes, [tensor("x", [2, 8])],
                 [tensor("v", [2, 3]), tensor("i", [2, 3], TensorProto.INT64)], [ints("k", [3])])


def if_else():
    """If on a bool input: Relu in one branch, Neg in the other (a Relax if / else)."""
    then = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [],
                             [tensor("t", [2, 3])])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                              [tensor("e", [2, 3])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)]
    return model("if_else", nodes, [tensor("c", [], TensorProto.BOOL), tensor("x", [2, 3])],
                 [tensor("y", [2, 3])], [])


# Forms the ONNX frontend does not write, parsed and printed again by TVM (TVM 0.27 spelling:
# out_ty / ty_args): a closure, a module function call, R.call_tir of a PrimFunc,
# call_dps_packed, call_pure_packed, call_packed, R.print as a statement and a PrimValue literal.
PRINTED_FORMS = """
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            b[i] = a[i] + T.float32(1.0)

    @R.function
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.nn.relu(x)
        return y

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32"), s: R.Shape([4])) -> R.Tuple(
            R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        cls = Module

        @R.function
        def inner(z: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            w = R.multiply(z, R.const(2.0, "float32"))
            return w

        a = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        b = R.call_dps_packed("ext_add", (a,), out_ty=R.Tensor((4,), dtype="float32"))
        c = R.call_pure_packed("ext_pure", b, ty_args=(R.Tensor((4,), dtype="float32"),))
        d = cls.helper(c)
        e = inner(d)
        _ = R.print(e, format="e: {}")
        f = R.call_packed("ext_impure", e, ty_args=(R.Tensor((4,), dtype="float32"),))
        g = R.add(f, R.prim_value(T.float32(1.0)))
        return (f, g)
"""


def convert(m, variant):
    """TVMScript of the ONNX model `m` as TVM converts and prints it (variants: see above)."""
    with_constants = variant == "consts"
    mod = from_onnx(m, keep_params_in_input=not with_constants)
    if not with_constants and mod["main"].attrs is not None and "params" in mod["main"].attrs:
        mod["main"] = mod["main"].without_attr("params")
    passes = [relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
              relax.transform.FuseOps()]
    if variant == "fused":
        mod = tvm.transform.Sequential(passes)(mod)
    if variant == "lowered":
        mod = tvm.transform.Sequential(passes + [relax.transform.FuseTIR()])(mod)
    return mod.script(show_meta=with_constants)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    samples = []
    for path in sys.argv[2:]:
        m = onnx.load(path)
        m.graph.name = os.path.basename(path)[:-5]
        samples.append((m, ("params",), "fixtures.json"))
    plan = [(conv_bn_relu(), ("params", "consts"), "fixtures.json"),
            (residual(), ("params",), "fixtures.json"),
            (inception(), ("params",), "fixtures.json"),
            (attention(), ("params",), "fixtures.json"),
            (split_concat(), ("params",), "fixtures.json")] + samples
    plan += [(conv_bn_relu(), ("fused", "lowered"), "import_fixtures.json"),
             (dynamic_mlp(), ("params", "consts", "lowered"), "import_fixtures.json"),
             (dynamic_conv(), ("params", "consts"), "import_fixtures.json"),
             (three_outputs(), ("params", "lowered"), "import_fixtures.json"),
             (embedding(), ("params", "consts"), "import_fixtures.json"),
             (nonzero(), ("params",), "import_fixtures.json"),
             (arange(), ("params",), "import_fixtures.json"),
             (top_k(), ("params",), "import_fixtures.json"),
             (if_else(), ("params",), "import_fixtures.json")]
    indexes = {"fixtures.json": [], "import_fixtures.json": []}
    for m, variants, index in plan:
        for variant in variants:
            name = m.graph.name + ("" if variant == "params" else "_" + variant)
            onnx.save(m, os.path.join(out, name + ".onnx"))
            with open(os.path.join(out, name + ".relax.py"), "w", encoding="utf-8") as f:
                f.write(convert(m, variant))
            indexes[index].append({"name": name, "relax": name + ".relax.py",
                                   "onnx": name + ".onnx", "function": "main"})
            print("%s: converted by TVM %s (%s)" % (name, tvm.__version__, index))
    # Not converted from ONNX: "onnx" is null.
    name = "printed_forms"
    with open(os.path.join(out, name + ".relax.py"), "w", encoding="utf-8") as f:
        f.write(tvm.script.from_source(PRINTED_FORMS).script())
    indexes["import_fixtures.json"].append({"name": name, "relax": name + ".relax.py",
                                            "onnx": None, "function": "main"})
    print("%s: printed by TVM %s (import_fixtures.json)" % (name, tvm.__version__))
    for index, listed in indexes.items():
        with open(os.path.join(out, index), "w", encoding="utf-8") as f:
            json.dump(listed, f, indent=1)
        print("%d fixtures in %s" % (len(listed), os.path.join(out, index)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
