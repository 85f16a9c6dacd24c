// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// bench_auto: time of the stage search (`auto --stages 4` and `--stages 8`, import excluded)
// on generated ResNet-like graphs of 10k and 100k nodes, with the cost graph's build (view+cost)
// and one evaluation of a plan over it (what the Balance dock redoes per plan edit), and the
// bottleneck of the optimum against each baseline on every sample and corpus Relay model, printed
// as ratios.
#include "BenchGraphs.h"
#include "core/auto/CostModel.h"
#include "core/auto/StageSearch.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace cleave;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The search on `graph` for K = 2, 4, 8 and 16: time, bottleneck against the lower bound, the
/// lightest stage (a near-empty stage shows as a tiny share of the bottleneck), and the time of
/// one evaluation of the plan (what the Balance dock redoes per edit, its cost graph kept).
void timeSearch(const std::string &name, const Graph &graph)
{
    const auto start = std::chrono::steady_clock::now();
    const FunctionView view(graph, graph.mainFunction());
    const CostGraph cost = CostGraph::build(view, { DeviceSpec {} }, LinkSpec {});
    const double build = secondsSince(start);
    for (std::size_t k : { 2U, 4U, 8U, 16U }) {
        StageSearchOptions options;
        options.stages = k;
        const auto t0 = std::chrono::steady_clock::now();
        const StageSearchResult r = searchStages(cost, options);
        const double search = secondsSince(t0);
        if (!r.ok) {
            std::printf("%-16s K=%zu  search failed: %s\n", name.c_str(), k, r.error.c_str());
            continue;
        }
        const auto t1 = std::chrono::steady_clock::now();
        const std::vector<StageCost> stages = cost.evaluate(r.stageOf, k);
        const double evaluate = secondsSince(t1);
        double lightest = r.bottleneckUs;
        for (const StageCost &s : stages)
            lightest = std::min(lightest, s.timeUs());
        std::printf("%-16s %7zu nodes %7zu units  K=%-2zu  cost graph %.3f s  search %.3f s  "
                    "evaluate %.4f s  mode %-6s  bottleneck %.1f us  lower bound %.1f us (gap "
                    "%.2f%%)  lightest stage %.1f%% of it\n",
                    name.c_str(), graph.nodeCount(), cost.unitCount(), k, build, search, evaluate,
                    searchModeName(r.mode), r.bottleneckUs, r.lowerBoundUs,
                    r.lowerBoundUs > 0 ? 100.0 * (r.bottleneckUs / r.lowerBoundUs - 1) : 0.0,
                    r.bottleneckUs > 0 ? 100.0 * lightest / r.bottleneckUs : 0.0);
    }
}

void timeGenerated(std::size_t nodes)
{
    std::size_t adds = 0;
    const auto graph = bench::resnetLike(nodes, adds);
    timeSearch("generated " + std::to_string(nodes / 1000) + "k", *graph);
}

std::vector<std::string> models()
{
    std::vector<std::string> out;
    for (const char *dir : { CLEAVE_SAMPLES_DIR, CLEAVE_CORPUS_DIR "/relay" }) {
        if (!std::filesystem::is_directory(dir))
            continue;
        for (const auto &e : std::filesystem::directory_iterator(dir)) {
            const std::string p = e.path().string();
            if (p.ends_with(".relay") || p.ends_with(".relay.txt") || p.ends_with(".onnx"))
                out.push_back(p);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

void compareBaselines(const std::string &path)
{
    ImportResult imported = importFile(path);
    if (!imported.ok()) {
        std::printf("%-60s  import failed\n", std::filesystem::path(path).filename().c_str());
        return;
    }
    const Graph &g = *imported.graph;
    const FunctionView view(g, g.mainFunction());
    const CostGraph cost = CostGraph::build(view, { DeviceSpec {} }, LinkSpec {});
    for (std::size_t k : { 4U }) {
        if (cost.unitCount() < k)
            continue;
        StageSearchOptions options;
        options.stages = k;
        const auto t0 = std::chrono::steady_clock::now();
        const StageSearchResult r = searchStages(cost, options);
        const double search = secondsSince(t0);
        std::printf("%-58s K=%zu %-6s %6zu units %7.3f s  opt %9.1f us",
                    std::filesystem::path(path).filename().c_str(), k, searchModeName(r.mode),
                    cost.unitCount(), search, r.bottleneckUs);
        for (const Baseline &b : r.baselines)
            std::printf("  %s x%.2f", b.name.c_str(),
                        r.bottleneckUs > 0 ? b.bottleneckUs / r.bottleneckUs : 1.0);
        std::printf("\n");
    }
}

} // namespace

int main()
{
    std::printf("Stage search on generated graphs (FLOPs at %.0f GFLOP/s, 10 GB/s + 20 us links)\n",
                defaultFlopsRateGflops);
    timeGenerated(10'000);
    timeGenerated(100'000);
    const std::string rnnt
        = CLEAVE_CORPUS_DIR "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt";
    if (std::filesystem::exists(rnnt)) {
        ImportResult imported = importFile(rnnt);
        if (imported.ok())
            timeSearch("rnnt", *imported.graph);
    } else {
        std::printf("SKIP rnnt: %s is missing\n", rnnt.c_str());
    }
    std::printf("\nOptimum vs baselines (baseline bottleneck / optimum; > 1 means the optimum "
                "is faster)\n");
    for (const std::string &path : models())
        compareBaselines(path);
    return 0;
}
