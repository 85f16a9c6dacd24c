#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Regenerates the Relay text samples in samples/ (python3, standard library only).

Run `python3 samples/gen_samples.py` from anywhere; the output is deterministic, so a rerun
gives byte-identical files. Each sample is built as a small Relay expression tree (the
classes below) and printed by `TvmTextPrinter`, a line-by-line model of TVM's own
RelayTextPrinter (src/relay/printer/relay_text_printer.cc, v0.9 - v0.18), so the files read
exactly as `print(mod.astext(show_meta_data=False))` prints a type-checked module:

* `#[version = "0.0.5"]`, then the global functions sorted by name, separated by a blank line;
* graph normal form: every non-atomic node is bound as `%N = ...;`, the scope's result is the
  last, unbound expression; `%N` is one counter for the whole file;
* TVM visits dataflow iteratively (ExpandDataflow): a call's callee is visited before its
  arguments and an argument gets its `%N` when its first consumer is printed. That is why the
  body of a nested `fn` is numbered before the fn's own binding, why the fn literals of a fused
  module are visited from the result backwards (their `%p0` parameters are uniquified as
  `%p0`, `%p01`, `%p02`, ... with the *last* function keeping `%p0`), and why two parallel
  branches interleave (`%20 = conv A; %21 = conv B; %22 = bias A; %23 = bias B`);
* `/* ty=... */` after every call, constant, tuple, projection, fn literal and parameter;
* weights are bound constants printed as `meta[relay.Constant][i]`, numbered in the order the
  printer first meets them; scalar constants print inline (`0.5f /* ty=float32 */`);
* call attributes are the non-default fields of the op's attrs, in declaration order;
* the metadata section is replaced by TVM's four-line "For debugging purposes ..." comment.

The samples:

resnet18.relay
    Whole ResNet-18 v1 for ImageNet, NCHW 1x3x224x224, as a frontend produces it before any
    optimisation (weights bound): conv2d (no bias) -> nn.batch_norm (a 3-tuple, `%k = %j.0`)
    -> nn.relu; max_pool2d; 4 stages x 2 BasicBlocks with residual `add` (identity shortcut;
    a 1x1 stride-2 conv + batch_norm projection at the start of stages 2-4);
    global_avg_pool2d, batch_flatten, dense, bias_add, softmax. 71 op calls, 102 constants.

resnet_fused.relay
    The first part of a ResNet-18 (stem, the two stage-1 blocks and the first stage-2 block
    with its projection) after SimplifyInference, FoldConstant, FoldScaleAxis and FuseOps:
    every kernel is a `fn (%p0, ..., Primitive=1, hash="...")` literal bound and then called
    with the activations and `meta[relay.Constant]` weights: conv2d+add+relu,
    conv2d+add+add+relu for the residual, conv2d+add for the projection, max_pool2d alone.
    Structurally identical kernels share the same hash, as TVM's structural hash would.

byoc_dnnl_partitioned.relay
    A small CNN after MergeComposite + AnnotateTarget + MergeCompilerRegions +
    PartitionGraph for "dnnl" (op support as in TVM's first DNNL codegen: conv2d, add, relu,
    but no pooling): @main calls @tvmgen_default_dnnl_main_0, which returns a 2-tuple used as
    `%n.0` and `%n.1`; the host runs nn.max_pool2d between the regions; region 2 reads both
    the pooled tensor and region 0's second output directly, the A(dnnl) -> B(cpu) -> C(dnnl)
    case MergeCompilerRegions must not merge. Inside, Composite functions
    (`dnnl.conv2d_bias_relu`, `dnnl.conv2d_bias`) with %FunctionVar_<g>_<k> parameters,
    the bound weights passed as constants; global_avg_pool2d, batch_flatten and softmax run
    on the host at the end.

stop_fusion.relay
    A conv / bias_add / relu chain (input scaled by a scalar literal) where
    `annotation.stop_fusion` separates three multi-layer subgraphs meant for a custom
    backend, followed by a dense classifier head.

inception_block.relay
    An Inception (GoogLeNet-style) model: input scaled to [-1, 1] with scalar literals, a
    7x7 stem conv + max_pool, then two inception modules with four parallel branches each
    (1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3 max_pool -> 1x1) joined by
    `%t = (%a, %b, %c, %d); concatenate(%t, axis=1)`, then a global-pool / dense / softmax
    head. For cut tests across parallel branches.
"""

import hashlib
import os
import sys
from collections import deque

# --------------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------------


class TensorType:
    def __init__(self, shape, dtype="float32"):
        self.shape = tuple(shape)
        self.dtype = dtype

    def text(self):
        if not self.shape:
            return self.dtype
        return "Tensor[(%s), %s]" % (", ".join(str(d) for d in self.shape), self.dtype)


class TupleType:
    def __init__(self, fields):
        self.fields = list(fields)

    def text(self):
        inner = ", ".join(f.text() for f in self.fields)
        return "(%s,)" % inner if len(self.fields) == 1 else "(%s)" % inner


class FuncType:
    def __init__(self, arg_types, ret_type):
        self.arg_types = list(arg_types)
        self.ret_type = ret_type

    def text(self):
        return "fn (%s) -> %s" % (", ".join(t.text() for t in self.arg_types), self.ret_type.text())


# --------------------------------------------------------------------------------------------
# Expressions (identity matters: one Python object = one Relay node)
# --------------------------------------------------------------------------------------------


class Expr:
    ty = None


class Var(Expr):
    def __init__(self, name, ty):
        self.name = name
        self.ty = ty


class Constant(Expr):
    """A tensor constant (printed as a meta reference) or a scalar literal (`value` set)."""

    def __init__(self, ty, value=None):
        self.ty = ty
        self.value = value


class Op(Expr):
    _registry = {}

    def __init__(self, name):
        self.name = name

    @classmethod
    def get(cls, name):
        if name not in cls._registry:
            cls._registry[name] = Op(name)
        return cls._registry[name]


class GlobalVar(Expr):
    def __init__(self, name):
        self.name = name


class Call(Expr):
    def __init__(self, op, args, attrs, ty):
        self.op = op
        self.args = list(args)
        self.attrs = list(attrs)  # [(key, value)] in declaration order, defaults left out
        self.ty = ty


class Tuple(Expr):
    def __init__(self, fields):
        self.fields = list(fields)
        self.ty = TupleType([f.ty for f in fields])


class TupleGetItem(Expr):
    def __init__(self, tup, index):
        self.tuple = tup
        self.index = index
        self.ty = tup.ty.fields[index]


class Function(Expr):
    def __init__(self, params, body, attrs=(), ret_type=None):
        self.params = list(params)
        self.body = body
        self.attrs = list(attrs)
        self.ret_type = ret_type if ret_type is not None else body.ty
        self.ty = FuncType([p.ty for p in self.params], self.ret_type)


class Module:
    def __init__(self):
        self.functions = {}

    def add(self, name, fn):
        self.functions[name] = fn


# --------------------------------------------------------------------------------------------
# Attribute values and scalars, formatted as TVM does (C++ ostream: 6 significant digits)
# --------------------------------------------------------------------------------------------


def format_float(v):
    return "%g" % v


def attr_text(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v) + "f"
    if isinstance(v, str):
        return '"%s"' % v
    if isinstance(v, (list, tuple)):
        return "[%s]" % ", ".join(attr_text(x) for x in v)
    if v is None:
        return "None"
    raise TypeError("unsupported attribute value %r" % (v,))


def scalar_text(c):
    if c.ty.dtype == "float32":
        return format_float(c.value) + "f"
    if c.ty.dtype == "int32":
        return str(c.value)
    if c.ty.dtype == "int64":
        return "%di64" % c.value
    raise TypeError("unsupported scalar dtype " + c.ty.dtype)


# --------------------------------------------------------------------------------------------
# The printer: a model of tvm::relay::RelayTextPrinter (v0.9+), kept close to the C++ names
# --------------------------------------------------------------------------------------------


def _indent(text, n):
    return text.replace("\n", "\n" + " " * n)


class TvmTextPrinter:
    def __init__(self):
        self.memo = {}          # id(expr) -> printed text (or %N once bound)
        self.keep = []          # keeps memoised objects alive so ids stay unique
        self.var_memo = set()
        self.opt_info_memo = set()
        self.result_memo = {}
        self.name_alloc = {}
        self.temp_counter = 0
        self.meta = {}          # type key -> [id(node)]
        self.doc_stack = []
        self.parents = {}       # id(expr) -> number of uses in the current top-level function

    # -- helpers -----------------------------------------------------------------------------
    def _remember(self, expr, text):
        self.memo[id(expr)] = text
        self.keep.append(expr)

    def get_unique_name(self, prefix):
        unique = prefix
        if prefix in self.name_alloc:
            while True:
                self.name_alloc[prefix] += 1
                name = prefix + str(self.name_alloc[prefix])
                if name not in self.name_alloc:
                    unique = name
                    break
        self.name_alloc[unique] = 0
        return unique

    def get_meta_node(self, node, type_key="relay.Constant"):
        entries = self.meta.setdefault(type_key, [])
        if id(node) not in entries:
            entries.append(id(node))
        return "meta[%s][%d]" % (type_key, entries.index(id(node)))

    def optional_info(self, expr):
        if id(expr) in self.opt_info_memo:
            return ""
        self.opt_info_memo.add(id(expr))
        if isinstance(expr, (Constant, Call, Var, Function, Tuple, TupleGetItem)) and expr.ty is not None:
            return " /* ty=%s */" % expr.ty.text()
        return ""

    def alloc_var(self, var):
        name = var.name
        if not name or not name[0].isalpha():
            name = "v" + name
        val = self.get_unique_name("%" + name)
        self._remember(var, val)
        return val + ": " + var.ty.text() + self.optional_info(var)

    def build_dependency_graph(self, fn):
        """Counts the uses of every node (DependencyGraph parents) for IsUnique."""
        self.parents = {}
        seen = set()
        stack = [fn]
        while stack:
            e = stack.pop()
            if id(e) in seen:
                continue
            seen.add(id(e))
            if isinstance(e, Call):
                children = [e.op] + e.args
            elif isinstance(e, Tuple):
                children = e.fields
            elif isinstance(e, TupleGetItem):
                children = [e.tuple]
            elif isinstance(e, Function):
                children = e.params + [e.body]
            else:
                children = []
            for c in children:
                self.parents[id(c)] = self.parents.get(id(c), 0) + 1
                stack.append(c)

    def is_unique(self, expr):
        return self.parents.get(id(expr), 0) <= 1

    @staticmethod
    def always_inline(expr):
        return isinstance(expr, (GlobalVar, Constant, Op, Var))

    # -- the traversal -----------------------------------------------------------------------
    def visit_leaf(self, expr):
        if id(expr) not in self.memo:
            result = self.visit(expr)
            if id(expr) not in self.memo:
                self._remember(expr, result)
            else:
                self.result_memo[id(expr)] = result

    @staticmethod
    def expand(expr):
        if isinstance(expr, Call):
            return list(reversed(expr.args)) + [expr.op]
        if isinstance(expr, Tuple):
            return list(reversed(expr.fields))
        if isinstance(expr, TupleGetItem):
            return [expr.tuple]
        return []

    def visit_expr(self, expr):
        if id(expr) in self.memo:
            return self.memo[id(expr)]
        stack = deque()

        def push(e):
            if id(e) not in self.memo:
                stack.appendleft([e, False])

        push(expr)
        while stack:
            front = stack[0]
            if id(front[0]) in self.memo:
                stack.popleft()
            elif front[1]:
                self.visit_leaf(front[0])
                stack.popleft()
            else:
                front[1] = True
                for e in self.expand(front[0]):
                    push(e)
        return self.memo[id(expr)]

    def print_expr(self, expr, meta=False, try_inline=False, optional_info=True):
        inline = self.always_inline(expr) or (try_inline and self.is_unique(expr))
        if meta:
            printed = self.get_meta_node(expr)
        else:
            printed = self.visit_expr(expr)
        if optional_info:
            printed += self.optional_info(expr)
        if isinstance(expr, Var):
            return self.memo[id(expr)]
        if inline:
            self._remember(expr, printed)
            return printed
        if id(expr) in self.var_memo:
            return self.memo[id(expr)]
        self.var_memo.add(id(expr))
        temp = "%%%d" % self.temp_counter
        self.temp_counter += 1
        self._remember(expr, temp)
        self.doc_stack[-1].append("%s = %s;\n" % (temp, printed))
        return temp

    def print(self, expr):
        return self.print_expr(expr)

    def visit(self, expr):
        if isinstance(expr, Var):
            raise ValueError("free variable %" + expr.name)
        if isinstance(expr, Constant):
            if expr.value is not None:
                return scalar_text(expr)
            return self.print_expr(expr, meta=True, try_inline=False, optional_info=False)
        if isinstance(expr, Op):
            return expr.name
        if isinstance(expr, GlobalVar):
            return "@" + expr.name
        if isinstance(expr, Tuple):
            fields = [self.print(f) for f in expr.fields]
            return "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
        if isinstance(expr, TupleGetItem):
            return "%s.%d" % (self.print(expr.tuple), expr.index)
        if isinstance(expr, Call):
            args = [self.print(a) for a in expr.args]
            args += ["%s=%s" % (k, attr_text(v)) for k, v in expr.attrs]
            return "%s(%s)" % (self.print(expr.op), ", ".join(args))
        if isinstance(expr, Function):
            return self.print_func("fn ", expr)
        raise TypeError(type(expr))

    def print_scope(self, node):
        self.doc_stack.append([])
        doc = self.print_expr(node, meta=False, try_inline=True)
        doc = "".join(self.doc_stack[-1]) + doc
        self.doc_stack.pop()
        return doc

    def print_body(self, node):
        return "{" + _indent("\n" + self.print_scope(node), 2) + "\n}"

    def print_func(self, prefix, fn):
        params = [self.alloc_var(p) for p in fn.params]
        params += ["%s=%s" % (k, attr_text(v)) for k, v in fn.attrs]
        doc = prefix + "(" + ", ".join(params) + ") "
        doc += "-> " + fn.ret_type.text() + " "
        return doc + self.print_body(fn.body)

    def print_module(self, mod):
        docs = []
        for name in sorted(mod.functions):
            fn = mod.functions[name]
            self.build_dependency_graph(fn)
            docs.append(self.print_func("def @" + name, fn) + "\n")
        text = '#[version = "0.0.5"]\n' + "\n".join(docs)
        if self.meta:
            text += ("\n/* For debugging purposes the metadata section has been omitted.\n"
                     " * If you would like to see the full metadata section you can set the \n"
                     " * option to `True` when invoking `astext`. \n"
                     " */")
        return text


# --------------------------------------------------------------------------------------------
# Operator builders with TVM's shape relations (reference/tvm-formats.md section 5)
# --------------------------------------------------------------------------------------------


def f32(*shape):
    return TensorType(shape, "float32")


def weight(*shape):
    return Constant(f32(*shape))


def scalar(value, dtype="float32"):
    return Constant(TensorType((), dtype), value)


def _call(name, args, attrs, ty):
    return Call(Op.get(name), args, attrs, ty)


def _pool_out(size, pad_total, k, stride, dilation=1):
    dk = (k - 1) * dilation + 1
    return (size + pad_total - dk) // stride + 1


def conv2d(x, w, strides=(1, 1), padding=(0, 0, 0, 0), groups=1, channels=None, kernel_size=None):
    n, c, h, wd = x.ty.shape
    o, ci, kh, kw = w.ty.shape
    assert ci * groups == c, "conv2d input channels"
    top, left, bottom, right = padding
    oh = _pool_out(h, top + bottom, kh, strides[0])
    ow = _pool_out(wd, left + right, kw, strides[1])
    attrs = []
    if tuple(strides) != (1, 1):
        attrs.append(("strides", list(strides)))
    attrs.append(("padding", list(padding)))
    if groups != 1:
        attrs.append(("groups", groups))
    attrs.append(("channels", channels if channels is not None else o))
    attrs.append(("kernel_size", list(kernel_size) if kernel_size else [kh, kw]))
    return _call("nn.conv2d", [x, w], attrs, f32(n, o, oh, ow))


def batch_norm(x, gamma, beta, mean, var):
    c = x.ty.shape[1]
    ty = TupleType([x.ty, f32(c), f32(c)])
    return _call("nn.batch_norm", [x, gamma, beta, mean, var], [], ty)


def unary(name, x, attrs=()):
    return _call(name, [x], list(attrs), x.ty)


def broadcast(name, a, b):
    sa, sb = a.ty.shape, b.ty.shape
    rank = max(len(sa), len(sb))
    pa = (1,) * (rank - len(sa)) + sa
    pb = (1,) * (rank - len(sb)) + sb
    out = []
    for da, db in zip(pa, pb):
        assert da == db or da == 1 or db == 1, "broadcast %s %s" % (sa, sb)
        out.append(max(da, db))
    dtype = a.ty.dtype
    return _call(name, [a, b], [], TensorType(out, dtype))


def add(a, b):
    return broadcast("add", a, b)


def multiply(a, b):
    return broadcast("multiply", a, b)


def subtract(a, b):
    return broadcast("subtract", a, b)


def relu(x):
    return unary("nn.relu", x)


def max_pool2d(x, pool_size, strides=(1, 1), padding=(0, 0, 0, 0)):
    n, c, h, w = x.ty.shape
    top, left, bottom, right = padding
    oh = _pool_out(h, top + bottom, pool_size[0], strides[0])
    ow = _pool_out(w, left + right, pool_size[1], strides[1])
    attrs = [("pool_size", list(pool_size))]
    if tuple(strides) != (1, 1):
        attrs.append(("strides", list(strides)))
    attrs.append(("padding", list(padding)))
    return _call("nn.max_pool2d", [x], attrs, f32(n, c, oh, ow))


def global_avg_pool2d(x):
    n, c, _, _ = x.ty.shape
    return _call("nn.global_avg_pool2d", [x], [], f32(n, c, 1, 1))


def batch_flatten(x):
    n = x.ty.shape[0]
    size = 1
    for d in x.ty.shape[1:]:
        size *= d
    return _call("nn.batch_flatten", [x], [], f32(n, size))


def dense(x, w, units):
    return _call("nn.dense", [x, w], [("units", units)], f32(*(x.ty.shape[:-1] + (w.ty.shape[0],))))


def bias_add(x, b, axis=1):
    return _call("nn.bias_add", [x, b], [] if axis == 1 else [("axis", axis)], x.ty)


def softmax(x):
    return unary("nn.softmax", x)


def stop_fusion(x):
    return unary("annotation.stop_fusion", x)


def concatenate(fields, axis):
    tup = Tuple(fields)
    shape = list(fields[0].ty.shape)
    shape[axis] = sum(f.ty.shape[axis] for f in fields)
    return _call("concatenate", [tup], [("axis", axis)], f32(*shape))


def main_function(params, body):
    return Function(params, body)


# --------------------------------------------------------------------------------------------
# a. ResNet-18 v1 (unoptimised frontend output, weights bound as constants)
# --------------------------------------------------------------------------------------------


def conv_bn(x, out_channels, kernel, stride, pad):
    in_channels = x.ty.shape[1]
    c = conv2d(x, weight(out_channels, in_channels, kernel, kernel), strides=(stride, stride),
               padding=(pad, pad, pad, pad))
    bn = batch_norm(c, weight(out_channels), weight(out_channels), weight(out_channels),
                    weight(out_channels))
    return TupleGetItem(bn, 0)


def basic_block(x, out_channels, stride):
    y = relu(conv_bn(x, out_channels, 3, stride, 1))
    y = conv_bn(y, out_channels, 3, 1, 1)
    if stride != 1 or x.ty.shape[1] != out_channels:
        shortcut = conv_bn(x, out_channels, 1, stride, 0)
    else:
        shortcut = x
    return relu(add(y, shortcut))


def resnet18():
    data = Var("data", f32(1, 3, 224, 224))
    x = relu(conv_bn(data, 64, 7, 2, 3))
    x = max_pool2d(x, (3, 3), (2, 2), (1, 1, 1, 1))
    for channels, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        x = basic_block(x, channels, stride)
        x = basic_block(x, channels, 1)
    x = global_avg_pool2d(x)
    x = batch_flatten(x)
    x = dense(x, weight(1000, 512), 1000)
    x = bias_add(x, weight(1000), axis=-1)
    x = softmax(x)
    mod = Module()
    mod.add("main", main_function([data], x))
    return mod


# --------------------------------------------------------------------------------------------
# b. The head of a ResNet-18 after FuseOps (batch norms folded into conv weights and biases)
# --------------------------------------------------------------------------------------------


def structural_hash(fn):
    """16 hex digits, equal for structurally equal functions (like tvm.ir.structural_hash)."""
    index = {id(p): i for i, p in enumerate(fn.params)}
    parts = []

    def key(e):
        if id(e) in index:
            return "p%d:%s" % (index[id(e)], e.ty.text())
        if isinstance(e, Call):
            return "%s(%s;%s)" % (e.op.name, ",".join(key(a) for a in e.args),
                                  ",".join("%s=%s" % (k, attr_text(v)) for k, v in e.attrs))
        raise TypeError(type(e))

    parts.append(key(fn.body))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def primitive(param_types, build):
    params = [Var("p%d" % i, t) for i, t in enumerate(param_types)]
    body = build(*params)
    fn = Function(params, body)
    fn.attrs = [("Primitive", 1), ("hash", structural_hash(fn))]
    return fn


def fused_conv_add(x, w, b, stride, pad, do_relu=True, residual=None):
    """One fused kernel: conv2d + add(bias) [+ add(residual)] [+ relu]."""
    types = [x.ty, w.ty, b.ty] + ([residual.ty] if residual is not None else [])

    def build(p0, p1, p2, p3=None):
        y = conv2d(p0, p1, strides=(stride, stride), padding=(pad, pad, pad, pad))
        y = add(y, p2)
        if p3 is not None:
            y = add(y, p3)
        return relu(y) if do_relu else y

    fn = primitive(types, build)
    args = [x, w, b] + ([residual] if residual is not None else [])
    return Call(fn, args, [], fn.ret_type)


def fused_max_pool(x):
    fn = primitive([x.ty], lambda p0: max_pool2d(p0, (3, 3), (2, 2), (1, 1, 1, 1)))
    return Call(fn, [x], [], fn.ret_type)


def folded(x, out_channels, kernel):
    """Conv weight and per-channel bias after FoldConstant/FoldScaleAxis."""
    return weight(out_channels, x.ty.shape[1], kernel, kernel), weight(out_channels, 1, 1)


def resnet_fused():
    data = Var("data", f32(1, 3, 224, 224))
    w, b = folded(data, 64, 7)
    x = fused_conv_add(data, w, b, 2, 3)
    x = fused_max_pool(x)
    for _ in range(2):  # stage 1: identity blocks
        w1, b1 = folded(x, 64, 3)
        y = fused_conv_add(x, w1, b1, 1, 1)
        w2, b2 = folded(y, 64, 3)
        x = fused_conv_add(y, w2, b2, 1, 1, residual=x)
    # first block of stage 2, projection shortcut
    w1, b1 = folded(x, 128, 3)
    y = fused_conv_add(x, w1, b1, 2, 1)
    ws, bs = folded(x, 128, 1)
    shortcut = fused_conv_add(x, ws, bs, 2, 0, do_relu=False)
    w2, b2 = folded(y, 128, 3)
    x = fused_conv_add(y, w2, b2, 1, 1, residual=shortcut)
    mod = Module()
    mod.add("main", main_function([data], x))
    return mod


# --------------------------------------------------------------------------------------------
# c. BYOC: a small CNN partitioned for "dnnl"
# --------------------------------------------------------------------------------------------


class CompositeNamer:
    """MergeComposite numbers its groups per pattern, from the graph's output backwards."""

    def __init__(self, group_numbers):
        self.group_numbers = group_numbers  # (pattern, program-order index) -> group number
        self.seen = {}

    def next(self, pattern):
        k = self.seen.get(pattern, 0)
        self.seen[pattern] = k + 1
        return self.group_numbers[pattern][k]


def composite(namer, pattern, x, w, b, stride, pad, do_relu):
    g = namer.next(pattern)
    params = [Var("FunctionVar_%d_%d" % (g, i), t.ty) for i, t in enumerate((x, w, b))]
    y = conv2d(params[0], params[1], strides=(stride, stride), padding=(pad, pad, pad, pad))
    y = add(y, params[2])
    if do_relu:
        y = relu(y)
    from_pattern = "nn.conv2d_add_nn.relu_" if do_relu else "nn.conv2d_add_"
    fn = Function(params, y, [("PartitionedFromPattern", from_pattern), ("Composite", pattern)])
    return Call(fn, [x, w, b], [], fn.ret_type)


def byoc_function(name, region, inputs, build):
    params = [Var("dnnl_%d_i%d" % (region, i), t) for i, t in enumerate(inputs)]
    body = build(*params)
    return Function(params, body, [("Compiler", "dnnl"), ("Primitive", 1), ("Inline", 1),
                                   ("global_symbol", name)])


def byoc_dnnl_partitioned():
    # Program order of the composites: cbr#0, cbr#1, cb#0 (region 0), cbr#2, cb#1 (region 2);
    # MergeComposite numbers each pattern's groups from the output back.
    namer = CompositeNamer({"dnnl.conv2d_bias_relu": [2, 1, 0], "dnnl.conv2d_bias": [1, 0]})
    cbr, cb = "dnnl.conv2d_bias_relu", "dnnl.conv2d_bias"

    def region0(i0):
        c1 = composite(namer, cbr, i0, weight(16, 3, 3, 3), weight(16, 1, 1), 1, 1, True)
        c2 = composite(namer, cbr, c1, weight(16, 16, 3, 3), weight(16, 1, 1), 1, 1, True)
        r = add(c2, c1)
        proj = composite(namer, cb, r, weight(32, 16, 1, 1), weight(32, 1, 1), 2, 0, False)
        return Tuple([r, proj])

    def region2(i0, i1):
        c3 = composite(namer, cbr, i0, weight(32, 16, 3, 3), weight(32, 1, 1), 1, 1, True)
        c4 = composite(namer, cb, c3, weight(32, 32, 3, 3), weight(32, 1, 1), 1, 1, False)
        return relu(add(c4, i1))

    name0, name2 = "tvmgen_default_dnnl_main_0", "tvmgen_default_dnnl_main_2"
    f0 = byoc_function(name0, 0, [f32(1, 3, 32, 32)], region0)
    out0 = f0.ret_type
    f2 = byoc_function(name2, 2, [f32(1, 16, 16, 16), out0.fields[1]], region2)

    data = Var("data", f32(1, 3, 32, 32))
    r0 = Call(GlobalVar(name0), [data], [], out0)
    pooled = max_pool2d(TupleGetItem(r0, 0), (3, 3), (2, 2), (1, 1, 1, 1))
    r2 = Call(GlobalVar(name2), [pooled, TupleGetItem(r0, 1)], [], f2.ret_type)
    y = softmax(batch_flatten(global_avg_pool2d(r2)))
    mod = Module()
    mod.add("main", main_function([data], y))
    mod.add(name0, f0)
    mod.add(name2, f2)
    return mod


# --------------------------------------------------------------------------------------------
# d. stop_fusion between multi-layer subgraphs
# --------------------------------------------------------------------------------------------


def conv_bias_relu(x, out_channels, kernel, stride, pad):
    c = conv2d(x, weight(out_channels, x.ty.shape[1], kernel, kernel), strides=(stride, stride),
               padding=(pad, pad, pad, pad))
    return relu(bias_add(c, weight(out_channels)))


def stop_fusion_model():
    data = Var("data", f32(1, 3, 64, 64))
    x = multiply(data, scalar(1.0 / 255.0))
    # subgraph A: two 3x3 convs at full resolution
    x = conv_bias_relu(x, 16, 3, 1, 1)
    x = conv_bias_relu(x, 16, 3, 1, 1)
    x = stop_fusion(x)
    # subgraph B: downsample and refine
    x = conv_bias_relu(x, 32, 3, 2, 1)
    x = conv_bias_relu(x, 32, 3, 1, 1)
    x = stop_fusion(x)
    # subgraph C: downsample again
    x = conv_bias_relu(x, 64, 3, 2, 1)
    x = conv_bias_relu(x, 64, 1, 1, 0)
    x = stop_fusion(x)
    x = batch_flatten(global_avg_pool2d(x))
    x = softmax(bias_add(dense(x, weight(10, 64), 10), weight(10), axis=-1))
    mod = Module()
    mod.add("main", main_function([data], x))
    return mod


# --------------------------------------------------------------------------------------------
# e. Inception modules (parallel branches joined by concatenate)
# --------------------------------------------------------------------------------------------


def inception_module(x, c1, c3r, c3, c5r, c5, pool_proj):
    b1 = conv_bias_relu(x, c1, 1, 1, 0)
    b2 = conv_bias_relu(conv_bias_relu(x, c3r, 1, 1, 0), c3, 3, 1, 1)
    b3 = conv_bias_relu(conv_bias_relu(x, c5r, 1, 1, 0), c5, 5, 1, 2)
    b4 = conv_bias_relu(max_pool2d(x, (3, 3), (1, 1), (1, 1, 1, 1)), pool_proj, 1, 1, 0)
    return concatenate([b1, b2, b3, b4], axis=1)


def inception_model():
    data = Var("data", f32(1, 3, 224, 224))
    x = multiply(subtract(data, scalar(0.5)), scalar(2.0))
    x = conv_bias_relu(x, 64, 7, 2, 3)
    x = max_pool2d(x, (3, 3), (2, 2), (1, 1, 1, 1))
    x = inception_module(x, 64, 96, 128, 16, 32, 32)
    x = inception_module(x, 128, 128, 192, 32, 96, 64)
    x = batch_flatten(global_avg_pool2d(x))
    x = softmax(bias_add(dense(x, weight(1000, 480), 1000), weight(1000), axis=-1))
    mod = Module()
    mod.add("main", main_function([data], x))
    return mod


# --------------------------------------------------------------------------------------------

SAMPLES = {
    "resnet18.relay": resnet18,
    "resnet_fused.relay": resnet_fused,
    "byoc_dnnl_partitioned.relay": byoc_dnnl_partitioned,
    "stop_fusion.relay": stop_fusion_model,
    "inception_block.relay": inception_model,
}


def main():
    out_dir = os.path.dirname(os.path.abspath(__file__))
    for name, build in SAMPLES.items():
        # `print(mod.astext(show_meta_data=False))` ends the text with one newline.
        text = TvmTextPrinter().print_module(build()) + "\n"
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        sys.stdout.write("%-30s %7d bytes\n" % (name, len(text.encode())))


if __name__ == "__main__":
    main()
