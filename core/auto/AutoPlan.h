// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/auto/CostModel.h"
#include "core/partition/PartitionPlan.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// An ordinary plan from a stage assignment: the stages that hold nodes, in order, become
/// partitions named `<prefix>0`, `<prefix>1`, … (never a gap, never a `_1` suffix), stage k
/// targeting `targets[k]` (llvm when missing). Weight-only nodes follow their consumers, as in
/// every plan; a stage left with nothing is not created (stageCountProblem() says so).
PartitionPlan planFromStages(const std::shared_ptr<const FunctionView> &view,
                             const CostGraph &graph, const std::vector<std::int32_t> &stageOf,
                             std::size_t stages, const std::vector<std::string> &targets = {},
                             const std::string &prefix = "stage");

/// Why `plan` (made by planFromStages) has fewer than the `asked` stages, or nullopt when it has
/// them all: the function has fewer units than stages, or a stage held only weight-only nodes.
std::optional<std::string> stageCountProblem(const PartitionPlan &plan, const CostGraph &graph,
                                             std::size_t asked);

/// The stage of every unit of `graph` in `plan` (the plan index of the partition of the unit's
/// first node; -1 when unassigned), to evaluate a hand-edited plan with the same cost model.
std::vector<std::int32_t> stagesOfPlan(const PartitionPlan &plan, const CostGraph &graph);

} // namespace cleave
