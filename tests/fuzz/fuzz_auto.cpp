// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: what `cleave-cli auto` reads and computes — a device file and a latency
// table, the cost model over the small fixed model (ops or blocks level), the stage search, the
// plan it makes, and that plan's validation.
//
// Input: one flag byte, then the device file, then optionally "\n%%\n" and a latency table
// every device without its own gets (as `--latency`), then optionally "\n%%\n" and a Relay
// model to plan instead of the small fixed one (huge shapes, odd graphs). An empty device file
// stands for `--stages K`: one default device; an empty latency table for none. Flag bits: 0-2
// K - 1 (without a device file), 3 latency objective, 4 blocks level, 5-7 a memory limit for
// every device (none, or 2^(4·n) bytes). Files the device file names are looked up in a folder
// that does not exist.
#include "FuzzSupport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/LatencyTable.h"
#include "core/auto/AutoPlan.h"
#include "core/auto/CostModel.h"
#include "core/auto/DeviceFile.h"
#include "core/auto/StageSearch.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/partition/BoundaryTensors.h"
#include "core/validation/Validation.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace cleave;
    const std::optional<fuzz::FlaggedInput> in = fuzz::flaggedInput(data, size, 3);
    if (!in)
        return 0;
    const unsigned flags = in->flags;
    const std::string_view devicesText = in->part(0);
    const std::string_view latencyText = in->part(1);
    const std::string_view modelText = in->part(2);
    std::unique_ptr<Graph> model;
    if (!modelText.empty()) {
        model = importBytes(modelText, "/nonexistent-cleave-fuzz/model.relay").graph;
        if (!model)
            return 0;
    }

    std::vector<Diagnostic> found;
    std::optional<LatencyTable> latency;
    if (!latencyText.empty()) {
        latency
            = LatencyTable::fromJson(latencyText, "/nonexistent-cleave-fuzz/latency.json", found);
        if (!latency)
            return 0;
    }
    std::optional<std::int64_t> memory;
    if (const unsigned n = flags >> 5; n != 0)
        memory = std::int64_t { 1 } << (4 * n);

    DeviceSet devices;
    std::size_t stages = (flags & 7) + 1;
    if (!devicesText.empty()) {
        auto loaded = parseDeviceFile(devicesText, "/nonexistent-cleave-fuzz/devices.json", found);
        if (!loaded)
            return 0;
        devices = std::move(*loaded);
        stages = devices.devices.size();
    } else {
        devices.devices.emplace_back();
    }
    // As the CLI: a measured table's calibration sets the link the device file did not.
    if (latency && latency->calibration() && !devices.hasLink) {
        const LatencyCalibration &cal = *latency->calibration();
        if (cal.handoffUs)
            devices.link.latencyUs = *cal.handoffUs;
        if (cal.copyBytesPerSecond)
            devices.link.bytesPerSecond = *cal.copyBytesPerSecond;
    }
    std::vector<std::optional<std::int64_t>> memoryLimits;
    for (DeviceSpec &d : devices.devices) {
        if (!d.latency && latency)
            d.latency = &*latency;
        if (!d.memoryBytes)
            d.memoryBytes = memory;
        memoryLimits.push_back(d.memoryBytes);
    }
    if (stages == 0)
        return 0; // parseDeviceFile refuses a file without devices; stay safe if it changes

    const Graph &graph = model ? *model : fuzz::smallModel();
    const auto view = std::make_shared<const FunctionView>(graph, graph.mainFunction());
    const CostGraph cost = (flags & 16) != 0
        ? CostGraph::buildBlocks(*view, fuseOps(graph, view->function(), FusionOptions {}),
                                 devices.devices, devices.link)
        : CostGraph::build(*view, devices.devices, devices.link);
    StageSearchOptions options;
    options.stages = stages;
    options.objective = (flags & 8) != 0 ? StageObjective::Latency : StageObjective::Throughput;
    const StageSearchResult result = searchStages(cost, options, memoryLimits);
    if (!result.ok)
        return 0;
    std::vector<std::string> targets;
    for (std::size_t k = 0; k < stages; ++k)
        targets.push_back(devices.devices[std::min(k, devices.devices.size() - 1)].target);
    const auto check = [&](const std::vector<std::int32_t> &stageOf) {
        const PartitionPlan plan = planFromStages(view, cost, stageOf, stages, targets);
        (void)stageCountProblem(plan, cost, stages);
        (void)stagesOfPlan(plan, cost);
        (void)validateAll(plan, computeBoundary(plan), ValidationOptions {});
    };
    check(result.stageOf);
    for (const Baseline &b : result.baselines)
        check(b.stageOf);
    return 0;
}
