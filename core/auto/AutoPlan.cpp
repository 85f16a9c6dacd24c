// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/AutoPlan.h"

#include <algorithm>

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
    // A projection or tuple nothing reads (batch_norm's unused statistics) costs nothing and
    // goes nowhere: it stays with what it reads, never forming a stage of its own.
    const Graph &g = view->graph();
    const NodeId result = g.function(view->function()).result;
    std::vector<std::int32_t> stageOfNode(g.nodeCount(), -1);
    for (std::size_t k = 0; k < stages; ++k) {
        for (NodeId n : members[k])
            stageOfNode[n.index()] = static_cast<std::int32_t>(k);
    }
    bool moved = false;
    for (NodeId n : view->order()) {
        const NodeKind kind = g.node(n).kind;
        if (stageOfNode[n.index()] < 0 || n == result || !view->outEdges(n).empty()
            || (kind != NodeKind::TupleGetItem && kind != NodeKind::Tuple))
            continue;
        std::int32_t producer = -1;
        for (const FlowEdge *e : view->inEdges(n))
            producer = std::max(producer, stageOfNode[e->tensor.node.index()]);
        if (producer >= 0 && producer != stageOfNode[n.index()]) {
            stageOfNode[n.index()] = producer;
            moved = true;
        }
    }
    if (moved) {
        for (auto &m : members)
            m.clear();
        for (NodeId n : view->order()) {
            if (stageOfNode[n.index()] >= 0)
                members[static_cast<std::size_t>(stageOfNode[n.index()])].push_back(n);
        }
    }
    std::vector<PartitionSpec> specs;
    for (std::size_t k = 0; k < stages; ++k) {
        if (members[k].empty())
            continue;
        PartitionSpec spec;
        spec.name = prefix + std::to_string(specs.size());
        spec.target = k < targets.size() && !targets[k].empty() ? targets[k] : "llvm";
        spec.nodes = std::move(members[k]);
        specs.push_back(std::move(spec));
    }
    plan.appendPartitions(std::move(specs));
    // Stages emptied by weight-only nodes joining their consumers leave no gap in the names.
    for (std::size_t i = 0; i < plan.partitionCount(); ++i) {
        const std::string name = prefix + std::to_string(i);
        if (plan.partitions()[i].name != name)
            plan.renamePartition(plan.partitions()[i].id, name);
    }
    return plan;
}

std::optional<std::string> stageCountProblem(const PartitionPlan &plan, const CostGraph &graph,
                                             std::size_t asked)
{
    const std::size_t made = plan.partitionCount();
    if (made >= asked)
        return std::nullopt;
    std::string why = std::to_string(asked) + " stages were asked but only " + std::to_string(made)
        + " hold operators: ";
    if (graph.unitCount() < asked)
        why += "the function has " + std::to_string(graph.unitCount())
            + " units to place (fewer than the stages); ask for fewer stages or use --level ops";
    else
        why += "the others held only nodes computed from weights and constants, which run with "
               "their consumers; ask for fewer stages";
    return why;
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
