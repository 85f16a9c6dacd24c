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
