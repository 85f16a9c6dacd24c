// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Internal helpers shared by the validation rules.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/partition/PartitionPlan.h"

#include <optional>
#include <string>
#include <vector>

namespace cleave::rules {

inline Diagnostic make(Severity severity, const char *code, std::string message,
                       std::vector<NodeId> nodes = {},
                       std::optional<PartitionId> partition = std::nullopt)
{
    return Diagnostic::make(severity, code, std::move(message), std::move(nodes), partition);
}

/// The partition's name, or `#<id>` for ids the plan does not hold.
inline std::string name(const PartitionPlan &plan, PartitionId id)
{
    const Partition *p = plan.partition(id);
    return p ? p->name : "#" + std::to_string(id.value);
}

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

inline std::string plural(std::size_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace cleave::rules
