// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Rules about the cost of a plan: pipeline balance under a measured latency table.
#include "core/analysis/LatencyTable.h"
#include "core/partition/PartitionCost.h"
#include "core/validation/RuleSupport.h"
#include "core/validation/Validation.h"

#include <cstdio>
#include <map>

namespace cleave {

namespace {

std::string microseconds(double us)
{
    char buffer[48];
    if (us >= 1000.0)
        std::snprintf(buffer, sizeof buffer, "%.2f ms", us / 1000.0);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f us", us);
    return buffer;
}

} // namespace

std::vector<Diagnostic> checkBalance(const PartitionPlan &plan, const BoundaryTable &boundary,
                                     const LatencyTable &latency)
{
    std::vector<Diagnostic> out;
    const Graph &g = plan.graph();
    std::map<std::string, std::size_t> missing;
    std::vector<NodeId> missingNodes;
    for (NodeId n : plan.view().assignableNodes()) {
        if (g.node(n).isOperator() && !latency.latency(g, n)) {
            const Node &node = g.node(n);
            ++missing[node.kind == NodeKind::OpCall ? node.op : g.key(n)];
            missingNodes.push_back(n);
        }
    }
    if (!missing.empty()) {
        std::string list;
        for (const auto &[op, count] : missing)
            list += (list.empty() ? "" : ", ") + op + " (" + std::to_string(count) + ")";
        out.push_back(rules::make(Severity::Warning, "cost.latency_missing",
                                  std::to_string(missingNodes.size())
                                      + " op(s) have no latency entry and count as 0: " + list,
                                  missingNodes));
    }
    if (plan.partitionCount() == 0)
        return out;
    const std::vector<PartitionCost> costs = partitionCosts(plan, boundary, &latency);
    double total = 0;
    std::size_t worst = 0;
    for (std::size_t i = 0; i < costs.size(); ++i) {
        total += costs[i].latencyUs.value_or(0.0);
        if (costs[i].latencyUs.value_or(0.0) > costs[worst].latencyUs.value_or(0.0))
            worst = i;
    }
    const double bottleneck = costs[worst].latencyUs.value_or(0.0);
    std::string shares;
    for (std::size_t i = 0; i < costs.size(); ++i) {
        const double l = costs[i].latencyUs.value_or(0.0);
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", total > 0 ? 100.0 * l / total : 0.0);
        shares += (shares.empty() ? "" : ", ") + plan.partitions()[i].name + " " + microseconds(l)
            + " (" + pct + ")";
    }
    std::string message = "latency " + microseconds(total) + " in all: " + shares;
    if (plan.partitionCount() > 1 && bottleneck > 0) {
        char rate[48];
        std::snprintf(rate, sizeof rate, "%.1f", 1e6 / bottleneck);
        message += "; the bottleneck " + plan.partitions()[worst].name + " bounds the pipeline at "
            + rate + " inferences/s";
    }
    out.push_back(rules::make(Severity::Info, "cost.balance", std::move(message), {},
                              plan.partitions()[worst].id));
    return out;
}

} // namespace cleave
