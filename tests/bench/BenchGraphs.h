// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Generated graphs shared by the benchmarks.
#pragma once

#include "../core/GraphBuilder.h"

#include <memory>
#include <string>

namespace cleave::bench {

/// Residual blocks of conv → batch_norm → .0 → relu → conv → add(skip) → relu until the graph
/// holds about `targetNodes` nodes (constants included). Returns the number of `add` ops.
inline std::unique_ptr<Graph> resnetLike(std::size_t targetNodes, std::size_t &adds)
{
    cleave::test::GraphBuilder b;
    const cleave::test::GraphBuilder::Shape s { 1, 64, 56, 56 };
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    adds = 0;
    const Type bnType = Type::tuple({ cleave::test::GraphBuilder::tensor(s),
                                      cleave::test::GraphBuilder::tensor({ 64 }),
                                      cleave::test::GraphBuilder::tensor({ 64 }) });
    while (nodes + 14 < targetNodes) {
        const NodeId w0 = b.constant("w" + std::to_string(nodes), { 64, 64, 3, 3 });
        const NodeId w1 = b.constant("w" + std::to_string(nodes + 1), { 64, 64, 3, 3 });
        NodeId bn[4];
        for (int i = 0; i < 4; ++i)
            bn[i] = b.constant("bn" + std::to_string(nodes) + "_" + std::to_string(i), { 64 });
        const NodeId c0 = b.op("nn.conv2d", { x, w0 }, s);
        const NodeId n0 = b.opTyped("nn.batch_norm", { c0, bn[0], bn[1], bn[2], bn[3] }, bnType);
        const NodeId g0 = b.getItem(n0, 0);
        const NodeId r0 = b.op("nn.relu", { g0 }, s);
        const NodeId c1 = b.op("nn.conv2d", { r0, w1 }, s);
        const NodeId a = b.op("add", { c1, x }, s);
        x = b.op("nn.relu", { a }, s);
        nodes += 13;
        ++adds;
    }
    return b.finish(x);
}

using Shape = cleave::test::GraphBuilder::Shape;

/// ResNet-shaped: residual blocks of conv, batch_norm, .0, relu, conv, batch_norm, .0, add,
/// relu (every node drawn: no constants), about `target` nodes.
inline std::unique_ptr<Graph> resnetShaped(std::size_t target)
{
    cleave::test::GraphBuilder b;
    const Shape s { 1, 64, 56, 56 };
    const Type bnType = Type::tuple({ cleave::test::GraphBuilder::tensor(s),
                                      cleave::test::GraphBuilder::tensor({ 64 }),
                                      cleave::test::GraphBuilder::tensor({ 64 }) });
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    while (nodes + 9 <= target) {
        NodeId y = x;
        for (int i = 0; i < 2; ++i) {
            y = b.op("nn.conv2d", { y }, s);
            y = b.getItem(b.opTyped("nn.batch_norm", { y }, bnType), 0);
            if (i == 0)
                y = b.op("nn.relu", { y }, s);
        }
        x = b.op("nn.relu", { b.op("add", { y, x }, s) }, s);
        nodes += 9;
    }
    return b.finish(x);
}

/// Transformer layers whose attention mask (one input) feeds every layer.
inline std::unique_ptr<Graph> transformerShaped(std::size_t target)
{
    cleave::test::GraphBuilder b;
    const Shape h { 1, 128, 768 };
    const Shape heads { 12, 128, 64 };
    const Shape scores { 12, 128, 128 };
    NodeId x = b.input("tokens", h);
    const NodeId mask = b.input("attention_mask", { 1, 1, 128 });
    std::size_t nodes = 2;
    while (nodes + 22 <= target) {
        const NodeId ln = b.op("nn.layer_norm", { x }, h);
        NodeId qkv[3];
        for (NodeId &t : qkv)
            t = b.op("transpose",
                     { b.op("reshape", { b.op("nn.dense", { ln }, h) }, { 1, 128, 12, 64 }) },
                     heads);
        NodeId att = b.op("nn.batch_matmul", { qkv[0], qkv[1] }, scores);
        att = b.op("nn.softmax",
                   { b.op("add", { b.op("multiply", { att }, scores), mask }, scores) }, scores);
        NodeId ctx = b.op("nn.batch_matmul", { att, qkv[2] }, heads);
        ctx = b.op("nn.dense",
                   { b.op("reshape", { b.op("transpose", { ctx }, { 1, 128, 12, 64 }) }, h) }, h);
        x = b.op("add", { ctx, x }, h);
        const NodeId ff = b.op(
            "nn.dense",
            { b.op("nn.gelu",
                   { b.op("nn.dense", { b.op("nn.layer_norm", { x }, h) }, { 1, 128, 3072 }) },
                   { 1, 128, 3072 }) },
            h);
        x = b.op("add", { ff, x }, h);
        nodes += 24;
    }
    return b.finish(x);
}

/// Inception modules: four branches from one tensor, concatenated.
inline std::unique_ptr<Graph> inceptionShaped(std::size_t target)
{
    cleave::test::GraphBuilder b;
    const Shape s { 1, 256, 28, 28 };
    const Shape q { 1, 64, 28, 28 };
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    while (nodes + 13 <= target) {
        const NodeId b1 = b.op("nn.relu", { b.op("nn.conv2d", { x }, q) }, q);
        const NodeId b2
            = b.op("nn.relu", { b.op("nn.conv2d", { b.op("nn.conv2d", { x }, q) }, q) }, q);
        const NodeId b3 = b.op(
            "nn.relu",
            { b.op("nn.conv2d", { b.op("nn.conv2d", { b.op("nn.conv2d", { x }, q) }, q) }, q) }, q);
        const NodeId b4
            = b.op("nn.relu", { b.op("nn.conv2d", { b.op("nn.max_pool2d", { x }, s) }, q) }, q);
        x = b.op("concatenate", { b.tuple({ b1, b2, b3, b4 }) }, s);
        nodes += 15;
    }
    return b.finish(x);
}

/// A chain of `target` drawn nodes about two thirds as deep: relu and sigmoid of the running
/// value, multiplied (a gated chain, like an unrolled recurrent model). 100k nodes give about
/// 66k ranks, past Graphviz's 32,767-rank limit.
inline std::unique_ptr<Graph> gatedChain(std::size_t target)
{
    cleave::test::GraphBuilder b;
    const Shape s { 1, 256 };
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    while (nodes + 3 <= target) {
        const NodeId a = b.op("nn.relu", { x }, s);
        const NodeId g = b.op("sigmoid", { x }, s);
        x = b.op("multiply", { a, g }, s);
        nodes += 3;
    }
    return b.finish(x);
}

/// DenseNet-shaped: dense blocks of 12 layers (concatenate of every earlier layer's output,
/// batch_norm, relu, conv, batch_norm, relu, conv) joined by transitions (conv, avg_pool2d).
inline std::unique_ptr<Graph> denseNetShaped(std::size_t target)
{
    cleave::test::GraphBuilder b;
    const Shape s { 1, 32, 28, 28 };
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    while (nodes + 12 * 9 + 2 <= target) {
        std::vector<NodeId> features { x };
        for (int layer = 0; layer < 12; ++layer) {
            NodeId y = b.op("concatenate", { b.tuple(features) }, s);
            for (int i = 0; i < 2; ++i)
                y = b.op(
                    "nn.conv2d",
                    { b.op("nn.relu",
                           { b.getItem(
                               b.opTyped("nn.batch_norm", { y },
                                         Type::tuple({ cleave::test::GraphBuilder::tensor(s) })),
                               0) },
                           s) },
                    s);
            features.push_back(y);
            nodes += 10;
        }
        x = b.op("nn.avg_pool2d",
                 { b.op("nn.conv2d", { b.op("concatenate", { b.tuple(features) }, s) }, s) }, s);
        nodes += 4;
    }
    return b.finish(x);
}

} // namespace cleave::bench
