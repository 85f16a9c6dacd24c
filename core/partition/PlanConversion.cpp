// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/PlanConversion.h"

#include "core/graph/NodeText.h"
#include "core/partition/BlockGraph.h"

#include <algorithm>
#include <span>
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

/// Puts `kernel` in the partition of the last of `relayNodes` (its output op) and reports a
/// kernel whose ops lie in several partitions (`convert.split_kernel`).
void assignKernel(PlanConversion &out, std::vector<int> &partitionOf,
                  const PartitionPlan &relayPlan, NodeId kernel, std::span<const NodeId> relayNodes,
                  const std::string &name)
{
    std::vector<int> used;
    for (NodeId n : relayNodes) {
        const int p = relayPlan.indexOf(relayPlan.partitionOf(n));
        if (p >= 0 && std::find(used.begin(), used.end(), p) == used.end())
            used.push_back(p);
    }
    // The kernel goes with its output op, the last of its nodes in program order.
    partitionOf[kernel.index()] = relayPlan.indexOf(relayPlan.partitionOf(relayNodes.back()));
    if (used.size() > 1) {
        std::string names;
        for (int p : used)
            names += (names.empty() ? "" : ", ")
                + relayPlan.partitions()[static_cast<std::size_t>(p)].name;
        const std::vector<NodeId> nodes(relayNodes.begin(), relayNodes.end());
        out.diagnostics.push_back(Diagnostic::make(
            Severity::Error, "convert.split_kernel",
            "kernel " + name + " runs ops of " + std::to_string(used.size()) + " partitions ("
                + names + ": " + text::keyList(relayPlan.graph(), nodes)
                + "); a kernel cannot be split, so it goes with its output op",
            { kernel }));
    }
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
    for (const KernelMatch &k : mapping.kernels) {
        if (!k.matched) {
            out.diagnostics.push_back(Diagnostic::make(Severity::Warning, "convert.unmatched",
                                                       "kernel " + k.name
                                                           + " matches no Relay ops (" + k.problem
                                                           + "); it follows its producers",
                                                       { k.kernel }));
            continue;
        }
        assignKernel(out, partitionOf, relayPlan, k.kernel, k.relayNodes, k.name);
    }
    followProducers(*view, partitionOf);
    out.plan.emplace(buildPlan(view, relayPlan.partitions(), partitionOf));
    return out;
}

PlanConversion relayPlanToBlocks(const PartitionPlan &relayPlan, const BlockGraph &blocks,
                                 std::shared_ptr<const FunctionView> view)
{
    PlanConversion out;
    const std::shared_ptr<const FunctionView> kernels = std::move(view);
    std::vector<int> partitionOf(kernels->graph().nodeCount(), -1);
    for (std::size_t k = 0; k < blocks.kernelCount(); ++k) {
        const NodeId kernel = blocks.kernels[k];
        assignKernel(out, partitionOf, relayPlan, kernel, blocks.kernelNodes(k),
                     blocks.graph.node(kernel).op);
    }
    followProducers(*kernels, partitionOf);
    out.plan.emplace(buildPlan(kernels, relayPlan.partitions(), partitionOf));
    return out;
}

} // namespace cleave
