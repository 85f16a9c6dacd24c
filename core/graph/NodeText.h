// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Short texts about nodes for diagnostics and reports (validation rules, plan conversion).
#pragma once

#include "core/graph/Graph.h"

#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

namespace cleave::text {

/// Up to `limit` node keys, comma separated, with "and N more" when cut short.
inline std::string keyList(const Graph &graph, const std::vector<NodeId> &nodes,
                           std::size_t limit = 5)
{
    std::string text;
    for (std::size_t i = 0; i < nodes.size() && i < limit; ++i) {
        if (i)
            text += ", ";
        text += graph.key(nodes[i]);
    }
    if (nodes.size() > limit)
        text += " and " + std::to_string(nodes.size() - limit) + " more";
    return text;
}

/// `a -> b -> c` with node keys.
inline std::string pathText(const Graph &graph, const std::vector<NodeId> &path)
{
    std::string text;
    for (NodeId n : path) {
        if (!text.empty())
            text += " -> ";
        text += graph.key(n);
    }
    return text;
}

/// `key`, or else the first of `key#2`, `key#3`, … not in `taken`; the result is added to
/// `taken`. How Graph keys and the ONNX reader's node keys tell apart nodes that share a name.
inline std::string uniqueKey(std::string key, std::unordered_set<std::string> &taken)
{
    if (taken.contains(key)) {
        int k = 2;
        while (taken.contains(key + "#" + std::to_string(k)))
            ++k;
        key += "#" + std::to_string(k);
    }
    taken.insert(key);
    return key;
}

/// `1 edge`, `3 edges`.
inline std::string plural(std::size_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace cleave::text
