# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""ONNX models shaped like torchvision's resnet50, mobilenet_v2, inception_v3 and densenet121,
built with onnx.helper and seeded random weights (He-scaled, so activations stay finite), for the
runtime tests and tests/bench/bench_measured_auto.py. Nothing large is committed: the models are
made at test time. `scale` shrinks widths and depths for fast tests; scale 1 gives the real
layer structure (resnet50: 53 convolutions, 25.6 M parameters at 224x224).

    python3 onnx_models.py OUT_DIR [--scale S] [--models a,b]   writes OUT_DIR/<name>.onnx
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


class Builder:
    """Appends nodes and initializers; every method returns the output tensor's name."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.count = {}

    def fresh(self, kind):
        self.count[kind] = self.count.get(kind, 0) + 1
        return "%s%d" % (kind, self.count[kind])

    def weight(self, name, array):
        self.inits.append(helper.make_tensor(name, TensorProto.FLOAT, array.shape,
                                             array.astype(np.float32).ravel()))
        return name

    def node(self, op, inputs, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv(self, x, cin, cout, k, stride=1, groups=1, pad=None):
        kh, kw = (k, k) if isinstance(k, int) else k
        name = self.fresh("conv")
        fan_in = cin // groups * kh * kw
        w = self.rng.standard_normal((cout, cin // groups, kh, kw)) * np.sqrt(2.0 / fan_in)
        ph, pw = ((kh - 1) // 2, (kw - 1) // 2) if pad is None else (pad, pad)
        return self.node("Conv", [x, self.weight(name + ".weight", w)], name,
                         kernel_shape=[kh, kw], strides=[stride, stride], group=groups,
                         pads=[ph, pw, ph, pw])

    def bn(self, x, c):
        name = self.fresh("bn")
        ins = [x]
        for part, value in (("scale", 1.0), ("bias", 0.0), ("mean", 0.0), ("var", 1.0)):
            ins.append(self.weight("%s.%s" % (name, part), np.full((c,), value)))
        return self.node("BatchNormalization", ins, name, epsilon=1e-5)

    def relu(self, x):
        return self.node("Relu", [x], self.fresh("relu"))

    def relu6(self, x):
        name = self.fresh("relu6")
        lo = self.weight(name + ".min", np.array(0.0))
        hi = self.weight(name + ".max", np.array(6.0))
        return self.node("Clip", [x, lo, hi], name)

    def cbr(self, x, cin, cout, k, stride=1, groups=1, act="relu", pad=None):
        y = self.bn(self.conv(x, cin, cout, k, stride, groups, pad), cout)
        if act == "relu":
            return self.relu(y)
        if act == "relu6":
            return self.relu6(y)
        return y

    def add(self, a, b):
        return self.node("Add", [a, b], self.fresh("add"))

    def concat(self, xs):
        return self.node("Concat", xs, self.fresh("concat"), axis=1)

    def maxpool(self, x, k, stride, pad=0):
        return self.node("MaxPool", [x], self.fresh("maxpool"), kernel_shape=[k, k],
                         strides=[stride, stride], pads=[pad] * 4)

    def avgpool(self, x, k, stride, pad=0):
        return self.node("AveragePool", [x], self.fresh("avgpool"), kernel_shape=[k, k],
                         strides=[stride, stride], pads=[pad] * 4, count_include_pad=0)

    def head(self, x, c, classes):
        y = self.node("GlobalAveragePool", [x], "gap")
        y = self.node("Flatten", [y], "flatten", axis=1)
        w = self.rng.standard_normal((classes, c)) * np.sqrt(1.0 / c)
        return self.node("Gemm", [y, self.weight("fc.weight", w),
                                  self.weight("fc.bias", np.zeros(classes))], "fc", transB=1)

    def model(self, resolution, output, classes):
        return self.finish([1, 3, resolution, resolution], output, [1, classes])

    def finish(self, input_shape, output, output_shape):
        """The checked model of the nodes so far: float input `input`, float output `output`."""
        x = helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)
        y = helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)
        graph = helper.make_graph(self.nodes, self.name, [x], [y], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                  producer_name="cleave-tests")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def width(c, scale):
    return max(4, int(round(c * scale)))


def resnet50(scale=1.0, resolution=224, classes=1000, seed=0):
    b = Builder("resnet50", seed)
    depths = [3, 4, 6, 3] if scale >= 1 else [1, 1, 2, 1]
    c = width(64, scale)
    x = b.maxpool(b.cbr("input", 3, c, 7, 2), 3, 2, 1)
    for stage, (mid, n) in enumerate(zip([64, 128, 256, 512], depths)):
        mid = width(mid, scale)
        out = mid * 4
        for i in range(n):
            stride = 2 if i == 0 and stage > 0 else 1
            y = b.cbr(x, c, mid, 1)
            y = b.cbr(y, mid, mid, 3, stride)
            y = b.cbr(y, mid, out, 1, act=None)
            skip = b.cbr(x, c, out, 1, stride, act=None) if (stride != 1 or c != out) else x
            x = b.relu(b.add(y, skip))
            c = out
    return b.model(resolution, b.head(x, c, classes), classes)


def mobilenet_v2(scale=1.0, resolution=224, classes=1000, seed=0):
    b = Builder("mobilenet_v2", seed)
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]
    if scale < 1:
        settings = [(t, c, 1, s) for t, c, n, s in settings]
    c = width(32, scale)
    x = b.cbr("input", 3, c, 3, 2, act="relu6")
    for t, out, n, s in settings:
        out = width(out, scale)
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = c * t
            y = b.cbr(x, c, hidden, 1, act="relu6") if t != 1 else x
            y = b.cbr(y, hidden, hidden, 3, stride, groups=hidden, act="relu6")
            y = b.cbr(y, hidden, out, 1, act=None)
            x = b.add(x, y) if stride == 1 and c == out else y
            c = out
    last = width(1280, scale)
    x = b.cbr(x, c, last, 1, act="relu6")
    return b.model(resolution, b.head(x, last, classes), classes)


def inception_v3(scale=1.0, resolution=299, classes=1000, seed=0):
    b = Builder("inception_v3", seed)
    w = lambda c: width(c, scale)  # noqa: E731
    x = b.cbr("input", 3, w(32), 3, 2, pad=0)
    x = b.cbr(x, w(32), w(32), 3, pad=0)
    x = b.cbr(x, w(32), w(64), 3)
    x = b.maxpool(x, 3, 2)
    x = b.cbr(x, w(64), w(80), 1)
    x = b.cbr(x, w(80), w(192), 3, pad=0)
    x = b.maxpool(x, 3, 2)
    c = w(192)
    for pool_features in ([32, 64, 64] if scale >= 1 else [32]):  # InceptionA
        b1 = b.cbr(x, c, w(64), 1)
        b2 = b.cbr(b.cbr(x, c, w(48), 1), w(48), w(64), 5)
        b3 = b.cbr(b.cbr(b.cbr(x, c, w(64), 1), w(64), w(96), 3), w(96), w(96), 3)
        b4 = b.cbr(b.avgpool(x, 3, 1, 1), c, w(pool_features), 1)
        x, c = b.concat([b1, b2, b3, b4]), w(64) + w(64) + w(96) + w(pool_features)
    # InceptionB (reduction)
    b1 = b.cbr(x, c, w(384), 3, 2, pad=0)
    b2 = b.cbr(b.cbr(b.cbr(x, c, w(64), 1), w(64), w(96), 3), w(96), w(96), 3, 2, pad=0)
    b3 = b.maxpool(x, 3, 2)
    x, c = b.concat([b1, b2, b3]), w(384) + w(96) + c
    for c7 in ([128, 160, 160, 192] if scale >= 1 else [128]):  # InceptionC
        c7 = w(c7)
        b1 = b.cbr(x, c, w(192), 1)
        b2 = b.cbr(b.cbr(b.cbr(x, c, c7, 1), c7, c7, (1, 7)), c7, w(192), (7, 1))
        b3 = b.cbr(x, c, c7, 1)
        for k, cout in (((7, 1), c7), ((1, 7), c7), ((7, 1), c7), ((1, 7), w(192))):
            b3 = b.cbr(b3, c7, cout, k)
        b4 = b.cbr(b.avgpool(x, 3, 1, 1), c, w(192), 1)
        x, c = b.concat([b1, b2, b3, b4]), 4 * w(192)
    # InceptionD (reduction)
    b1 = b.cbr(b.cbr(x, c, w(192), 1), w(192), w(320), 3, 2, pad=0)
    b2 = b.cbr(x, c, w(192), 1)
    for k in ((1, 7), (7, 1)):
        b2 = b.cbr(b2, w(192), w(192), k)
    b2 = b.cbr(b2, w(192), w(192), 3, 2, pad=0)
    b3 = b.maxpool(x, 3, 2)
    x, c = b.concat([b1, b2, b3]), w(320) + w(192) + c
    for _ in range(2 if scale >= 1 else 1):  # InceptionE
        b1 = b.cbr(x, c, w(320), 1)
        b2 = b.cbr(x, c, w(384), 1)
        b2 = b.concat([b.cbr(b2, w(384), w(384), (1, 3)), b.cbr(b2, w(384), w(384), (3, 1))])
        b3 = b.cbr(b.cbr(x, c, w(448), 1), w(448), w(384), 3)
        b3 = b.concat([b.cbr(b3, w(384), w(384), (1, 3)), b.cbr(b3, w(384), w(384), (3, 1))])
        b4 = b.cbr(b.avgpool(x, 3, 1, 1), c, w(192), 1)
        x, c = b.concat([b1, b2, b3, b4]), w(320) + 4 * w(384) + w(192)
    return b.model(resolution, b.head(x, c, classes), classes)


def densenet121(scale=1.0, resolution=224, classes=1000, seed=0):
    b = Builder("densenet121", seed)
    growth = width(32, scale)
    blocks = [6, 12, 24, 16] if scale >= 1 else [2, 3, 4, 2]
    c = width(64, scale)
    x = b.maxpool(b.cbr("input", 3, c, 7, 2), 3, 2, 1)
    for i, layers in enumerate(blocks):
        features, channels = [x], [c]
        for _ in range(layers):
            y = features[0] if len(features) == 1 else b.concat(features)
            cin = sum(channels)
            y = b.relu(b.bn(y, cin))
            y = b.conv(y, cin, 4 * growth, 1)
            y = b.relu(b.bn(y, 4 * growth))
            y = b.conv(y, 4 * growth, growth, 3)
            features.append(y)
            channels.append(growth)
        x, c = b.concat(features), sum(channels)
        if i != len(blocks) - 1:
            x = b.conv(b.relu(b.bn(x, c)), c, c // 2, 1)
            x = b.avgpool(x, 2, 2)
            c //= 2
    x = b.relu(b.bn(x, c))
    return b.model(resolution, b.head(x, c, classes), classes)


def tied_mlp(seed=0, width_=16, batch=4):
    """ALBERT-style weight tying: one weight, transposed and scaled once (nodes computed from
    initializers only), read by three MatMul layers with Relu between them. Cut between the
    layers, every later stage computes the tied weight again instead of receiving it."""
    b = Builder("tied_mlp", seed)
    w = b.weight("tied.weight", b.rng.standard_normal((width_, width_)) / np.sqrt(width_))
    s = b.weight("tied.scale", 1.0 + 0.1 * b.rng.standard_normal((width_,)))
    ws = b.node("Mul", [b.node("Transpose", [w], "tied_t", perm=[1, 0]), s], "tied_ws")
    x = "input"
    for i in range(3):
        x = b.node("MatMul", [x, ws], "layer%d" % i)
        if i < 2:
            x = b.relu(x)
    return b.finish([batch, width_], x, [batch, width_])


MODELS = {
    "resnet50": resnet50,
    "mobilenet_v2": mobilenet_v2,
    "inception_v3": inception_v3,
    "densenet121": densenet121,
}


def write(name, path, scale=1.0, resolution=None, classes=None):
    kwargs = {"scale": scale}
    if resolution:
        kwargs["resolution"] = resolution
    if classes:
        kwargs["classes"] = classes
    onnx.save(MODELS[name](**kwargs), path)
    return path


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    scale = float(sys.argv[sys.argv.index("--scale") + 1]) if "--scale" in sys.argv else 1.0
    names = (sys.argv[sys.argv.index("--models") + 1].split(",") if "--models" in sys.argv
             else list(MODELS))
    os.makedirs(out, exist_ok=True)
    for name in names:
        path = write(name, os.path.join(out, name + ".onnx"), scale)
        print("%s: %d nodes, %.1f MB" % (path, len(onnx.load(path).graph.node),
                                         os.path.getsize(path) / 1e6))


if __name__ == "__main__":
    main()
