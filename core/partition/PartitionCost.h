// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/Cost.h"
#include "core/graph/Ids.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace cleave {

class LatencyTable;
class PartitionPlan;
struct BoundaryTable;

/// The totals of one partition plus the bytes crossing its boundary per inference.
struct PartitionCost
{
    PartitionId partition;
    std::size_t ops = 0; ///< Operator nodes (calls, If, Match), not Tuple / TupleGetItem.
    std::int64_t flops = 0;
    /// Constants its nodes read plus the weights passed as graph inputs it reads (each weight
    /// input once per partition: it is stored where it is used).
    std::int64_t paramBytes = 0;
    std::int64_t weightInputBytes = 0; ///< The weight inputs' share of paramBytes.
    std::int64_t outputBytes = 0;
    std::int64_t boundaryBytesIn = 0;
    std::int64_t boundaryBytesOut = 0;
    /// With a latency table: the partition's latency in microseconds (nodes the table does not
    /// cover count as 0 and are counted in `latencyMissing`).
    std::optional<double> latencyUs;
    std::size_t latencyMissing = 0; ///< Operator nodes without a latency entry.
    /// Operator nodes whose output shape is not static (unknown or with `?` dims): their FLOPs
    /// count as 0, so `flops` is a lower bound when this is not 0.
    std::size_t opsWithoutShapes = 0;
};

/// Per-partition totals in plan order; boundary bytes come from `boundary`, latencies from
/// `latency` when one is given.
std::vector<PartitionCost> partitionCosts(const PartitionPlan &plan, const BoundaryTable &boundary,
                                          const LatencyTable *latency = nullptr);

} // namespace cleave
