// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test helper: the small graphs the partition engine tests share. Operators are `%0`, `%1`, ...
#pragma once

#include "GraphBuilder.h"

#include <memory>
#include <string>

namespace cleave::test {

/// Two ResNet identity blocks:
/// %0 conv(data) %1 relu %2 conv %3 add(%2, data) | %4 conv(%3) %5 relu %6 conv %7 add(%6, %3) %8
/// relu
inline std::unique_ptr<Graph> residualIdentity()
{
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 64, 56, 56 });
    NodeId w[4];
    for (int i = 0; i < 4; ++i)
        w[i] = b.constant("w" + std::to_string(i), { 64, 64, 3, 3 });
    const GraphBuilder::Shape s { 1, 64, 56, 56 };
    const NodeId c0 = b.op("nn.conv2d", { data, w[0] }, s);
    const NodeId r0 = b.op("nn.relu", { c0 }, s);
    const NodeId c1 = b.op("nn.conv2d", { r0, w[1] }, s);
    const NodeId a0 = b.op("add", { c1, data }, s);
    const NodeId c2 = b.op("nn.conv2d", { a0, w[2] }, s);
    const NodeId r1 = b.op("nn.relu", { c2 }, s);
    const NodeId c3 = b.op("nn.conv2d", { r1, w[3] }, s);
    const NodeId a1 = b.op("add", { c3, a0 }, s);
    return b.finish(b.op("nn.relu", { a1 }, s));
}

/// A block whose shortcut is a projection conv read from the first relu:
/// %0 conv(data) %1 relu %2 conv/2 %3 relu %4 conv %5 conv/2(%1) %6 add(%4, %5)
inline std::unique_ptr<Graph> projectionBlock()
{
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 64, 56, 56 });
    const NodeId w0 = b.constant("w0", { 64, 64, 3, 3 });
    const NodeId w1 = b.constant("w1", { 128, 64, 3, 3 });
    const NodeId w2 = b.constant("w2", { 128, 128, 3, 3 });
    const NodeId wsc = b.constant("wsc", { 128, 64, 1, 1 });
    const GraphBuilder::Shape big { 1, 64, 56, 56 }, small { 1, 128, 28, 28 };
    const Attributes stride2 = ints({ { "strides", { 2, 2 } } });
    const NodeId c0 = b.op("nn.conv2d", { data, w0 }, big);
    const NodeId r0 = b.op("nn.relu", { c0 }, big);
    const NodeId c1 = b.op("nn.conv2d", { r0, w1 }, small, stride2);
    const NodeId r1 = b.op("nn.relu", { c1 }, small);
    const NodeId c2 = b.op("nn.conv2d", { r1, w2 }, small);
    const NodeId sc = b.op("nn.conv2d", { r0, wsc }, small, stride2);
    return b.finish(b.op("add", { c2, sc }, small));
}

/// One residual block: %0 relu(data) %1 conv %2 relu %3 conv %4 add(%3, %0) %5 relu.
inline std::unique_ptr<Graph> residualBlock()
{
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 64, 56, 56 });
    const NodeId w0 = b.constant("w0", { 64, 64, 3, 3 });
    const NodeId w1 = b.constant("w1", { 64, 64, 3, 3 });
    const GraphBuilder::Shape s { 1, 64, 56, 56 };
    const NodeId r0 = b.op("nn.relu", { data }, s);
    const NodeId c0 = b.op("nn.conv2d", { r0, w0 }, s);
    const NodeId r1 = b.op("nn.relu", { c0 }, s);
    const NodeId c1 = b.op("nn.conv2d", { r1, w1 }, s);
    const NodeId a = b.op("add", { c1, r0 }, s);
    return b.finish(b.op("nn.relu", { a }, s));
}

/// An inception-style block: stem %0; branches %1 | %2 %3 | %4 (pool) %5; %6 tuple; %7 concat.
inline std::unique_ptr<Graph> inceptionBlock()
{
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 64, 28, 28 });
    const NodeId ws = b.constant("ws", { 64, 64, 3, 3 });
    const NodeId w1 = b.constant("w1", { 32, 64, 1, 1 });
    const NodeId w2a = b.constant("w2a", { 48, 64, 1, 1 });
    const NodeId w2b = b.constant("w2b", { 64, 48, 3, 3 });
    const NodeId w3 = b.constant("w3", { 32, 64, 1, 1 });
    const NodeId stem = b.op("nn.conv2d", { data, ws }, { 1, 64, 28, 28 });
    const NodeId b1 = b.op("nn.conv2d", { stem, w1 }, { 1, 32, 28, 28 });
    const NodeId b2a = b.op("nn.conv2d", { stem, w2a }, { 1, 48, 28, 28 });
    const NodeId b2b = b.op("nn.conv2d", { b2a, w2b }, { 1, 64, 28, 28 });
    const NodeId b3a
        = b.op("nn.max_pool2d", { stem }, { 1, 64, 28, 28 }, ints({ { "pool_size", { 3, 3 } } }));
    const NodeId b3b = b.op("nn.conv2d", { b3a, w3 }, { 1, 32, 28, 28 });
    const NodeId t = b.tuple({ b1, b2b, b3b });
    return b.finish(b.op("concatenate", { t }, { 1, 128, 28, 28 }));
}

/// graph_split's unit-test shape: %0 relu(data) %1 add(%0, c1) %2 relu %3 add(%2, c2)
/// %4 add(%3, %0): the long skip from %0 crosses two cuts.
inline std::unique_ptr<Graph> chainWithSkip()
{
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 16 });
    const NodeId c1 = b.constant("c1", { 1, 16 });
    const NodeId c2 = b.constant("c2", { 1, 16 });
    const NodeId r0 = b.op("nn.relu", { data }, { 1, 16 });
    const NodeId a0 = b.op("add", { r0, c1 }, { 1, 16 });
    const NodeId r1 = b.op("nn.relu", { a0 }, { 1, 16 });
    const NodeId a1 = b.op("add", { r1, c2 }, { 1, 16 });
    return b.finish(b.op("add", { a1, r0 }, { 1, 16 }));
}

/// %0 conv(data) %1 nn.batch_norm (a 3-tuple) %2 = %1.0 %3 relu.
inline std::unique_ptr<Graph> batchNormBlock()
{
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 64, 56, 56 });
    const NodeId w = b.constant("w", { 64, 64, 3, 3 });
    NodeId p[4];
    for (int i = 0; i < 4; ++i)
        p[i] = b.constant("bn" + std::to_string(i), { 64 });
    const NodeId c = b.op("nn.conv2d", { data, w }, { 1, 64, 56, 56 });
    const Type bnType = Type::tuple({ GraphBuilder::tensor({ 1, 64, 56, 56 }),
                                      GraphBuilder::tensor({ 64 }), GraphBuilder::tensor({ 64 }) });
    const NodeId bn = b.opTyped("nn.batch_norm", { c, p[0], p[1], p[2], p[3] }, bnType);
    const NodeId item = b.getItem(bn, 0);
    return b.finish(b.op("nn.relu", { item }, { 1, 64, 56, 56 }));
}

/// A chain data -> %0 relu -> ... -> %(n-1) relu, shape 1x8.
inline std::unique_ptr<Graph> chain(int n)
{
    GraphBuilder b;
    NodeId prev = b.input("data", { 1, 8 });
    for (int i = 0; i < n; ++i)
        prev = b.op("nn.relu", { prev }, { 1, 8 });
    return b.finish(prev);
}

} // namespace cleave::test
