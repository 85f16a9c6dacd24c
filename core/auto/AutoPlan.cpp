// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/AutoPlan.h"

namespace cleave {

PartitionPlan planFromStages(const std::shared_ptr<const FunctionView> &view,
                             const CostGraph &graph, const std::vector<std::int32_t> &stageOf,
                             std::size_t stages, const std::vector<std::string> &targets,
                             const std::string &prefix)
{
    PartitionPlan plan(view, false);
    std::vector<std::vector<NodeId>> members(stages);
    for (std::size_t u = 0; u < graph.unitCount(); ++u) {
        const std::int32_t s = stageOf[u];
        if (s >= 0 && static_cast<std::size_t>(s) < stages) {
            const auto &nodes = graph.units()[u].nodes;
            members[static_cast<std::size_t>(s)].insert(members[static_cast<std::size_t>(s)].end(),
                                                        nodes.begin(), nodes.end());
        }
    }
    for (std::size_t k = 0; k < stages; ++k) {
        if (members[k].empty())
            continue;
        plan.appendPartition(prefix + std::to_string(k),
                             k < targets.size() && !targets[k].empty() ? targets[k] : "llvm");
        plan.assignToPartition(members[k], plan.partitions().back().id);
    }
    return plan;
}

std::vector<std::int32_t> stagesOfPlan(const PartitionPlan &plan, const CostGraph &graph)
{
    std::vector<std::int32_t> stageOf(graph.unitCount(), -1);
    for (std::size_t u = 0; u < graph.unitCount(); ++u) {
        if (!graph.units()[u].nodes.empty())
            stageOf[u] = plan.indexOf(plan.partitionOf(graph.units()[u].nodes.front()));
    }
    return stageOf;
}

} // namespace cleave
