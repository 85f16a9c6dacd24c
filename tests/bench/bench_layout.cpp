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
#include "../core/GraphBuilder.h"
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
using Shape = test::GraphBuilder::Shape;

namespace {

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::unique_ptr<Graph> resnetShaped(std::size_t target)
{
    test::GraphBuilder b;
    const Shape s { 1, 64, 56, 56 };
    const Type bnType
        = Type::tuple({ test::GraphBuilder::tensor(s), test::GraphBuilder::tensor({ 64 }),
                        test::GraphBuilder::tensor({ 64 }) });
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    while (nodes + 9 <= target) {
        NodeId y = x;
        for (int i = 0; i < 2; ++i) {
            y = b.op("nn.conv2d", { y }, s);
            y = b.getItem(b.opTyped("nn.batch_norm", { y }, bnType), 0);
            if (i == 0)
                y = b.op("nn.relu", { y }, s);
        }
        x = b.op("nn.relu", { b.op("add", { y, x }, s) }, s);
        nodes += 9;
    }
    return b.finish(x);
}

std::unique_ptr<Graph> transformerShaped(std::size_t target)
{
    test::GraphBuilder b;
    const Shape h { 1, 128, 768 };
    const Shape heads { 12, 128, 64 };
    const Shape scores { 12, 128, 128 };
    NodeId x = b.input("tokens", h);
    const NodeId mask = b.input("attention_mask", { 1, 1, 128 });
    std::size_t nodes = 2;
    while (nodes + 22 <= target) {
        const NodeId ln = b.op("nn.layer_norm", { x }, h);
        NodeId qkv[3];
        for (NodeId &t : qkv)
            t = b.op("transpose",
                     { b.op("reshape", { b.op("nn.dense", { ln }, h) }, { 1, 128, 12, 64 }) },
                     heads);
        NodeId att = b.op("nn.batch_matmul", { qkv[0], qkv[1] }, scores);
        att = b.op("nn.softmax",
                   { b.op("add", { b.op("multiply", { att }, scores), mask }, scores) }, scores);
        NodeId ctx = b.op("nn.batch_matmul", { att, qkv[2] }, heads);
        ctx = b.op("nn.dense",
                   { b.op("reshape", { b.op("transpose", { ctx }, { 1, 128, 12, 64 }) }, h) }, h);
        x = b.op("add", { ctx, x }, h);
        const NodeId ff = b.op(
            "nn.dense",
            { b.op("nn.gelu",
                   { b.op("nn.dense", { b.op("nn.layer_norm", { x }, h) }, { 1, 128, 3072 }) },
                   { 1, 128, 3072 }) },
            h);
        x = b.op("add", { ff, x }, h);
        nodes += 24;
    }
    return b.finish(x);
}

std::unique_ptr<Graph> inceptionShaped(std::size_t target)
{
    test::GraphBuilder b;
    const Shape s { 1, 256, 28, 28 };
    const Shape q { 1, 64, 28, 28 };
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    while (nodes + 13 <= target) {
        const NodeId b1 = b.op("nn.relu", { b.op("nn.conv2d", { x }, q) }, q);
        const NodeId b2
            = b.op("nn.relu", { b.op("nn.conv2d", { b.op("nn.conv2d", { x }, q) }, q) }, q);
        const NodeId b3 = b.op(
            "nn.relu",
            { b.op("nn.conv2d", { b.op("nn.conv2d", { b.op("nn.conv2d", { x }, q) }, q) }, q) }, q);
        const NodeId b4
            = b.op("nn.relu", { b.op("nn.conv2d", { b.op("nn.max_pool2d", { x }, s) }, q) }, q);
        x = b.op("concatenate", { b.tuple({ b1, b2, b3, b4 }) }, s);
        nodes += 15;
    }
    return b.finish(x);
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

void bench(const std::string &name, const Graph &graph, int dotTimeout, const std::string &tmp)
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
    if (r.isOk() && r.layout->engine != "dot" && lg.nodes.size() <= 3500) {
        LayoutSettings full;
        full.engine = "dot";
        fullDotMs = computeLayout(lg, full).milliseconds;
    }

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
    std::printf("%-28s %7zu %7zu  %-9s %9.1f %8.1f %9.1f %11s %10s\n", name.c_str(),
                lg.nodes.size(), lg.edges.size(), r.isOk() ? r.layout->engine.c_str() : "FAILED",
                r.milliseconds, buildMs, cached.fromCache ? cacheMs : -1.0, fullText, dotText);
    std::printf(
        "{\"bench\":\"layout\",\"graph\":\"%s\",\"nodes\":%zu,\"edges\":%zu,\"engine\":\"%s\","
        "\"layout_ms\":%.1f,\"build_ms\":%.1f,\"cache_ms\":%.1f,\"full_dot_ms\":%.1f,\"dot_tjson_"
        "ms\":%.1f}\n",
        name.c_str(), lg.nodes.size(), lg.edges.size(), r.isOk() ? r.layout->engine.c_str() : "",
        r.milliseconds, buildMs, cacheMs, fullDotMs, dotMs);
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
            std::string list = argv[++i];
            for (std::size_t pos = 0; pos < list.size();) {
                const std::size_t comma = list.find(',', pos);
                sizes.push_back(std::stoul(list.substr(pos, comma - pos)));
                pos = comma == std::string::npos ? list.size() : comma + 1;
            }
        } else {
            samples = arg;
        }
    }
    const std::string tmp
        = (std::filesystem::temp_directory_path() / "cleave-bench-layout").string();
    std::filesystem::create_directories(tmp);
    std::printf("%-28s %7s %7s  %-9s %9s %8s %9s %11s %10s\n", "graph", "nodes", "edges", "engine",
                "layout_ms", "build_ms", "cache_ms", "full_dot_ms", "dot_Tjson");
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(samples))
        if (entry.path().extension() == ".relay" || entry.path().extension() == ".json")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto &path : files) {
        ImportResult imported = importFile(path.string());
        if (!imported.ok())
            continue;
        bench(path.filename().string(), *imported.graph, dotTimeout, tmp);
    }
    for (std::size_t n : sizes) {
        bench("resnet_" + std::to_string(n), *resnetShaped(n), dotTimeout, tmp);
        bench("transformer_mask_" + std::to_string(n), *transformerShaped(n), dotTimeout, tmp);
        bench("inception_" + std::to_string(n), *inceptionShaped(n), dotTimeout, tmp);
    }
    std::filesystem::remove_all(tmp);
    return 0;
}
