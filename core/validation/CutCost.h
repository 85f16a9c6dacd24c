// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace cleave {

class PartitionPlan;
struct BoundaryTable;

/// What the cut lines of a plan move: the boundary tensors they crossed on purpose, and those
/// they severed without crossing them (the implied edges' tensors, each counted once).
struct CutCost
{
    std::int64_t crossedBytes = 0;
    std::int64_t impliedBytes = 0;
    std::size_t impliedTensors = 0;

    /// True when the plan was drawn (it has crossed edges) and what it severs by implication
    /// costs more than ten times what the user cut: the plan is not one to call valid.
    [[nodiscard]] bool impliedDominates() const
    {
        return crossedBytes > 0 && impliedBytes > 10 * crossedBytes;
    }
};

/// The cost of the plan's cut lines (PartitionPlan::crossedEdges) over its boundary.
CutCost cutCost(const PartitionPlan &plan, const BoundaryTable &boundary);

/// One row standing for all the `partition.implied_edge` findings of `diagnostics` ("150 edges
/// also cut (implied), 2.3 MiB"), with every node they name; nullopt for fewer than two.
std::optional<Diagnostic> impliedEdgeGroup(const std::vector<Diagnostic> &diagnostics,
                                           const CutCost &cost);

} // namespace cleave
