// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: layout time of every sample and of generated DNN-shaped graphs (ResNet blocks,
// transformer layers sharing one attention mask, Inception modules) at about 1k, 3k and 10k
// drawn nodes, through the editor's path (buildLayoutGraph + computeLayout, no cache), beside
// `dot -Tjson` run as a subprocess on the DOT text of a full dot layout of the same graph (and,
// up to 3.5k nodes, the full dot engine in process where the editor picks dot-order).
// Columns: layout_ms = computeLayout (the worker thread's time); build_ms = buildLayoutGraph (UI
// thread); cache_ms = a disk-cache hit (reopening the model).
// Usage: bench_layout [SAMPLES_DIR] [--dot-timeout SECONDS] [--sizes 1000,3000,10000]
// Prints a table and one JSON line per graph.
#include "BenchGraphs.h"
#include "BenchSupport.h"
#include "LayoutMetrics.h"
#include "core/formats/FormatRegistry.h"
#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutCache.h"
#include "core/layout/LayoutGraph.h"

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace cleave;
using Clock = std::chrono::steady_clock;
using bench::inceptionShaped;
using bench::resnetShaped;
using bench::transformerShaped;

namespace {

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Wall milliseconds of `dot -Tjson` on the file, or a negative number on timeout / failure.
double runDot(const std::string &dotFile, int timeoutSeconds)
{
    const std::string command = "timeout " + std::to_string(timeoutSeconds) + " dot -Tjson '"
        + dotFile + "' > /dev/null 2>&1";
    const auto start = Clock::now();
    const int status = std::system(command.c_str());
    const double ms = msSince(start);
    if (status == -1 || !WIFEXITED(status))
        return -1;
    if (WEXITSTATUS(status) == 124)
        return -2;
    return WEXITSTATUS(status) == 0 ? ms : -1;
}

void measure(const std::string &name, const Graph &graph, int dotTimeout, const std::string &tmp)
{
    const auto buildStart = Clock::now();
    const LayoutGraph lg = buildLayoutGraph(graph, graph.mainFunction());
    const double buildMs = msSince(buildStart);
    const LayoutResult r = computeLayout(lg);
    // Second run: the disk cache's read path (what reopening a model costs).
    const std::string cacheDir = tmp + "/cache";
    LayoutCache writer(cacheDir);
    writer.store(layoutCacheKey(name, lg), r.layout);
    LayoutCache reader(cacheDir);
    const auto cacheStart = Clock::now();
    const LayoutResult cached = computeLayoutCached(&reader, name, lg);
    const double cacheMs = msSince(cacheStart);

    // The full dot engine in process, for comparison where the editor picks dot-order (bounded
    // to 3.5k nodes: beyond, it takes tens of seconds).
    double fullDotMs = -1;
    long long dotCrossings = -1;
    double dotWidth = -1;
    if (r.isOk() && r.layout->engine != "dot" && lg.nodes.size() <= 3500) {
        LayoutSettings full;
        full.engine = "dot";
        const LayoutResult fr = computeLayout(lg, full);
        fullDotMs = fr.milliseconds;
        if (fr.isOk()) {
            dotCrossings = static_cast<long long>(bench::countCrossings(*fr.layout));
            dotWidth = fr.layout->bbox.width;
        }
    } else if (r.isOk() && r.layout->engine == "dot") {
        dotCrossings = static_cast<long long>(bench::countCrossings(*r.layout));
        dotWidth = r.layout->bbox.width;
    }
    const long long crossings
        = r.isOk() ? static_cast<long long>(bench::countCrossings(*r.layout)) : -1;
    const double width = r.isOk() ? r.layout->bbox.width : -1;

    const std::string dotFile = tmp + "/" + name + ".dot";
    {
        std::ofstream out(dotFile);
        out << layoutGraphToDot(lg, "dot");
    }
    const double dotMs = runDot(dotFile, dotTimeout);
    char dotText[32];
    if (dotMs == -2)
        std::snprintf(dotText, sizeof dotText, ">%d000", dotTimeout);
    else if (dotMs < 0)
        std::snprintf(dotText, sizeof dotText, "failed");
    else
        std::snprintf(dotText, sizeof dotText, "%.0f", dotMs);
    char fullText[32] = "-";
    if (fullDotMs >= 0)
        std::snprintf(fullText, sizeof fullText, "%.0f", fullDotMs);
    std::printf("%-28s %7zu %7zu  %-12s %9.1f %8.1f %9.1f %11s %10s %9lld %8.0f %9lld %8.0f\n",
                name.c_str(), lg.nodes.size(), lg.edges.size(),
                r.isOk() ? r.layout->engine.c_str() : "FAILED", r.milliseconds, buildMs,
                cached.fromCache ? cacheMs : -1.0, fullText, dotText, crossings, width,
                dotCrossings, dotWidth);
    std::printf(
        "{\"bench\":\"layout\",\"graph\":\"%s\",\"nodes\":%zu,\"edges\":%zu,\"engine\":\"%s\","
        "\"layout_ms\":%.1f,\"build_ms\":%.1f,\"cache_ms\":%.1f,\"full_dot_ms\":%.1f,\"dot_tjson_"
        "ms\":%.1f,\"crossings\":%lld,\"width\":%.0f,\"dot_crossings\":%lld,\"dot_width\":%.0f}\n",
        name.c_str(), lg.nodes.size(), lg.edges.size(), r.isOk() ? r.layout->engine.c_str() : "",
        r.milliseconds, buildMs, cacheMs, fullDotMs, dotMs, crossings, width, dotCrossings,
        dotWidth);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    std::string samples = CLEAVE_SAMPLES_DIR;
    int dotTimeout = 120;
    std::vector<std::size_t> sizes { 1000, 3000, 10000 };
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--dot-timeout" && i + 1 < argc) {
            dotTimeout = std::atoi(argv[++i]);
        } else if (arg == "--sizes" && i + 1 < argc) {
            sizes.clear();
            for (const std::string &size : bench::commaList(argv[++i]))
                sizes.push_back(std::stoul(size));
        } else {
            samples = arg;
        }
    }
    const std::string tmp
        = (std::filesystem::temp_directory_path() / "cleave-bench-layout").string();
    std::filesystem::create_directories(tmp);
    std::printf("%-28s %7s %7s  %-12s %9s %8s %9s %11s %10s %9s %8s %9s %8s\n", "graph", "nodes",
                "edges", "engine", "layout_ms", "build_ms", "cache_ms", "full_dot_ms", "dot_Tjson",
                "crossings", "width", "dot_cross", "dot_width");
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(samples))
        if (entry.path().extension() == ".relay" || entry.path().extension() == ".json")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto &path : files) {
        ImportResult imported = importFile(path.string());
        if (!imported.ok())
            continue;
        measure(path.filename().string(), *imported.graph, dotTimeout, tmp);
    }
    for (std::size_t n : sizes) {
        measure("resnet_" + std::to_string(n), *resnetShaped(n), dotTimeout, tmp);
        measure("transformer_mask_" + std::to_string(n), *transformerShaped(n), dotTimeout, tmp);
        measure("inception_" + std::to_string(n), *inceptionShaped(n), dotTimeout, tmp);
        measure("densenet_" + std::to_string(n), *bench::denseNetShaped(n), dotTimeout, tmp);
    }
    std::filesystem::remove_all(tmp);
    return 0;
}
