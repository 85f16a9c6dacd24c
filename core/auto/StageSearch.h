// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/auto/CostModel.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// What the stage search minimises.
enum class StageObjective : std::uint8_t {
    Throughput, ///< The bottleneck (max stage time); ties: fewer transfer bytes.
    Latency, ///< The sum of stage times; ties: fewer transfer bytes.
};

/// How the optimum was found.
enum class SearchMode : std::uint8_t {
    Exact, ///< Dynamic program over all downsets (ideals): optimal over all convex ordered splits.
    Orders, ///< Exact contiguous splits of several topological orders: the best of those.
};

/// The most downsets the exact mode enumerates before falling back to the orders mode. DNN
/// graphs are narrow (a residual block adds a few dozen downsets), so ResNet-sized functions
/// and every block-level graph of the samples fit; wide or very long functions do not.
inline constexpr std::size_t defaultIdealCap = 2048;

struct StageSearchOptions
{
    std::size_t stages = 2;
    StageObjective objective = StageObjective::Throughput;
    std::size_t idealCap = defaultIdealCap;
    /// Called with the fraction done; returning false cancels the search.
    std::function<bool(double)> progress;
};

/// One contiguous split of program order, as other tools propose it.
struct Baseline
{
    std::string name; ///< `uniform` (op count), `parameters` (bytes), `flops` (greedy).
    std::vector<std::int32_t> stageOf;
    std::vector<StageCost> stages;
    double bottleneckUs = 0;
};

/// The answer of the stage search. On failure `error` says why (and, for memory limits, the
/// smallest limit that a split meets, in `smallestFeasibleMemory`).
struct StageSearchResult
{
    bool ok = false;
    bool cancelled = false;
    std::string error;
    /// The error's code: auto.stage_count (no K non-empty stages exist), auto.memory_limit (no
    /// split fits the memory limits) or auto.cancelled.
    std::string errorCode;
    std::optional<std::int64_t> smallestFeasibleMemory;
    /// Set when fewer stages than asked reach the same bottleneck (more cannot lower it: a
    /// unit, or the transfers into a stage, set it), so some stages hold little: that number.
    /// 0 otherwise, or when not known (graphs small enough for the exact dynamic program).
    std::size_t usefulStages = 0;
    SearchMode mode = SearchMode::Orders;
    std::string order; ///< Orders mode: the order the optimum came from.
    std::size_t ideals = 0; ///< Exact mode: downsets enumerated.
    std::vector<std::int32_t> stageOf; ///< Stage of every unit.
    std::vector<StageCost> stages;
    double bottleneckUs = 0;
    double totalUs = 0;
    std::int64_t transferBytes = 0;
    /// A lower bound of the objective: throughput max(Σ min time / K, heaviest unit), latency
    /// Σ min time (transfers counted as 0).
    double lowerBoundUs = 0;
    std::vector<Baseline> baselines;
};

/// Splits the units of `graph` into K stages (K = options.stages; stage k runs on device
/// min(k, devices - 1)), convex and in topological order, optimal for the objective under the
/// devices' memory limits: over all convex ordered K-partitions when the downsets number at
/// most options.idealCap, otherwise over contiguous splits of three topological orders
/// (program order, a depth-first order keeping branches together, a greedy min-live-bytes
/// order). Baselines are always computed. Memory limits come from `memoryLimits` (per device,
/// index as devices; missing or nullopt: unlimited).
StageSearchResult searchStages(const CostGraph &graph, const StageSearchOptions &options,
                               const std::vector<std::optional<std::int64_t>> &memoryLimits = {});

/// Contiguous split of program order by cumulative weight: stage k starts at the first unit
/// where the running total reaches k/K of the whole (every stage keeps at least one unit).
std::vector<std::int32_t> splitByWeight(const std::vector<double> &weights, std::size_t stages);

/// Name of a mode as the CLI prints it (`exact`, `orders`).
const char *searchModeName(SearchMode mode);

} // namespace cleave
