// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The smallest graph the layout tests lay out by hand: x -> relu -> tanh, one node per rank.
#pragma once

#include "../core/GraphBuilder.h"

#include <memory>

namespace cleave::test {

struct ThreeNodeColumn
{
    std::unique_ptr<Graph> graph;
    NodeId x; ///< The input, shape [1, 8].
    NodeId relu; ///< nn.relu(x), [1, 8].
    NodeId tanh; ///< tanh(relu), [1, 8]: the result.
};

/// x -> relu -> tanh: three boxes in a column, two edges.
inline ThreeNodeColumn threeNodeColumn()
{
    GraphBuilder b;
    ThreeNodeColumn c;
    c.x = b.input("x", { 1, 8 });
    c.relu = b.op("nn.relu", { c.x }, { 1, 8 });
    c.tanh = b.op("tanh", { c.relu }, { 1, 8 });
    c.graph = b.finish(c.tanh);
    return c;
}

} // namespace cleave::test
