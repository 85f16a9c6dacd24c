// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/StageSearch.h"

#include "core/analysis/Cost.h"
#include "core/auto/SplitSolvers.h"

#include <algorithm>
#include <limits>

namespace cleave {

namespace {

using autosplit::Metric;
using autosplit::SplitAnswer;
using autosplit::SplitProblem;

constexpr std::int64_t unlimited = std::numeric_limits<std::int64_t>::max();

double objectiveOf(const std::vector<StageCost> &stages, StageObjective objective)
{
    return objective == StageObjective::Throughput ? bottleneckUs(stages) : totalTimeUs(stages);
}

bool fitsMemory(const std::vector<StageCost> &stages, const SplitProblem &p)
{
    for (std::size_t k = 0; k < stages.size(); ++k) {
        if (stages[k].memoryBytes() > p.memoryLimit[p.deviceOf(k)])
            return false;
    }
    return true;
}

std::vector<Baseline> baselines(const CostGraph &g, std::size_t stageCount)
{
    std::vector<double> ops;
    std::vector<double> params;
    std::vector<double> flops;
    for (const CostUnit &u : g.units()) {
        ops.push_back(static_cast<double>(u.ops));
        params.push_back(static_cast<double>(u.paramBytes));
        flops.push_back(static_cast<double>(u.flops));
    }
    std::vector<Baseline> out;
    for (auto &[name, weights] :
         { std::pair<const char *, std::vector<double> *> { "uniform", &ops },
           { "parameters", &params },
           { "flops", &flops } }) {
        Baseline b;
        b.name = name;
        b.stageOf = splitByWeight(*weights, stageCount);
        b.stages = g.evaluate(b.stageOf, stageCount);
        b.bottleneckUs = bottleneckUs(b.stages);
        out.push_back(std::move(b));
    }
    return out;
}

double lowerBound(const CostGraph &g, std::size_t stageCount, StageObjective objective)
{
    double total = 0;
    double heaviest = 0;
    for (std::size_t u = 0; u < g.unitCount(); ++u) {
        double fastest = std::numeric_limits<double>::infinity();
        for (std::size_t d = 0; d < g.deviceCount(); ++d)
            fastest = std::min(fastest, g.timeUs(d, u));
        total += fastest;
        heaviest = std::max(heaviest, fastest);
    }
    if (objective == StageObjective::Latency)
        return total;
    return std::max(total / static_cast<double>(stageCount), heaviest);
}

/// The best answer over the exact solver (when the downsets are few) or the three orders.
std::optional<SplitAnswer> solve(const SplitProblem &p, const StageSearchOptions &options,
                                 StageSearchResult &result, bool &cancelled)
{
    const CostGraph &g = *p.graph;
    bool feasible = false;
    std::size_t ideals = 0;
    if (options.progress && !options.progress(0.05)) {
        cancelled = true;
        return std::nullopt;
    }
    // A first bound from program order makes the exact search prune.
    SplitProblem bounded = p;
    const std::vector<std::int32_t> program = autosplit::programOrder(g);
    std::optional<SplitAnswer> first = autosplit::solveOrder(p, program);
    if (first)
        bounded.upperBound = std::min(p.upperBound, first->value);
    if (auto exact = autosplit::solveIdeals(bounded, options.idealCap, ideals, feasible)) {
        result.mode = SearchMode::Exact;
        result.ideals = ideals;
        result.order.clear();
        if (!feasible)
            return first; // the bound was met exactly by program order
        return exact;
    }
    result.mode = SearchMode::Orders;
    result.ideals = ideals;
    std::optional<SplitAnswer> best = first;
    result.order = "program";
    const std::pair<const char *, std::vector<std::int32_t> (*)(const CostGraph &)> others[]
        = { { "branches", &autosplit::branchOrder },
            { "min-live-bytes", &autosplit::minLiveOrder } };
    double done = 0.4;
    for (const auto &[name, make] : others) {
        if (options.progress && !options.progress(done)) {
            cancelled = true;
            return std::nullopt;
        }
        done += 0.3;
        SplitProblem q = p;
        if (best) {
            q.upperBound = std::min(p.upperBound, best->value);
            q.boundFromOrder = q.upperBound == best->value;
        }
        std::optional<SplitAnswer> a = autosplit::solveOrder(q, make(g));
        if (!a)
            continue;
        // Another order's stages run in program order once exported: keep the candidate only
        // if it still fits the memory limits then.
        if (p.metric == Metric::Time && !fitsMemory(g.evaluate(a->stageOf, p.stages), p))
            continue;
        const bool better = !best || a->value < best->value
            || (a->value == best->value && a->bytes < best->bytes);
        if (better) {
            best = std::move(a);
            result.order = name;
        }
    }
    return best;
}

std::string bytesText(std::int64_t bytes)
{
    return std::to_string(bytes) + " bytes (" + humanBytes(bytes) + ")";
}

} // namespace

const char *searchModeName(SearchMode mode)
{
    return mode == SearchMode::Exact ? "exact" : "orders";
}

std::vector<std::int32_t> splitByWeight(const std::vector<double> &weights, std::size_t stages)
{
    const std::size_t n = weights.size();
    std::vector<std::int32_t> stageOf(n, 0);
    if (stages == 0 || n == 0)
        return stageOf;
    double total = 0;
    for (double w : weights)
        total += w;
    std::size_t stage = 0;
    std::size_t inStage = 0;
    double running = 0;
    for (std::size_t u = 0; u < n; ++u) {
        // Move to the next stage when this one reached its share and has a unit, or when the
        // units left are just enough for the stages left.
        const double share = total * static_cast<double>(stage + 1) / static_cast<double>(stages);
        const bool mustMove = n - u <= stages - stage - 1;
        if (stage + 1 < stages && inStage > 0 && (running >= share || mustMove)) {
            ++stage;
            inStage = 0;
        }
        stageOf[u] = static_cast<std::int32_t>(stage);
        running += weights[u];
        ++inStage;
    }
    return stageOf;
}

StageSearchResult searchStages(const CostGraph &graph, const StageSearchOptions &options,
                               const std::vector<std::optional<std::int64_t>> &memoryLimits)
{
    StageSearchResult result;
    const std::size_t stageCount = options.stages;
    const std::size_t n = graph.unitCount();
    if (stageCount == 0) {
        result.error = "the number of stages must be at least 1";
        result.errorCode = "auto.stage_count";
        return result;
    }
    if (stageCount > n) {
        result.errorCode = "auto.stage_count";
        result.error = "cannot split " + std::to_string(n) + " unit(s) into "
            + std::to_string(stageCount) + " non-empty stages: at most " + std::to_string(n)
            + " stage(s) are possible";
        return result;
    }
    SplitProblem p;
    p.graph = &graph;
    p.stages = stageCount;
    p.objective = options.objective;
    p.memoryLimit.assign(graph.deviceCount(), unlimited);
    for (std::size_t d = 0; d < graph.deviceCount() && d < memoryLimits.size(); ++d) {
        if (memoryLimits[d])
            p.memoryLimit[d] = *memoryLimits[d];
    }
    result.baselines = baselines(graph, stageCount);
    result.lowerBoundUs = lowerBound(graph, stageCount, options.objective);
    if (options.objective == StageObjective::Throughput)
        p.lowerBound = result.lowerBoundUs;
    for (const Baseline &b : result.baselines) {
        if (fitsMemory(b.stages, p))
            p.upperBound = std::min(p.upperBound, objectiveOf(b.stages, options.objective));
    }
    bool cancelled = false;
    std::optional<SplitAnswer> best = solve(p, options, result, cancelled);
    if (cancelled) {
        result.cancelled = true;
        result.error = "cancelled";
        result.errorCode = "auto.cancelled";
        return result;
    }
    if (!best || best->stageOf.empty()) {
        // Only memory can make a split into stageCount <= n stages impossible: find the smallest
        // limit.
        SplitProblem m = p;
        m.metric = Metric::Memory;
        m.memoryLimit.assign(graph.deviceCount(), unlimited);
        m.upperBound = std::numeric_limits<double>::infinity();
        m.lowerBound = 0;
        StageSearchResult scratch;
        bool ignored = false;
        std::optional<SplitAnswer> smallest
            = solve(m, StageSearchOptions { stageCount, options.objective, options.idealCap, {} },
                    scratch, ignored);
        std::int64_t limit = unlimited;
        for (std::int64_t l : p.memoryLimit)
            limit = std::min(limit, l);
        result.errorCode = "auto.memory_limit";
        result.error = "no split into " + std::to_string(stageCount)
            + " stages fits the memory limit of " + bytesText(limit);
        if (smallest && !smallest->stageOf.empty()) {
            std::int64_t worst = 0;
            for (const StageCost &s : graph.evaluate(smallest->stageOf, stageCount))
                worst = std::max(worst, s.memoryBytes());
            result.smallestFeasibleMemory = worst;
            result.error += ": the smallest feasible limit is "
                + bytesText(*result.smallestFeasibleMemory)
                + (scratch.mode == SearchMode::Exact ? "" : " (over the orders searched)");
        }
        return result;
    }
    result.ok = true;
    if (best->fewestStages > 0 && best->fewestStages < stageCount)
        result.usefulStages = best->fewestStages;
    result.stageOf = std::move(best->stageOf);
    result.stages = graph.evaluate(result.stageOf, stageCount);
    result.bottleneckUs = bottleneckUs(result.stages);
    result.totalUs = totalTimeUs(result.stages);
    result.transferBytes = totalTransferBytes(result.stages);
    if (options.progress)
        options.progress(1.0);
    return result;
}

} // namespace cleave
