// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Rules on the assignment itself: unassigned nodes, empty partitions, target support.
#include "core/validation/RuleSupport.h"
#include "core/validation/Validation.h"

#include <map>

namespace cleave {

using namespace rules;

std::vector<Diagnostic> checkAssignment(const PartitionPlan &plan)
{
    const Graph &g = plan.graph();
    std::vector<NodeId> unassigned;
    std::map<std::uint32_t, std::vector<NodeId>> dangling; // missing partition id -> nodes
    for (NodeId n : plan.view().assignableNodes()) {
        const PartitionId p = plan.partitionOf(n);
        if (!p.isValid())
            unassigned.push_back(n);
        else if (plan.indexOf(p) < 0)
            dangling[p.value].push_back(n);
    }
    std::vector<Diagnostic> out;
    if (!unassigned.empty()) {
        out.push_back(make(Severity::Error, "partition.unassigned",
                           plural(unassigned.size(), "operator node is", "operator nodes are")
                               + " not assigned to any partition: " + keyList(g, unassigned),
                           unassigned));
    }
    for (auto &[id, nodes] : dangling) {
        out.push_back(make(Severity::Error, "partition.unassigned",
                           plural(nodes.size(), "node is", "nodes are") + " assigned to partition #"
                               + std::to_string(id)
                               + ", which does not exist: " + keyList(g, nodes),
                           nodes, PartitionId(id)));
    }
    return out;
}

std::vector<Diagnostic> checkEmptyPartitions(const PartitionPlan &plan)
{
    std::vector<Diagnostic> out;
    for (std::size_t i = 0; i < plan.partitionCount(); ++i) {
        const Partition &p = plan.partitions()[i];
        if (plan.nodeCount(p.id) == 0)
            out.push_back(make(Severity::Error, "partition.empty",
                               "partition " + p.name + " (position " + std::to_string(i)
                                   + ") holds no operator node",
                               {}, p.id));
    }
    return out;
}

std::vector<Diagnostic> checkTargetSupport(const PartitionPlan &plan,
                                           const std::vector<OpSupportList> &opSupport)
{
    std::vector<Diagnostic> out;
    if (opSupport.empty())
        return out;
    const Graph &g = plan.graph();
    // Per partition (plan order), per unsupported op (sorted): the nodes.
    std::vector<std::map<std::string, std::vector<NodeId>>> found(plan.partitionCount());
    std::vector<const OpSupportList *> listOf(plan.partitionCount(), nullptr);
    for (std::size_t i = 0; i < plan.partitionCount(); ++i) {
        for (const OpSupportList &l : opSupport) {
            if (l.target == plan.partitions()[i].target)
                listOf[i] = &l;
        }
    }
    for (NodeId n : plan.view().assignableNodes()) {
        const int i = plan.indexOf(plan.partitionOf(n));
        if (i < 0 || !listOf[static_cast<std::size_t>(i)])
            continue;
        const Node &node = g.node(n);
        std::string op;
        if (node.kind == NodeKind::OpCall)
            op = node.op;
        else if (node.kind == NodeKind::FunctionCall && node.callee.isValid())
            op = g.function(node.callee).composite();
        if (op.empty() || listOf[static_cast<std::size_t>(i)]->ops.contains(op))
            continue;
        found[static_cast<std::size_t>(i)][op].push_back(n);
    }
    for (std::size_t i = 0; i < found.size(); ++i) {
        const Partition &p = plan.partitions()[i];
        for (const auto &[op, nodes] : found[i]) {
            out.push_back(make(
                Severity::Error, "target.unsupported_op",
                "target " + p.target + " of partition " + p.name + " does not support " + op + " ("
                    + plural(nodes.size(), "node", "nodes") + ": " + keyList(g, nodes) + ")",
                nodes, p.id));
        }
    }
    return out;
}

} // namespace cleave
