// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Ids.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// The static cost of one node: floating-point operations (multiply and add counted as two),
/// bytes of the constants it consumes (parameters), and bytes of its outputs. Unknown shapes
/// count as zero.
struct NodeCost
{
    std::int64_t flops = 0;
    std::int64_t paramBytes = 0;
    std::int64_t outputBytes = 0;
};

/// True when every tensor a node outputs has a static shape (tuple fields included); false for
/// Unknown types and `?` / symbolic dims. Function-, ADT- and reference-typed outputs count as
/// known (they carry no FLOPs).
bool hasStaticShapes(const Node &node);

/// `4.80 KFLOP`, or `≥ 4.80 KFLOP` when `opsWithoutShapes` operators have no static shape.
std::string flopsText(std::int64_t flops, std::size_t opsWithoutShapes);

/// FLOPs of one node: conv (2·N·OC·OH·OW·IC/groups·KH·KW), dense / matmul / batch_matmul
/// (2·outputs·K), pooling (outputs·window, global pooling: inputs), elementwise ops (outputs);
/// a call of a fused or composite function sums its body. Other ops (layout, reshape) are 0.
std::int64_t nodeFlops(const Graph &graph, NodeId node);

/// FLOPs, parameter bytes (constant inputs, plus constants bound inside a called function)
/// and output bytes of one node.
NodeCost nodeCost(const Graph &graph, NodeId node);

/// `802816` → `784.0 KiB` (binary units, one decimal), as the other reports print sizes.
std::string humanBytes(std::int64_t bytes);

/// `3670016000` → `3.67 GFLOP` (decimal units).
std::string humanFlops(std::int64_t flops);

} // namespace cleave
