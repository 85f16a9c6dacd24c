// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/support/NodeGraphIndex.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cleave {

/// How a walk of TVM's JSON node graph treats what it cannot follow: a reference past the last
/// node, a constant whose tensor payload index is not in `b64ndarrays`.
enum class DanglingRef : std::uint8_t {
    Fail, ///< The graph cannot be pruned safely: the walk gives up (nullopt).
    Keep, ///< The reference is left as it is.
};

/// The nodes of TVM's JSON node graph (`nodes`, as `tvm.ir.save_json` writes them) that `root`
/// reaches: node 0 (the null node) first, then `root`, then in the order a depth-first walk first
/// reaches them. `forEachRef(node, visit)` calls `visit(ref)` on every node reference `node`
/// holds and returns false when the node has fields it cannot tell references from values in.
/// nullopt when it does, or when a reference points past the nodes and `dangling` is Fail.
/// Shared by the metadata subsets of Relay (`#[metadata]`) and Relax (the metadata header).
template <class Json, class ForEachRef>
std::optional<std::vector<std::size_t>>
reachableNodes(Json &nodes, std::size_t root, const ForEachRef &forEachRef, DanglingRef dangling)
{
    std::vector<bool> reached(nodes.size(), false);
    std::vector<std::size_t> order { 0 };
    reached[0] = true;
    if (!reached[root]) {
        reached[root] = true;
        order.push_back(root);
    }
    std::vector<std::size_t> stack { root };
    bool bad = false;
    while (!stack.empty() && !bad) {
        const std::size_t n = stack.back();
        stack.pop_back();
        const bool known = forEachRef(nodes[n], [&](Json &ref) {
            const auto idx = nodeGraphIndex(ref);
            if (!idx || *idx >= nodes.size()) {
                bad = bad || dangling == DanglingRef::Fail;
                return;
            }
            if (!reached[*idx]) {
                reached[*idx] = true;
                order.push_back(*idx);
                stack.push_back(*idx);
            }
        });
        bad = bad || !known;
    }
    if (bad)
        return std::nullopt;
    return order;
}

/// A node graph cut down to some of its nodes: the nodes and the tensor payloads they keep.
template <class Json>
struct PrunedNodeGraph
{
    Json nodes; ///< The kept nodes, references renumbered.
    Json payloads; ///< `b64ndarrays`: the kept constants' payloads, in the order of their nodes.
};

/// The nodes `order` lists (a walk's result, see reachableNodes), in that order, each reference
/// renumbered to its node's place in `order` (one past the nodes left as it is). The tensor
/// payload of each node of type `constantType` (`attrs.data`, an index into `payloads`) moves to
/// the returned payloads and the index is renumbered likewise. nullopt when such an index is not
/// in `payloads` and `dangling` is Fail (Keep leaves it as it is).
template <class Json, class ForEachRef>
std::optional<PrunedNodeGraph<Json>>
prunedNodeGraph(const Json &nodes, const std::vector<std::size_t> &order, const Json &payloads,
                const std::string &constantType, const ForEachRef &forEachRef, DanglingRef dangling)
{
    std::vector<std::size_t> remap(nodes.size(), 0);
    for (std::size_t i = 0; i < order.size(); ++i)
        remap[order[i]] = i;
    PrunedNodeGraph<Json> out { Json::array(), Json::array() };
    for (const std::size_t n : order) {
        Json node = nodes[n];
        forEachRef(node, [&](Json &ref) {
            const auto idx = nodeGraphIndex(ref);
            if (!idx || *idx >= nodes.size())
                return;
            const std::size_t to = remap[*idx];
            ref = ref.is_string() ? Json(std::to_string(to)) : Json(to);
        });
        if (node.value("type_key", "") == constantType && node.contains("attrs")
            && node["attrs"].contains("data")) {
            const auto payload = nodeGraphIndex(node["attrs"]["data"]);
            if (payload && *payload < payloads.size()) {
                node["attrs"]["data"] = std::to_string(out.payloads.size());
                out.payloads.push_back(payloads[*payload]);
            } else if (dangling == DanglingRef::Fail) {
                return std::nullopt;
            }
        }
        out.nodes.push_back(std::move(node));
    }
    return out;
}

} // namespace cleave
