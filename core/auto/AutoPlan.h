// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/auto/CostModel.h"
#include "core/partition/PartitionPlan.h"

#include <memory>
#include <string>
#include <vector>

namespace cleave {

/// An ordinary plan from a stage assignment: partition k is named `<prefix><k>` and targets
/// `targets[k]` (llvm when missing), and holds the nodes of the units of stage k.
PartitionPlan planFromStages(const std::shared_ptr<const FunctionView> &view,
                             const CostGraph &graph, const std::vector<std::int32_t> &stageOf,
                             std::size_t stages, const std::vector<std::string> &targets = {},
                             const std::string &prefix = "stage");

/// The stage of every unit of `graph` in `plan` (the plan index of the partition of the unit's
/// first node; -1 when unassigned), to evaluate a hand-edited plan with the same cost model.
std::vector<std::int32_t> stagesOfPlan(const PartitionPlan &plan, const CostGraph &graph);

} // namespace cleave
