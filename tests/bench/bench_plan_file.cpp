// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// bench_plan_file: how reading and validating a plan file scales with its cut edges and its
// partitions (issue 34, N7: 10k cut edges took 6.6 s, 50k more than 120 s). The plans are those
// of ../shared/repro/plan_10k_cut_edges.json and plan_10k_partitions.json for
// samples/resnet18.relay, made with 10k and 50k entries: one partition of every node and N cut
// edges lying inside it (one located error each), or N partitions of which N - 1 are empty.
// Prints the time of planFromJson and, when the plan loads, of computeBoundary + validateAll,
// and one JSON line per case.
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanFile.h"
#include "core/validation/Validation.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace cleave;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d)
{
    return std::chrono::duration<double, std::milli>(d).count();
}

/// `"%0", "%1", …` for every assignable node of the main function.
std::string nodeList(const Graph &graph)
{
    const FunctionView view(graph, graph.mainFunction());
    std::string list;
    for (NodeId n : view.assignableNodes())
        list += (list.empty() ? "\"" : ", \"") + graph.key(n) + "\"";
    return list;
}

std::string cutEdgesPlan(const Graph &graph, std::size_t edges)
{
    std::string text = R"({"cleave_plan": 1, "function": "main", "partitions": [{"name": "a", )"
                       R"("nodes": [)"
        + nodeList(graph) + "]}], \"cut_edges\": [";
    for (std::size_t i = 0; i < edges; ++i)
        text += std::string(i ? ", " : "") + R"({"producer": "%1", "output": 0, "consumer": "%2"})";
    return text + "]}";
}

std::string partitionsPlan(const Graph &graph, std::size_t partitions)
{
    std::string text = R"({"cleave_plan": 1, "function": "main", "partitions": [{"name": )"
                       R"("stage0", "nodes": [)"
        + nodeList(graph) + "]}";
    for (std::size_t i = 1; i < partitions; ++i)
        text += R"(, {"name": "p)" + std::to_string(i) + R"(", "nodes": []})";
    return text + "]}";
}

void run(const Graph &graph, const char *kind, std::size_t count, const std::string &text)
{
    const auto t0 = Clock::now();
    const PlanLoadResult loaded = planFromJson(graph, text, "plan.json");
    const auto t1 = Clock::now();
    std::size_t diagnostics = loaded.diagnostics.size();
    if (loaded.plan) {
        const BoundaryTable boundary = computeBoundary(*loaded.plan);
        diagnostics += validateAll(*loaded.plan, boundary, {}).size();
    }
    const auto t2 = Clock::now();
    std::printf("%6zu %-10s (%7zu bytes): read %9.1f ms, validate %8.1f ms, %zu diagnostics\n",
                count, kind, text.size(), ms(t1 - t0), ms(t2 - t1), diagnostics);
    std::printf("{\"bench\": \"plan_file\", \"case\": \"%s\", \"count\": %zu, \"read_ms\": %.1f, "
                "\"validate_ms\": %.1f, \"diagnostics\": %zu}\n",
                kind, count, ms(t1 - t0), ms(t2 - t1), diagnostics);
}

} // namespace

int main()
{
    const ImportResult model = importFile(std::string(CLEAVE_SAMPLES_DIR) + "/resnet18.relay");
    if (!model.graph) {
        std::fprintf(stderr, "cannot import samples/resnet18.relay\n");
        return 1;
    }
    for (std::size_t n : { 10000, 50000 })
        run(*model.graph, "cut edges", n, cutEdgesPlan(*model.graph, n));
    for (std::size_t n : { 10000, 50000 })
        run(*model.graph, "partitions", n, partitionsPlan(*model.graph, n));
    return 0;
}
