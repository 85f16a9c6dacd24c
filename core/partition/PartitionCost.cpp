// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/PartitionCost.h"

#include "core/analysis/LatencyTable.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/WeightFollowers.h"
#include "core/support/Saturating.h"

#include <unordered_set>

namespace cleave {

std::vector<PartitionCost> partitionCosts(const PartitionPlan &plan, const BoundaryTable &boundary,
                                          const LatencyTable *latency)
{
    std::vector<PartitionCost> costs(plan.partitionCount());
    for (std::size_t i = 0; i < costs.size(); ++i) {
        costs[i].partition = plan.partitions()[i].id;
        if (latency)
            costs[i].latencyUs = 0.0;
    }
    const Graph &g = plan.graph();
    const WeightFollowers &followers = plan.weightFollowers();
    std::unordered_set<std::uint64_t> weightRead; // (partition index, weight input) pairs
    // One node computed by partition index i: its own, or a replica (a weight-only value it
    // computes again: its FLOPs, latency and weights count there too, not its ops or outputs).
    auto add = [&](std::size_t i, NodeId n, bool replica) {
        PartitionCost &pc = costs[i];
        const NodeCost c = nodeCost(g, n);
        if (g.node(n).isOperator() && !replica) {
            ++pc.ops;
            if (!hasStaticShapes(g.node(n)))
                ++pc.opsWithoutShapes;
        }
        pc.flops = satAdd(pc.flops, c.flops);
        pc.paramBytes = satAdd(pc.paramBytes, c.paramBytes);
        if (!replica)
            pc.outputBytes = satAdd(pc.outputBytes, c.outputBytes);
        // A weight passed as a graph input lives in every partition that reads it, once.
        for (const FlowEdge *e : plan.view().inEdges(n)) {
            const NodeId w = e->tensor.node;
            if (!followers.isWeight(w)
                || !weightRead.insert((static_cast<std::uint64_t>(i) << 32) | w.value).second)
                continue;
            const std::int64_t bytes = g.tensorType(e->tensor).byteSize().value_or(0);
            pc.paramBytes = satAdd(pc.paramBytes, bytes);
            pc.weightInputBytes = satAdd(pc.weightInputBytes, bytes);
        }
        if (latency) {
            const std::optional<double> l = latency->latency(g, n);
            *pc.latencyUs += l.value_or(0.0);
            if (!l)
                ++pc.latencyMissing;
        }
    };
    for (NodeId n : plan.view().assignableNodes()) {
        const int i = plan.indexOf(plan.partitionOf(n));
        if (i >= 0)
            add(static_cast<std::size_t>(i), n, false);
    }
    for (std::size_t i = 0; i < costs.size() && i < boundary.interfaces.size(); ++i) {
        for (NodeId r : boundary.interfaces[i].replicas)
            add(i, r, true);
    }
    for (std::size_t i = 0; i < costs.size() && i < boundary.interfaces.size(); ++i) {
        costs[i].boundaryBytesIn = boundary.interfaces[i].bytesIn;
        costs[i].boundaryBytesOut = boundary.interfaces[i].bytesOut;
    }
    return costs;
}

} // namespace cleave
