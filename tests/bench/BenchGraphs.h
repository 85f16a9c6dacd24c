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

} // namespace cleave::bench
