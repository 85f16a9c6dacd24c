// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/validation/CutCost.h"

#include "core/analysis/Cost.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/support/Saturating.h"

#include <algorithm>

namespace cleave {

CutCost cutCost(const PartitionPlan &plan, const BoundaryTable &boundary)
{
    CutCost cost;
    const std::vector<EdgeRef> &crossed = plan.crossedEdges();
    if (crossed.empty())
        return cost;
    for (const BoundaryTensor &b : boundary.tensors) {
        if (!b.producerPartition.isValid())
            continue;
        bool anyCrossed = false;
        bool anyImplied = false;
        for (const BoundaryConsumer &c : b.consumers) {
            for (NodeId n : c.nodes) {
                if (std::binary_search(crossed.begin(), crossed.end(), EdgeRef { b.tensor, n }))
                    anyCrossed = true;
                else
                    anyImplied = true;
            }
        }
        const std::int64_t bytes = b.bytes.value_or(0);
        if (anyCrossed)
            cost.crossedBytes = satAdd(cost.crossedBytes, bytes);
        else if (anyImplied) {
            cost.impliedBytes = satAdd(cost.impliedBytes, bytes);
            ++cost.impliedTensors;
        }
    }
    return cost;
}

std::optional<Diagnostic> impliedEdgeGroup(const std::vector<Diagnostic> &diagnostics,
                                           const CutCost &cost)
{
    std::size_t count = 0;
    std::vector<NodeId> nodes;
    for (const Diagnostic &d : diagnostics) {
        if (d.code != "partition.implied_edge")
            continue;
        ++count;
        nodes.insert(nodes.end(), d.nodes.begin(), d.nodes.end());
    }
    if (count < 2)
        return std::nullopt;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return Diagnostic::make(Severity::Warning, "partition.implied_edges",
                            std::to_string(count)
                                + " edges also cut (implied, not crossed by a "
                                  "cut line): "
                                + std::to_string(cost.impliedTensors) + " tensors, "
                                + humanBytes(cost.impliedBytes),
                            std::move(nodes));
}

} // namespace cleave
