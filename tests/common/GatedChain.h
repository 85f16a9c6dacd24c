// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// A generated graph the layout and canvas tests share: a gated chain, like an unrolled
// recurrent model.
#pragma once

#include "../core/GraphBuilder.h"

#include <memory>
#include <vector>

namespace cleave::test {

struct GatedChain
{
    std::unique_ptr<Graph> graph;
    NodeId data; ///< The input.
    std::vector<NodeId> relu;
    std::vector<NodeId> sigmoid;
    std::vector<NodeId> multiply;
};

/// `steps` times relu(x) and sigmoid(x), multiplied: 1 + 3 * steps nodes; ranks by hand: data
/// 0, relu_k and sigmoid_k 2k + 1, multiply_k 2k + 2 (1 + 2 * steps ranks).
inline GatedChain gatedChain(std::size_t steps)
{
    GraphBuilder b;
    const GraphBuilder::Shape s { 1, 16 };
    GatedChain c;
    NodeId x = b.input("data", s);
    c.data = x;
    for (std::size_t k = 0; k < steps; ++k) {
        c.relu.push_back(b.op("nn.relu", { x }, s));
        c.sigmoid.push_back(b.op("sigmoid", { x }, s));
        x = b.op("multiply", { c.relu.back(), c.sigmoid.back() }, s);
        c.multiply.push_back(x);
    }
    c.graph = b.finish(x);
    return c;
}

} // namespace cleave::test
