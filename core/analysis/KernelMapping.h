// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cleave {

/// How one graph.json kernel relates to the Relay module it was built from.
struct KernelMatch
{
    NodeId kernel; ///< The kernel's node in the graph.json graph (its index in `nodes`).
    std::string name; ///< The node name (`tvmgen_default_fused_nn_conv2d_add_nn_relu_1`).
    std::string funcName; ///< `attrs.func_name`.
    std::uint32_t firstEntry = 0; ///< `node_row_ptr[nid]`: the entry id of output 0.
    std::uint32_t endEntry = 0; ///< `node_row_ptr[nid + 1]`.
    /// The Relay op names the fused name spells (`nn_conv2d`, `add`, `nn_relu`), in post-order;
    /// empty for a call of an external (BYOC) function, which is matched by its symbol.
    std::vector<std::string> expectedOps;
    std::vector<NodeId> relayNodes; ///< The matched Relay nodes, in post-order.
    bool matched = false;
    bool truncated = false; ///< The name was cut at 80 characters; only a prefix is known.
    std::string problem; ///< Why the kernel is not matched.
};

/// The correlation of a graph.json with its Relay source (docs/DESIGN.md §1.1, problem 3).
struct KernelMapping
{
    std::vector<KernelMatch> kernels; ///< One per `tvm_op` node, in graph.json order.
    /// Operator nodes of Relay's `@main` that no kernel accounts for, in program order.
    std::vector<NodeId> unmatchedRelayNodes;
    /// Relay ops the graph executor drops (`nn.dropout`, `annotation.stop_fusion`): part of
    /// no kernel, and not a mismatch.
    std::vector<NodeId> elidedRelayNodes;

    [[nodiscard]] std::size_t matchedCount() const;
    /// True when every kernel matched and every Relay operator is accounted for.
    [[nodiscard]] bool isComplete() const
    {
        return matchedCount() == kernels.size() && unmatchedRelayNodes.empty();
    }
    /// The kernel that holds a Relay node, or nullptr.
    [[nodiscard]] const KernelMatch *kernelOf(NodeId relayNode) const;
};

/// Splits a fused kernel name into the op names it spells: drops `tvmgen_<module>_`, the
/// `fused_` / `fuse_` prefix and a `_<k>` repeat suffix, then segments the rest into known op
/// names (`.` written as `_`) with the fewest pieces. `vocabulary` holds op names as Relay
/// writes them (`nn.conv2d`); the result uses them as written there. Returns an empty list for
/// a name that is not a fused name (a BYOC symbol); sets `truncated` for a name cut at 80
/// characters (`..._<hash>_`), whose last ops are unknown.
std::vector<std::string> decomposeFusedName(const std::string &funcName,
                                            const std::vector<std::string> &vocabulary,
                                            bool &truncated);

/// Maps every kernel of `kernels` (a graph.json import) onto the operator nodes of `relay`'s
/// main function: graph inputs are paired by name, params (`p<k>`) match constants, and each
/// kernel, taken in graph.json order, claims the unclaimed Relay ops its fused name spells,
/// growing from the Relay values its inputs were mapped to. A BYOC kernel matches the call of
/// the external function with that symbol. O(nodes + edges) apart from name segmentation.
KernelMapping mapKernels(const Graph &kernels, const Graph &relay);

/// `{"kernels": [{"name", "func_name", "node_index", "entries": [first, end), "ops",
/// "relay_nodes", "matched", "problem"?}], "matched", "total", "unmatched_relay_nodes",
/// "elided_relay_nodes", "complete"}`.
nlohmann::json kernelMappingToJson(const Graph &kernels, const Graph &relay,
                                   const KernelMapping &mapping);
/// A readable table: kernel name, node index, node_row_ptr range, Relay node ids.
std::string kernelMappingToText(const Graph &kernels, const Graph &relay,
                                const KernelMapping &mapping);

} // namespace cleave
