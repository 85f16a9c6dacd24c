// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: FuseOps-style grouping (fuseOps) on generated ResNet-like graphs of 10k and 100k
// nodes, with batch norms kept and folded. Prints a table and one JSON line per run.
#include "../core/GraphBuilder.h"
#include "core/analysis/FusionAnalysis.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace cleave;
using Clock = std::chrono::steady_clock;

namespace {

/// Residual blocks conv → batch_norm → .0 → relu → conv → batch_norm → .0 → add(skip) → relu,
/// about `targetNodes` nodes in all (constants included).
std::unique_ptr<Graph> resnetLike(std::size_t targetNodes)
{
    test::GraphBuilder b;
    const test::GraphBuilder::Shape s { 1, 64, 56, 56 };
    const Type bnType
        = Type::tuple({ test::GraphBuilder::tensor(s), test::GraphBuilder::tensor({ 64 }),
                        test::GraphBuilder::tensor({ 64 }) });
    NodeId x = b.input("data", s);
    std::size_t nodes = 1;
    auto convBn = [&](NodeId in) {
        const NodeId w = b.constant("w" + std::to_string(nodes), { 64, 64, 3, 3 });
        NodeId bn[4];
        for (int i = 0; i < 4; ++i)
            bn[i] = b.constant("bn" + std::to_string(nodes) + "_" + std::to_string(i), { 64 });
        const NodeId c = b.op("nn.conv2d", { in, w }, s);
        const NodeId n = b.opTyped("nn.batch_norm", { c, bn[0], bn[1], bn[2], bn[3] }, bnType);
        nodes += 8;
        return b.getItem(n, 0);
    };
    while (nodes + 19 < targetNodes) {
        const NodeId r0 = b.op("nn.relu", { convBn(x) }, s);
        const NodeId a = b.op("add", { convBn(r0), x }, s);
        x = b.op("nn.relu", { a }, s);
        nodes += 3;
    }
    return b.finish(x);
}

double ms(Clock::duration d)
{
    return std::chrono::duration<double, std::milli>(d).count();
}

void run(std::size_t targetNodes, bool fold)
{
    const auto graph = resnetLike(targetNodes);
    FusionOptions options;
    options.foldBatchNorm = fold;
    std::vector<double> times;
    std::size_t blocks = 0, largest = 0;
    for (int i = 0; i < 5; ++i) {
        const auto t0 = Clock::now();
        const std::vector<FusedBlock> result = fuseOps(*graph, graph->mainFunction(), options);
        times.push_back(ms(Clock::now() - t0));
        blocks = result.size();
        largest = 0;
        for (const FusedBlock &block : result)
            largest = std::max(largest, block.nodes.size());
    }
    std::sort(times.begin(), times.end());
    std::printf("fuseOps %-13s %7zu nodes -> %6zu blocks (largest %zu nodes): median %.2f ms, min "
                "%.2f ms\n",
                fold ? "(folded bn)" : "(bn kept)", graph->nodeCount(), blocks, largest,
                times[times.size() / 2], times.front());
    std::printf("{\"bench\": \"fusion\", \"nodes\": %zu, \"fold_batch_norm\": %s, \"blocks\": %zu, "
                "\"median_ms\": %.3f, \"min_ms\": %.3f}\n",
                graph->nodeCount(), fold ? "true" : "false", blocks, times[times.size() / 2],
                times.front());
}

} // namespace

int main()
{
    for (std::size_t n : { std::size_t(10000), std::size_t(100000) }) {
        run(n, false);
        run(n, true);
    }
    return 0;
}
