// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: the memory of a layout. For the rnnt dump (its operators level and its fused-blocks
// level, as the editor draws them) and generated ResNet-shaped graphs and a gated chain, prints
// the layout's CPU time, the live heap of the finished Layout, the peak heap while it is computed
// (the layout's transients on top of the result) and, for the disk cache, the binary's size, the
// CPU time of layoutFromBinary and the live heap of the Layout it reads. Heap figures count every
// operator new of the process (this program replaces the global operators) from just before the
// step (Graphviz's own mallocs are not counted: graphs the editor hands to dot-order count only
// Cleave's placement); the drawn graph (LayoutGraph) is built before and not counted.
// Usage: bench_layout_memory [--cases rnnt,gen30000,gen100000,chain100000] [--repeat N]
// Prints a table and one JSON line per graph.
#include "BenchGraphs.h"
#include "BenchSupport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/formats/FormatRegistry.h"
#include "core/layout/GraphLayouter.h"
#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"
#include "core/partition/BlockGraph.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <new>
#include <string>
#include <vector>

using namespace cleave;

namespace {

std::atomic<long long> liveBytes { 0 };
std::atomic<long long> peakBytes { 0 };

void *allocate(std::size_t size)
{
    void *p = std::malloc(size == 0 ? 1 : size);
    if (p == nullptr)
        throw std::bad_alloc();
    const long long now = liveBytes += static_cast<long long>(malloc_usable_size(p));
    long long peak = peakBytes.load();
    while (now > peak && !peakBytes.compare_exchange_weak(peak, now)) { }
    return p;
}

void release(void *p) noexcept
{
    if (p == nullptr)
        return;
    liveBytes -= static_cast<long long>(malloc_usable_size(p));
    std::free(p);
}

// The heap counted from now on: the peak starts again at the current live bytes.
long long resetPeak()
{
    const long long now = liveBytes.load();
    peakBytes = now;
    return now;
}

double cpuMs()
{
    timespec t {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double mb(long long bytes)
{
    return static_cast<double>(bytes) / 1e6;
}

void measure(const std::string &name, const LayoutGraph &lg, int repeat)
{
    std::vector<double> layoutMs;
    std::vector<double> readMs;
    long long layoutLive = 0;
    long long layoutPeak = 0;
    long long readLive = 0;
    long long readPeak = 0;
    std::size_t points = 0;
    std::size_t binaryBytes = 0;
    std::uint64_t hash = 1469598103934665603ULL; // FNV-1a of the binary: equal layouts, equal hash
    std::string engine;
    for (int run = 0; run < repeat; ++run) {
        const long long before = resetPeak();
        const double start = cpuMs();
        LayoutResult r = computeLayout(lg);
        layoutMs.push_back(cpuMs() - start);
        if (!r.isOk()) {
            std::printf("%-22s FAILED: %s\n", name.c_str(), r.message.c_str());
            return;
        }
        layoutLive = liveBytes.load() - before;
        layoutPeak = peakBytes.load() - before;
        engine = r.layout->engine;
        points = 0;
        for (const auto &[key, spline] : r.layout->edges)
            points += spline.points().size();
        const std::string binary = layoutToBinary(*r.layout);
        binaryBytes = binary.size();
        hash = 1469598103934665603ULL;
        for (const char c : binary)
            hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        r.layout.reset();
        const long long beforeRead = resetPeak();
        const double readStart = cpuMs();
        Layout back;
        const bool ok = layoutFromBinary(binary, back);
        readMs.push_back(cpuMs() - readStart);
        readLive = liveBytes.load() - beforeRead;
        readPeak = peakBytes.load() - beforeRead;
        if (!ok)
            std::printf("%-22s layoutFromBinary FAILED\n", name.c_str());
    }
    std::sort(layoutMs.begin(), layoutMs.end());
    std::sort(readMs.begin(), readMs.end());
    const double perNode = static_cast<double>(layoutLive) / static_cast<double>(lg.nodes.size());
    std::printf("%-22s %7zu %7zu %8zu  %-12s %7.0f-%-7.0f %9.2f %8.1f %9.2f %8.2f %6.1f-%-6.1f "
                "%8.2f %8.2f\n",
                name.c_str(), lg.nodes.size(), lg.edges.size(), points, engine.c_str(),
                layoutMs.front(), layoutMs.back(), mb(layoutLive), perNode, mb(layoutPeak),
                mb(static_cast<long long>(binaryBytes)), readMs.front(), readMs.back(),
                mb(readLive), mb(readPeak));
    std::printf("{\"bench\":\"layout_memory\",\"graph\":\"%s\",\"nodes\":%zu,\"edges\":%zu,"
                "\"points\":%zu,\"engine\":\"%s\",\"layout_cpu_ms_min\":%.1f,\"layout_cpu_ms_max\":"
                "%.1f,\"layout_live_bytes\":%lld,\"layout_peak_bytes\":%lld,\"binary_bytes\":%zu,"
                "\"read_cpu_ms_min\":%.1f,\"read_cpu_ms_max\":%.1f,\"read_live_bytes\":%lld,"
                "\"read_peak_bytes\":%lld,\"hash\":\"%016llx\"}\n",
                name.c_str(), lg.nodes.size(), lg.edges.size(), points, engine.c_str(),
                layoutMs.front(), layoutMs.back(), layoutLive, layoutPeak, binaryBytes,
                readMs.front(), readMs.back(), readLive, readPeak,
                static_cast<unsigned long long>(hash));
    std::fflush(stdout);
}

} // namespace

void *operator new(std::size_t size)
{
    return allocate(size);
}
void *operator new[](std::size_t size)
{
    return allocate(size);
}
void *operator new(std::size_t size, const std::nothrow_t & /*tag*/) noexcept
{
    try {
        return allocate(size);
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}
void *operator new[](std::size_t size, const std::nothrow_t & /*tag*/) noexcept
{
    try {
        return allocate(size);
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}
void operator delete(void *p) noexcept
{
    release(p);
}
void operator delete[](void *p) noexcept
{
    release(p);
}
void operator delete(void *p, std::size_t /*size*/) noexcept
{
    release(p);
}
void operator delete[](void *p, std::size_t /*size*/) noexcept
{
    release(p);
}

int main(int argc, char **argv)
{
    std::vector<std::string> wanted { "rnnt", "gen30000", "gen100000", "chain100000" };
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cases" && i + 1 < argc) {
            wanted = bench::commaList(argv[++i]);
        } else if (arg == "--repeat" && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        }
    }
    std::printf("%-22s %7s %7s %8s  %-12s %15s %9s %8s %9s %8s %13s %8s %8s\n", "graph", "nodes",
                "edges", "points", "engine", "layout_cpu_ms", "live_MB", "B/node", "peak_MB",
                "bin_MB", "read_cpu_ms", "read_MB", "rpeak_MB");
    for (const std::string &w : wanted) {
        if (w == "rnnt") {
            const std::string path = std::string(CLEAVE_CORPUS_DIR)
                + "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt";
            ImportResult imported = importFile(path);
            if (!imported.ok()) {
                std::printf("rnnt: cannot import %s\n", path.c_str());
                continue;
            }
            const Graph &graph = *imported.graph;
            const FunctionId main = graph.mainFunction();
            measure("rnnt_ops", buildLayoutGraph(graph, main), repeat);
            const BlockGraph blocks = collapseBlocks(graph, main, fuseOps(graph, main));
            measure("rnnt_blocks", buildLayoutGraph(blocks.graph, blocks.graph.mainFunction()),
                    repeat);
        } else if (w.rfind("gen", 0) == 0) {
            const std::size_t n = std::stoul(w.substr(3));
            const auto graph = bench::resnetShaped(n);
            measure("resnet_" + std::to_string(n), buildLayoutGraph(*graph, graph->mainFunction()),
                    repeat);
        } else if (w.rfind("chain", 0) == 0) {
            const std::size_t n = std::stoul(w.substr(5));
            const auto graph = bench::gatedChain(n);
            measure("chain_" + std::to_string(n), buildLayoutGraph(*graph, graph->mainFunction()),
                    repeat);
        }
    }
    return 0;
}
