// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: time per plan edit on generated ResNet-like graphs of 10k and 100k nodes — the
// edit itself (a cut), the boundary table and a full re-validation, as the editor runs them.
// Prints a table and one JSON line per graph size.
#include "BenchGraphs.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/validation/Validation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

using namespace cleave;
using Clock = std::chrono::steady_clock;
using bench::resnetLike;

namespace {

double ms(Clock::duration d)
{
    return std::chrono::duration<double, std::milli>(d).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

void run(std::size_t targetNodes)
{
    std::size_t adds = 0;
    const auto graph = resnetLike(targetNodes, adds);
    const auto t0 = Clock::now();
    PartitionPlan plan(*graph);
    const double setupMs = ms(Clock::now() - t0);

    // The plan the user works on: four stages. Each measured edit cuts one more, then the
    // editor recomputes the boundary and re-validates everything; the edit is then undone.
    plan.cutAfterOps({ { "add", adds / 4 }, { "add", adds / 2 }, { "add", 3 * adds / 4 } });
    std::mt19937 rng(42);
    std::vector<double> cutMs, boundaryMs, validateMs, totalMs, lineMs;
    std::size_t diagnostics = 0, tensors = 0;
    const int rounds = 30;
    for (int i = 0; i < rounds; ++i) {
        const std::size_t k = std::uniform_int_distribution<std::size_t>(0, adds - 1)(rng);
        const auto a = Clock::now();
        const PlanEdit edit = plan.cutAfterOp("add", k);
        const auto b = Clock::now();
        const BoundaryTable table = computeBoundary(plan);
        const auto c = Clock::now();
        const std::vector<Diagnostic> found = validateAll(plan, table);
        const auto d = Clock::now();
        plan.revert(edit);
        cutMs.push_back(ms(b - a));
        boundaryMs.push_back(ms(c - b));
        validateMs.push_back(ms(d - c));
        totalMs.push_back(ms(d - a));
        diagnostics = found.size();
        tensors = table.tensors.size();
    }
    // A cut line across one edge in the middle of the graph (the editor's cut tool).
    const auto &ops = plan.view().assignableNodes();
    for (int i = 0; i < rounds; ++i) {
        const NodeId from = ops[std::uniform_int_distribution<std::size_t>(0, ops.size() - 1)(rng)];
        const auto edges = plan.view().outEdges(from);
        if (edges.empty())
            continue;
        const auto a = Clock::now();
        const PlanEdit edit
            = plan.cutAcrossEdges({ EdgeRef { edges[0].tensor, edges[0].consumer } });
        const BoundaryTable table = computeBoundary(plan);
        const std::vector<Diagnostic> found = validateAll(plan, table);
        lineMs.push_back(ms(Clock::now() - a));
        plan.revert(edit);
    }

    std::printf("graph: %zu nodes (%zu adds), %zu edges; plan setup %.2f ms\n", graph->nodeCount(),
                adds, plan.view().edgeCount(), setupMs);
    std::printf("  cut-after edit     median %.3f ms\n", median(cutMs));
    std::printf("  boundary table     median %.3f ms (%zu tensors)\n", median(boundaryMs), tensors);
    std::printf("  full validation    median %.3f ms (%zu diagnostics)\n", median(validateMs),
                diagnostics);
    std::printf("  edit+boundary+validate  median %.3f ms, max %.3f ms\n", median(totalMs),
                *std::max_element(totalMs.begin(), totalMs.end()));
    std::printf("  cut-line edit+boundary+validate  median %.3f ms\n", median(lineMs));
    std::printf("{\"bench\": \"partition\", \"nodes\": %zu, \"edges\": %zu, \"setup_ms\": %.3f, "
                "\"cut_ms\": %.3f, \"boundary_ms\": %.3f, \"validate_ms\": %.3f, "
                "\"edit_total_ms\": %.3f, \"cut_line_total_ms\": %.3f}\n",
                graph->nodeCount(), plan.view().edgeCount(), setupMs, median(cutMs),
                median(boundaryMs), median(validateMs), median(totalMs), median(lineMs));
}

} // namespace

int main()
{
    run(10000);
    run(100000);
    return 0;
}
