// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Internal to core/auto: the two exact solvers behind searchStages().
#pragma once

#include "core/auto/CostModel.h"
#include "core/auto/StageSearch.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace cleave::autosplit {

/// Which stage quantity a min-max search minimises.
enum class Metric : std::uint8_t { Time, Memory };

/// One search problem: K stages, the objective, per-device memory limits and an upper bound
/// on the objective (pruning only; +inf when unknown).
struct SplitProblem
{
    const CostGraph *graph = nullptr;
    std::size_t stages = 2;
    StageObjective objective = StageObjective::Throughput;
    Metric metric = Metric::Time;
    std::vector<std::int64_t> memoryLimit; ///< Per device; int64 max when unlimited.
    double upperBound = std::numeric_limits<double>::infinity();
    /// A lower bound of the min-max optimum (0 when unknown): the contiguous solver tries
    /// bounds growing geometrically from it, each attempt exact, so tight windows come first.
    double lowerBound = 0;

    [[nodiscard]] std::size_t deviceOf(std::size_t stage) const
    {
        return std::min(stage, graph->deviceCount() - 1);
    }
};

/// An optimal split: the stage of every unit, the objective's value, total transfer bytes.
struct SplitAnswer
{
    std::vector<std::int32_t> stageOf;
    double value = 0;
    std::int64_t bytes = 0;
};

/// The best contiguous split of `order` (a topological order of the units, position → unit):
/// a dynamic program over split points whose stage costs come from incremental sweeps (a
/// stage's cost only grows as it extends, so each sweep stops at the upper bound).
std::optional<SplitAnswer> solveOrder(const SplitProblem &problem,
                                      const std::vector<std::int32_t> &order);

/// The best split over ALL convex ordered K-partitions, by a dynamic program over downsets;
/// nullopt (with `ideals` set past the cap) when the graph has more than `cap` downsets.
std::optional<SplitAnswer> solveIdeals(const SplitProblem &problem, std::size_t cap,
                                       std::size_t &ideals, bool &feasible);

/// Topological orders of the units: program order, depth-first (branches kept together),
/// greedy minimum of live bytes.
std::vector<std::int32_t> programOrder(const CostGraph &graph);
std::vector<std::int32_t> branchOrder(const CostGraph &graph);
std::vector<std::int32_t> minLiveOrder(const CostGraph &graph);

} // namespace cleave::autosplit
