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
    /// True when upperBound is another order's optimum: an order that does not beat it may be
    /// dropped without its own optimum (solveOrderByBisection checks it in one pass).
    bool boundFromOrder = false;
    /// solveOrder() may hand long orders to solveOrderByBisection() (tests compare the two).
    bool allowBisection = true;

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
    /// The fewest stages that reach `value` (solveOrderByBisection only; 0 when not computed):
    /// fewer than K when more stages cannot lower the bottleneck.
    std::size_t fewestStages = 0;
};

/// The best contiguous split of `order` (a topological order of the units, position → unit):
/// a dynamic program over split points whose stage costs come from incremental sweeps (a
/// stage's cost only grows as it extends, so each sweep stops at the upper bound).
std::optional<SplitAnswer> solveOrder(const SplitProblem &problem,
                                      const std::vector<std::int32_t> &order);

/// The same optimum as solveOrder() for the throughput objective without memory limits, in
/// O((N + E) log(1/eps)) instead of O(N^2 / K): bisection on the bottleneck B, each B checked by
/// reachability over K layers with, per start, the furthest end a stage at most B can reach (a
/// window moving at both ends keeps compute and transfer-in exact). Among the splits at the
/// optimum it takes the one whose cuts carry the fewest live bytes, which approximates
/// solveOrder()'s fewest transfer bytes (a tensor read by several later stages counts per cut it
/// spans rather than per stage). searchStages uses it on orders of more than
/// bisectionThreshold units.
std::optional<SplitAnswer> solveOrderByBisection(const SplitProblem &problem,
                                                 const std::vector<std::int32_t> &order);

/// Orders longer than this are split by solveOrderByBisection() when it applies.
inline constexpr std::size_t bisectionThreshold = 2048;

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
