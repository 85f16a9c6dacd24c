// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/KernelMapping.h"
#include "core/graph/Graph.h"

#include <map>
#include <vector>

namespace cleave {

class PartitionPlan;
struct EdgeRef;

/// A function seen at the level of fused blocks (DESIGN.md §4, the ops ↔ blocks switch): every
/// collapsed block is ONE operator node named by the block (`fused_nn_conv2d_add_nn_relu`,
/// keyed by its root's key), so the graph to lay out and to cut is several times smaller.
/// Expanded blocks, and nodes in no block, stay as they are. `mapping` relates the levels the
/// way a graph.json relates to its Relay source, so PlanConversion carries plans both ways.
struct BlockGraph
{
    Graph graph; ///< The block-level function, as `main` (finalized).
    /// One entry per operator node of `graph`: its node there (`kernel`) and the original nodes
    /// it stands for (`relayNodes`, program order; the last one is the block's root).
    KernelMapping mapping;
    /// Original tensor of each block-level tensor (block outputs map to the block's outputs).
    std::map<TensorRef, TensorRef> originalTensor;
    /// The inverse: the block-level tensor showing each original tensor that leaves its block
    /// (tensors inside a collapsed block have none).
    std::map<TensorRef, TensorRef> shownTensor;
    /// For each original node of the function, the block-level node that shows it.
    std::map<NodeId, NodeId> shownAs;

    /// The original nodes a block-level node stands for (itself for inputs and constants).
    [[nodiscard]] std::vector<NodeId> originalNodes(NodeId blockNode) const;
    /// The original edges behind block-level edges: the producer's original tensor read by
    /// every original node inside the consumer that reads it.
    [[nodiscard]] std::vector<EdgeRef> originalEdges(const Graph &original,
                                                     const std::vector<EdgeRef> &edges) const;
};

/// Collapses the blocks of function `f` of `graph` (as fuseOps() lists them), except those
/// whose index is in `expanded`. Inputs and constants are copied; nested function calls, `if`
/// and `match` nodes outside blocks become operator nodes named after what they call.
BlockGraph collapseBlocks(const Graph &graph, FunctionId f, const std::vector<FusedBlock> &blocks,
                          const std::vector<std::size_t> &expanded = {});

} // namespace cleave
