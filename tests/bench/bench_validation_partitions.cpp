// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: how validation scales with the number of partitions (issue 14: it must stay
// O(N + E + P)). A ResNet-like graph is cut after every k-th add so that it holds 1k, 3k and
// 10k partitions; prints the time of computeBoundary and of validateAll for each, and one
// JSON line per size.
#include "BenchGraphs.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/validation/Validation.h"

#include <chrono>
#include <cstdio>
#include <vector>

using namespace cleave;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d)
{
    return std::chrono::duration<double, std::milli>(d).count();
}

void run(std::size_t partitions)
{
    std::size_t adds = 0;
    // Two adds per partition (13 nodes each), so every cut falls on a distinct add.
    const auto graph = bench::resnetLike(partitions * 26 + 32, adds);
    PartitionPlan plan(*graph);
    std::vector<SplitPoint> points;
    for (std::size_t a = 1; a < adds && points.size() + 1 < partitions; a += 2)
        points.push_back({ "add", a });
    const auto t0 = Clock::now();
    plan.cutAfterOps(points);
    const auto t1 = Clock::now();
    const BoundaryTable boundary = computeBoundary(plan);
    const auto t2 = Clock::now();
    const std::vector<Diagnostic> found = validateAll(plan, boundary, {});
    const auto t3 = Clock::now();
    std::printf("%6zu partitions, %7zu nodes: cut %9.1f ms, boundary %8.1f ms, validate %9.1f "
                "ms (%zu diagnostics)\n",
                plan.partitionCount(), graph->nodeCount(), ms(t1 - t0), ms(t2 - t1), ms(t3 - t2),
                found.size());
    std::printf("{\"bench\": \"validation_partitions\", \"partitions\": %zu, \"nodes\": %zu, "
                "\"cut_ms\": %.1f, \"boundary_ms\": %.1f, \"validate_ms\": %.1f}\n",
                plan.partitionCount(), graph->nodeCount(), ms(t1 - t0), ms(t2 - t1), ms(t3 - t2));
}

} // namespace

int main()
{
    for (std::size_t p : { 1000, 3000, 10000 })
        run(p);
    return 0;
}
