#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Writes samples/resnet_inception.onnx: a small CNN with branches, for Cleave's ONNX support.

    /usr/bin/python3 samples/gen_onnx_sample.py      # Debian's python3 with python3-onnx

The model (opset 13, IR version 7, NCHW 1x3x32x32 float32) is:
  stem      Conv 3->16 3x3 + BatchNormalization + Relu
  2 blocks  ResNet basic blocks: Conv-BN-Relu-Conv-BN, Add with the block input, Relu
            (the second block downsamples: stride 2 and a 1x1 projection shortcut)
  pool      MaxPool 2x2
  inception four branches joined by Concat(axis=1): 1x1; 1x1->3x3; 1x1->3x3->3x3; MaxPool->1x1
  head      GlobalAveragePool, Flatten, Gemm 32->10, Softmax
Weights are deterministic (numpy seed 7) and small, so the file stays far below 1 MB. Every
node is named; value_info comes from ONNX shape inference; the model passes onnx.checker.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
nodes = []
initializers = []


def weight(name, shape):
    data = (rng.standard_normal(shape) * 0.1).astype(np.float32)
    initializers.append(numpy_helper.from_array(data, name))
    return name


def conv(name, x, cin, cout, k, stride=1):
    w = weight(name + ".weight", (cout, cin, k, k))
    b = weight(name + ".bias", (cout,))
    pad = k // 2
    nodes.append(helper.make_node("Conv", [x, w, b], [name], name=name, kernel_shape=[k, k],
                                  strides=[stride, stride], pads=[pad, pad, pad, pad]))
    return name


def bn(name, x, c):
    scale = weight(name + ".scale", (c,))
    bias = weight(name + ".bias", (c,))
    mean = weight(name + ".mean", (c,))
    var = name + ".var"
    initializers.append(numpy_helper.from_array(np.ones(c, np.float32), var))
    nodes.append(helper.make_node("BatchNormalization", [x, scale, bias, mean, var], [name],
                                  name=name, epsilon=1e-5))
    return name


def relu(name, x):
    nodes.append(helper.make_node("Relu", [x], [name], name=name))
    return name


def block(prefix, x, cin, cout, stride):
    y = relu(prefix + ".relu1", bn(prefix + ".bn1", conv(prefix + ".conv1", x, cin, cout, 3, stride),
                                   cout))
    y = bn(prefix + ".bn2", conv(prefix + ".conv2", y, cout, cout, 3), cout)
    skip = x
    if stride != 1 or cin != cout:
        skip = bn(prefix + ".down.bn", conv(prefix + ".down.conv", x, cin, cout, 1, stride), cout)
    nodes.append(helper.make_node("Add", [y, skip], [prefix + ".add"], name=prefix + ".add"))
    return relu(prefix + ".relu2", prefix + ".add")


def main():
    x = relu("stem.relu", bn("stem.bn", conv("stem.conv", "input", 3, 16, 3), 16))
    x = block("layer1", x, 16, 16, 1)
    x = block("layer2", x, 16, 24, 2)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], name="pool", kernel_shape=[2, 2],
                                  strides=[2, 2]))
    b1 = relu("inc.b1.relu", conv("inc.b1.conv", "pool", 24, 8, 1))
    b2 = relu("inc.b2.relu2", conv("inc.b2.conv2", relu("inc.b2.relu1",
                                                         conv("inc.b2.conv1", "pool", 24, 8, 1)),
                                   8, 8, 3))
    b3 = relu("inc.b3.relu1", conv("inc.b3.conv1", "pool", 24, 4, 1))
    b3 = relu("inc.b3.relu2", conv("inc.b3.conv2", b3, 4, 8, 3))
    b3 = relu("inc.b3.relu3", conv("inc.b3.conv3", b3, 8, 8, 3))
    nodes.append(helper.make_node("MaxPool", ["pool"], ["inc.b4.pool"], name="inc.b4.pool",
                                  kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]))
    b4 = relu("inc.b4.relu", conv("inc.b4.conv", "inc.b4.pool", 24, 8, 1))
    nodes.append(helper.make_node("Concat", [b1, b2, b3, b4], ["inc.concat"], name="inc.concat",
                                  axis=1))
    nodes.append(helper.make_node("GlobalAveragePool", ["inc.concat"], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flatten"], name="flatten", axis=1))
    w = weight("fc.weight", (10, 32))
    b = weight("fc.bias", (10,))
    nodes.append(helper.make_node("Gemm", ["flatten", w, b], ["fc"], name="fc", transB=1))
    nodes.append(helper.make_node("Softmax", ["fc"], ["output"], name="softmax", axis=1))

    graph = helper.make_graph(
        nodes, "resnet_inception",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])],
        initializers)
    model = helper.make_model(graph, producer_name="cleave-samples",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resnet_inception.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    print(f"{path}: {len(model.graph.node)} nodes, {len(model.graph.initializer)} initializers, "
          f"{os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
