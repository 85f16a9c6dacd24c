// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/KernelMapping.h"
#include "core/graph/Graph.h"

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace cleave {

class PartitionPlan;
struct EdgeRef;

/// A function seen at the level of fused blocks (docs/DESIGN.md §3.5, the ops ↔ blocks switch):
/// every collapsed block is ONE operator node named by the block (`fused_nn_conv2d_add_nn_relu`,
/// keyed by its root's key), so the graph to lay out and to cut is several times smaller.
/// Expanded blocks, and nodes in no block, stay as they are. The kernels relate the levels the
/// way a graph.json relates to its Relay source, so PlanConversion carries plans both ways.
///
/// The correspondence of nodes and tensors is kept flat (a node index per original node and one
/// sorted table of tensor pairs), not in node-based maps: at 100k nodes the maps took several
/// times the memory of the tables.
struct BlockGraph
{
    Graph graph; ///< The block-level function, as `main` (finalized).
    /// The operator nodes of `graph` (kernels), ascending: one per collapsed block, whose `op`
    /// is the block's name, and one per operator shown as it is.
    std::vector<NodeId> kernels;
    /// The original nodes each kernel stands for, in program order (a block's root last):
    /// those of kernels[k] are kernelMembers[kernelStart[k], kernelStart[k + 1]). Compressed
    /// rows, not a KernelMatch per kernel (168 bytes and a vector each, 11 MB at 100k nodes).
    std::vector<std::uint32_t> kernelStart;
    std::vector<NodeId> kernelMembers;
    /// Per original node (by NodeId::index()): the block-level node that shows it; an invalid id
    /// for nodes of other functions.
    std::vector<NodeId> shownNodes;
    /// Every block-level tensor with the original tensor it shows, sorted by the block-level
    /// tensor: a block's outputs show the block's output tensors, a copied node's outputs its
    /// original's.
    std::vector<std::pair<TensorRef, TensorRef>> tensors;

    [[nodiscard]] std::size_t kernelCount() const { return kernels.size(); }
    /// The original nodes kernel `k` (an index into `kernels`) stands for.
    [[nodiscard]] std::span<const NodeId> kernelNodes(std::size_t k) const
    {
        return { kernelMembers.data() + kernelStart[k], kernelStart[k + 1] - kernelStart[k] };
    }
    /// The levels related the way a graph.json relates to its Relay source: one matched
    /// KernelMatch per kernel, named by its op; for the conversions that take a KernelMapping
    /// (kernelPlanToRelay).
    [[nodiscard]] KernelMapping mapping() const;
    /// The block-level node that shows original node `original`, or an invalid id.
    [[nodiscard]] NodeId shownAs(NodeId original) const;
    /// The block-level tensor showing an original tensor that leaves its block; an invalid
    /// TensorRef for tensors inside a collapsed block and tensors of other functions.
    [[nodiscard]] TensorRef shownTensor(TensorRef original) const;
    /// The original tensor of a block-level tensor (a block's output: the block's output
    /// tensor), or an invalid TensorRef.
    [[nodiscard]] TensorRef originalTensor(TensorRef shown) const;
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
