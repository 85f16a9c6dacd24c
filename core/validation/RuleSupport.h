// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Internal helpers shared by the validation rules.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/NodeText.h"
#include "core/partition/PartitionPlan.h"

#include <optional>
#include <string>
#include <vector>

namespace cleave::rules {

using text::keyList;
using text::pathText;
using text::plural;

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

} // namespace cleave::rules
