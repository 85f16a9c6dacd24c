// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: exporting every artefact (mod<k>.relay, pipeline_config.json, partitions.json,
// build_pipeline.py, byoc.relay, byoc_annotated.relay) for a generated ResNet-like model of
// about 10k nodes cut into four partitions (one a BYOC target), then verifying the export.
// Prints a table and one JSON line.
#include "BenchGraphs.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace cleave;
using Clock = std::chrono::steady_clock;
using bench::resnetLike;

namespace {

double ms(Clock::duration d)
{
    return std::chrono::duration<double, std::milli>(d).count();
}

} // namespace

int main()
{
    std::size_t adds = 0;
    const auto generated = resnetLike(10000, adds);
    const std::filesystem::path work
        = std::filesystem::temp_directory_path() / "cleave_bench_export";
    std::filesystem::remove_all(work);
    std::filesystem::create_directories(work);
    const std::string modelPath = (work / "resnet10k.relay").string();
    {
        std::ofstream(modelPath) << printRelay(*generated);
    }
    ImportResult imported = importFile(modelPath);
    if (!imported.ok()) {
        std::fprintf(stderr, "cannot import the generated model: %s\n",
                     imported.firstError().c_str());
        return 1;
    }
    const Graph &graph = *imported.graph;
    PartitionPlan plan(graph);
    plan.cutAfterOps({ { "add", adds / 4 }, { "add", adds / 2 }, { "add", 3 * adds / 4 } });
    const BoundaryTable boundary = computeBoundary(plan);
    ExportOptions options;
    options.targets = { "llvm", "dnnl", "llvm", "cuda" };

    std::vector<double> exportMs, verifyMs;
    std::size_t files = 0;
    for (int round = 0; round < 5; ++round) {
        const auto t0 = Clock::now();
        const ExportResult r = exportPartitions(plan, boundary, options, (work / "out").string());
        exportMs.push_back(ms(Clock::now() - t0));
        if (!r.ok) {
            std::fprintf(stderr, "export failed: %s\n", r.diagnostics.front().toString().c_str());
            return 1;
        }
        files = r.files.size();
        const auto t1 = Clock::now();
        const VerifyResult v = verifyExport((work / "out").string());
        verifyMs.push_back(ms(Clock::now() - t1));
        if (!v.ok) {
            std::fprintf(stderr, "verify failed: %s\n", v.firstDifference.c_str());
            return 1;
        }
    }
    std::sort(exportMs.begin(), exportMs.end());
    std::sort(verifyMs.begin(), verifyMs.end());
    std::printf("model: %zu nodes, %zu partitions, %zu files\n", graph.nodeCount(),
                plan.partitionCount(), files);
    std::printf("export all artefacts: median %.1f ms (min %.1f)\n", exportMs[2], exportMs[0]);
    std::printf("verify:               median %.1f ms (min %.1f)\n", verifyMs[2], verifyMs[0]);
    std::printf("{\"bench\": \"export\", \"nodes\": %zu, \"partitions\": %zu, \"export_ms\": %.1f, "
                "\"verify_ms\": %.1f}\n",
                graph.nodeCount(), plan.partitionCount(), exportMs[2], verifyMs[2]);
    std::filesystem::remove_all(work);
    return 0;
}
