// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Values computed from weights only that still cross a boundary.
#include "core/analysis/Cost.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/WeightFollowers.h"
#include "core/validation/RuleSupport.h"
#include "core/validation/Validation.h"

namespace cleave {

std::vector<Diagnostic> checkWeightCrossings(const PartitionPlan &plan,
                                             const BoundaryTable &boundary)
{
    std::vector<Diagnostic> out;
    const WeightFollowers &followers = plan.weightFollowers();
    const Graph &g = plan.graph();
    for (const BoundaryTensor &b : boundary.tensors) {
        if (!followers.contains(b.tensor.node) || b.consumers.empty())
            continue;
        std::string to;
        std::vector<NodeId> nodes { b.tensor.node };
        for (const BoundaryConsumer &c : b.consumers) {
            to += (to.empty() ? "" : ", ") + rules::name(plan, c.partition);
            nodes.insert(nodes.end(), c.nodes.begin(), c.nodes.end());
        }
        const std::string bytes = b.bytes ? humanBytes(*b.bytes) : "unknown size";
        std::string message = g.key(b.tensor.node);
        message += " is computed from weights only (";
        message += bytes;
        message += ") in ";
        message += rules::name(plan, b.producerPartition);
        message += ", its first consumer's stage, and sent to ";
        message += to;
        message += ", which read it too: it is sent and counted (computing it again there "
                   "would cost more than the transfer, its reader runs on another target, or it "
                   "is a tuple, a random value or a branch)";
        out.push_back(rules::make(Severity::Warning, "partition.weight_crossing",
                                  std::move(message), std::move(nodes), b.producerPartition));
    }
    for (const ReplicatedValue &r : boundary.replicated) {
        std::string readers;
        for (PartitionId p : r.readers)
            readers += (readers.empty() ? "" : ", ") + rules::name(plan, p);
        std::string message = g.key(r.tensor.node);
        message += " is computed from weights only in ";
        message += rules::name(plan, r.producerPartition);
        message += "; ";
        message += readers;
        message
            += r.readers.size() == 1 ? " reads it too and computes" : " read it too and compute";
        message += " it again from the weights (" + std::to_string(r.nodes.size()) + " node";
        message += r.nodes.size() == 1 ? ", " : "s, ";
        message += humanFlops(r.flops) + ") instead of receiving ";
        message += r.bytes ? humanBytes(*r.bytes) : "it";
        message += ": recomputing is cheaper than the transfer";
        out.push_back(rules::make(Severity::Info, "partition.weight_duplicated", std::move(message),
                                  r.nodes, r.producerPartition));
    }
    return out;
}

} // namespace cleave
