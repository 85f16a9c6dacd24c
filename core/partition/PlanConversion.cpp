// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/PlanConversion.h"

#include "core/graph/NodeText.h"

#include <algorithm>
#include <string>
#include <utility>

namespace cleave {

namespace {

/// Fills the partition index of every assignable node still at -1 with that of its latest
/// assigned producer (in program order), or 0 when it reads none; returns how many it filled.
std::size_t followProducers(const FunctionView &view, std::vector<int> &partitionOf)
{
    std::size_t filled = 0;
    for (NodeId n : view.order()) {
        if (!view.isAssignable(n) || partitionOf[n.index()] >= 0)
            continue;
        int best = -1;
        for (const FlowEdge *e : view.inEdges(n)) {
            const int p = partitionOf[e->tensor.node.index()];
            best = std::max(best, p);
        }
        partitionOf[n.index()] = std::max(best, 0);
        ++filled;
    }
    return filled;
}

/// Builds a plan over `view` from a partition index per node, creating only the partitions
/// that receive nodes, in the order of `partitions`.
PartitionPlan buildPlan(const std::shared_ptr<const FunctionView> &view,
                        const std::vector<Partition> &partitions,
                        const std::vector<int> &partitionOf)
{
    PartitionPlan plan(view, false);
    std::vector<std::vector<NodeId>> members(partitions.size());
    for (NodeId n : view->order()) {
        const int p = partitionOf[n.index()];
        if (view->isAssignable(n) && p >= 0 && static_cast<std::size_t>(p) < members.size())
            members[static_cast<std::size_t>(p)].push_back(n);
    }
    for (std::size_t p = 0; p < partitions.size(); ++p) {
        if (members[p].empty())
            continue;
        plan.appendPartition(partitions[p].name, partitions[p].target, partitions[p].colour);
        plan.assignToPartition(members[p], plan.partitions().back().id);
    }
    return plan;
}

} // namespace

PlanConversion kernelPlanToRelay(const PartitionPlan &kernelPlan, const KernelMapping &mapping,
                                 const Graph &relay)
{
    PlanConversion out;
    auto view = std::make_shared<const FunctionView>(relay, relay.mainFunction());
    std::vector<int> partitionOf(relay.nodeCount(), -1);
    for (const KernelMatch &k : mapping.kernels) {
        const int p = kernelPlan.indexOf(kernelPlan.partitionOf(k.kernel));
        if (!k.matched) {
            out.diagnostics.push_back(
                Diagnostic::make(Severity::Warning, "convert.unmatched",
                                 "kernel " + k.name + " matches no Relay ops (" + k.problem
                                     + "); its partition cannot be carried over"));
            continue;
        }
        for (NodeId n : k.relayNodes)
            partitionOf[n.index()] = p;
    }
    std::vector<NodeId> loose;
    for (NodeId n : mapping.unmatchedRelayNodes)
        loose.push_back(n);
    followProducers(*view, partitionOf);
    if (!loose.empty()) {
        out.diagnostics.push_back(Diagnostic::make(
            Severity::Warning, "convert.unmatched",
            std::to_string(loose.size()) + " Relay op(s) in no kernel follow their producers: "
                + text::keyList(relay, loose),
            loose));
    }
    out.plan.emplace(buildPlan(view, kernelPlan.partitions(), partitionOf));
    return out;
}

PlanConversion relayPlanToKernels(const PartitionPlan &relayPlan, const KernelMapping &mapping,
                                  const Graph &kernels)
{
    return relayPlanToKernels(
        relayPlan, mapping, std::make_shared<const FunctionView>(kernels, kernels.mainFunction()));
}

PlanConversion relayPlanToKernels(const PartitionPlan &relayPlan, const KernelMapping &mapping,
                                  std::shared_ptr<const FunctionView> kernels)
{
    PlanConversion out;
    const std::shared_ptr<const FunctionView> view = std::move(kernels);
    std::vector<int> partitionOf(view->graph().nodeCount(), -1);
    const Graph &relay = relayPlan.graph();
    for (const KernelMatch &k : mapping.kernels) {
        if (!k.matched) {
            out.diagnostics.push_back(Diagnostic::make(Severity::Warning, "convert.unmatched",
                                                       "kernel " + k.name
                                                           + " matches no Relay ops (" + k.problem
                                                           + "); it follows its producers",
                                                       { k.kernel }));
            continue;
        }
        std::vector<int> used;
        for (NodeId n : k.relayNodes) {
            const int p = relayPlan.indexOf(relayPlan.partitionOf(n));
            if (p >= 0 && std::find(used.begin(), used.end(), p) == used.end())
                used.push_back(p);
        }
        // The kernel goes with its output op, the last of its nodes in program order.
        partitionOf[k.kernel.index()]
            = relayPlan.indexOf(relayPlan.partitionOf(k.relayNodes.back()));
        if (used.size() > 1) {
            std::string names;
            for (int p : used)
                names += (names.empty() ? "" : ", ")
                    + relayPlan.partitions()[static_cast<std::size_t>(p)].name;
            out.diagnostics.push_back(Diagnostic::make(
                Severity::Error, "convert.split_kernel",
                "kernel " + k.name + " runs ops of " + std::to_string(used.size()) + " partitions ("
                    + names + ": " + text::keyList(relay, k.relayNodes)
                    + "); a kernel cannot be split, so it goes with its output op",
                { k.kernel }));
        }
    }
    followProducers(*view, partitionOf);
    out.plan.emplace(buildPlan(view, relayPlan.partitions(), partitionOf));
    return out;
}

} // namespace cleave
