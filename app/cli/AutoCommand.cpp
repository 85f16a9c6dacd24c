// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "app/cli/AutoCommand.h"

#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/LatencyTable.h"
#include "core/auto/AutoPlan.h"
#include "core/auto/DeviceFile.h"
#include "core/auto/StageSearch.h"
#include "core/auto/TargetRegions.h"
#include "core/export/Exporter.h"
#include "core/io/FileIo.h"
#include "core/io/Importer.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/FunctionView.h"
#include "core/partition/PlanFile.h"
#include "core/partition/PlanReport.h"
#include "core/validation/Validation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

namespace cleave::cli {

namespace {

constexpr int exitOk = 0;
constexpr int exitInvalidPlan = 1;
constexpr int exitBadInput = 2;

/// The last value of an option, if given.
std::optional<std::string> valueOf(const AutoArguments &args, std::string_view name)
{
    std::optional<std::string> out;
    for (const auto &[option, value] : args.options) {
        if (option == name)
            out = value;
    }
    return out;
}

std::vector<std::string> valuesOf(const AutoArguments &args, std::string_view name)
{
    std::vector<std::string> out;
    for (const auto &[option, value] : args.options) {
        if (option == name)
            out.push_back(value);
    }
    return out;
}

bool hasFlag(const AutoArguments &args, std::string_view flag)
{
    return std::find(args.flags.begin(), args.flags.end(), flag) != args.flags.end();
}

int usage(const std::string &message)
{
    std::cerr << "cleave-cli auto: " << message << "\n(see 'cleave-cli auto --help')\n";
    return exitBadInput;
}

std::optional<double> positiveNumber(const std::string &text, bool allowZero = false)
{
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()
        || !(value > 0 || (allowZero && value == 0)) || value > 1e30)
        return std::nullopt;
    return value;
}

std::string microseconds(double us)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.2f us", us);
    return buffer;
}

/// Everything the cost model needs, owned here so that DeviceSpecs can point into it.
struct CostSetup
{
    std::optional<LatencyTable> latency;
    DeviceSet devices;
    std::vector<std::optional<std::int64_t>> memoryLimits;
};

/// Reads --devices or --stages and the cost flags; prints what is wrong.
std::optional<std::size_t> setupCost(const AutoArguments &args, CostSetup &setup)
{
    std::vector<Diagnostic> problems;
    if (const auto file = valueOf(args, "--latency")) {
        setup.latency = LatencyTable::load(*file, problems);
        if (!setup.latency) {
            for (const Diagnostic &d : problems)
                std::cerr << d.toString() << '\n';
            return std::nullopt;
        }
    }
    DeviceSpec base;
    base.latency = setup.latency ? &*setup.latency : nullptr;
    if (const auto rate = valueOf(args, "--flops-rate")) {
        const auto value = positiveNumber(*rate);
        if (!value) {
            usage("--flops-rate expects a positive number of GFLOP/s, got '" + *rate + "'");
            return std::nullopt;
        }
        base.gflops = *value;
    }
    std::optional<std::int64_t> memory;
    if (const auto limit = valueOf(args, "--memory-limit")) {
        memory = parseByteSize(*limit);
        if (!memory || *memory <= 0) {
            usage("--memory-limit expects a size such as 16GiB or 512000000, got '" + *limit + "'");
            return std::nullopt;
        }
    }
    if (const auto bw = valueOf(args, "--bandwidth")) {
        const auto value = positiveNumber(*bw);
        if (!value) {
            usage("--bandwidth expects a positive number of GB/s, got '" + *bw + "'");
            return std::nullopt;
        }
        setup.devices.link.bytesPerSecond = *value * 1e9;
    }
    if (const auto lat = valueOf(args, "--link-latency")) {
        const auto value = positiveNumber(*lat, true);
        if (!value) {
            usage("--link-latency expects microseconds (>= 0), got '" + *lat + "'");
            return std::nullopt;
        }
        setup.devices.link.latencyUs = *value;
    }
    if (const auto file = valueOf(args, "--devices")) {
        const LinkSpec flags = setup.devices.link;
        auto loaded = loadDeviceFile(*file, problems);
        for (const Diagnostic &d : problems)
            std::cerr << d.toString() << '\n';
        if (!loaded)
            return std::nullopt;
        setup.devices = std::move(*loaded);
        if (!setup.devices.hasLink)
            setup.devices.link = flags;
        for (DeviceSpec &d : setup.devices.devices) {
            if (!d.latency)
                d.latency = base.latency;
            if (!d.memoryBytes)
                d.memoryBytes = memory;
            setup.memoryLimits.push_back(d.memoryBytes);
        }
        return setup.devices.devices.size();
    }
    const std::string stages = valueOf(args, "--stages").value_or("");
    const auto k = positiveNumber(stages);
    if (!k || *k != static_cast<double>(static_cast<std::size_t>(*k)) || *k > 100000) {
        usage("--stages expects a positive whole number, got '" + stages + "'");
        return std::nullopt;
    }
    base.memoryBytes = memory;
    setup.devices.devices.assign(1, base);
    setup.memoryLimits.assign(1, memory);
    return static_cast<std::size_t>(*k);
}

/// Writes the plan file and the export the options ask for.
int saveAndExport(const AutoArguments &args, const PartitionPlan &plan,
                  const BoundaryTable &boundary, const std::vector<Diagnostic> &diagnostics)
{
    if (const auto target = valueOf(args, "--save-plan")) {
        std::string error;
        if (!savePlanFile(plan, *target, &error)) {
            std::cerr << *target << ": error: " << error << '\n';
            return exitBadInput;
        }
    }
    if (const auto dir = valueOf(args, "--out")) {
        ExportOptions options;
        options.diagnostics = diagnostics;
        const ExportResult result = exportPartitions(plan, boundary, options, *dir);
        for (const Diagnostic &d : result.diagnostics)
            std::cerr << *dir << ": " << d.toString() << '\n';
        if (!result.ok)
            return exitInvalidPlan;
        if (!hasFlag(args, "--json"))
            std::cout << "exported " << result.files.size() << " files to " << *dir << '\n';
    }
    return hasErrors(diagnostics) ? exitInvalidPlan : exitOk;
}

int runStages(const AutoArguments &args, const Graph &graph)
{
    CostSetup setup;
    const std::optional<std::size_t> stages = setupCost(args, setup);
    if (!stages)
        return exitBadInput;
    StageSearchOptions options;
    options.stages = *stages;
    const std::string objective = valueOf(args, "--objective").value_or("throughput");
    if (objective != "throughput" && objective != "latency")
        return usage("--objective is throughput or latency, got '" + objective + "'");
    options.objective
        = objective == "latency" ? StageObjective::Latency : StageObjective::Throughput;
    const std::string level = valueOf(args, "--level").value_or("ops");
    if (level != "ops" && level != "blocks")
        return usage("--level is ops or blocks, got '" + level + "'");

    auto view = std::make_shared<const FunctionView>(graph, graph.mainFunction());
    std::optional<CostGraph> cost;
    if (level == "blocks") {
        FusionOptions fusion;
        fusion.foldBatchNorm = hasFlag(args, "--fold-batch-norm");
        fusion.transparentStopFusion = hasFlag(args, "--transparent-stop-fusion");
        cost = CostGraph::buildBlocks(*view, fuseOps(graph, view->function(), fusion),
                                      setup.devices.devices, setup.devices.link);
    } else {
        cost = CostGraph::build(*view, setup.devices.devices, setup.devices.link);
    }
    const StageSearchResult result = searchStages(*cost, options, setup.memoryLimits);
    if (!result.ok) {
        std::cerr << args.positionals.front() << ": error: " << result.error << '\n';
        return exitBadInput;
    }
    std::vector<std::string> targets;
    for (std::size_t k = 0; k < *stages; ++k)
        targets.push_back(
            setup.devices.devices[std::min(k, setup.devices.devices.size() - 1)].target);
    const PartitionPlan plan = planFromStages(view, *cost, result.stageOf, *stages, targets);
    const BoundaryTable boundary = computeBoundary(plan);
    std::vector<Diagnostic> diagnostics = validateAll(plan, boundary);
    const LatencyTable *latency = setup.latency ? &*setup.latency : nullptr;
    if (hasFlag(args, "--json")) {
        nlohmann::json out = planReportJson(plan, boundary, diagnostics, latency);
        out["objective"] = objective;
        out["mode"] = searchModeName(result.mode);
        if (result.mode == SearchMode::Orders)
            out["order"] = result.order;
        out["level"] = level;
        out["bottleneck_us"] = result.bottleneckUs;
        out["total_us"] = result.totalUs;
        out["lower_bound_us"] = result.lowerBoundUs;
        out["transfer_bytes"] = result.transferBytes;
        nlohmann::json times = nlohmann::json::array(), memory = nlohmann::json::array();
        for (const StageCost &s : result.stages) {
            times.push_back(s.timeUs());
            memory.push_back(s.memoryBytes());
        }
        out["stage_times_us"] = times;
        out["stage_memory_bytes"] = memory;
        nlohmann::json baselines = nlohmann::json::array();
        for (const Baseline &b : result.baselines)
            baselines.push_back({ { "name", b.name }, { "bottleneck_us", b.bottleneckUs } });
        out["baselines"] = baselines;
        std::cout << out.dump(2) << '\n';
    } else {
        std::cout << "auto: " << *stages << " stages, objective " << objective << ", mode "
                  << searchModeName(result.mode)
                  << (result.mode == SearchMode::Exact
                          ? " (all convex splits, " + std::to_string(result.ideals) + " downsets)"
                          : " (best of program, branches, min-live-bytes orders; this one: "
                              + result.order + ")")
                  << "\n  bottleneck " << microseconds(result.bottleneckUs) << ", total "
                  << microseconds(result.totalUs) << ", lower bound "
                  << microseconds(result.lowerBoundUs) << ", " << result.transferBytes
                  << " bytes moved\n  stages:";
        for (std::size_t k = 0; k < result.stages.size(); ++k)
            std::cout << ' ' << microseconds(result.stages[k].timeUs());
        std::cout << "\n  baselines:";
        for (const Baseline &b : result.baselines) {
            char ratio[32];
            std::snprintf(ratio, sizeof ratio, "%.2fx",
                          result.bottleneckUs > 0 ? b.bottleneckUs / result.bottleneckUs : 1.0);
            std::cout << ' ' << b.name << ' ' << microseconds(b.bottleneckUs) << " (" << ratio
                      << ")";
        }
        std::cout << "\n\n" << planReportText(plan, boundary, diagnostics, latency);
    }
    return saveAndExport(args, plan, boundary, diagnostics);
}

/// Reads `--targets dnnl=dnnl_ops.json,llvm` and the per-target latencies.
bool setupRegions(const AutoArguments &args, RegionOptions &options,
                  std::vector<std::unique_ptr<LatencyTable>> &tables)
{
    std::vector<Diagnostic> problems;
    std::stringstream list(*valueOf(args, "--targets"));
    std::string item;
    std::vector<std::string> fallbacks;
    while (std::getline(list, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) {
            if (!item.empty())
                fallbacks.push_back(item);
            continue;
        }
        const std::string target = item.substr(0, eq);
        std::vector<OpSupportList> lists = loadOpSupportFile(item.substr(eq + 1), problems);
        OpSupportList merged { target, {} };
        for (const OpSupportList &l : lists)
            merged.ops.insert(l.ops.begin(), l.ops.end());
        options.targets.push_back(std::move(merged));
    }
    for (const Diagnostic &d : problems)
        std::cerr << d.toString() << '\n';
    if (hasErrors(problems))
        return false;
    if (fallbacks.size() > 1 || options.targets.empty()) {
        usage("--targets expects T=OPS.json entries and at most one fallback target, e.g. "
              "dnnl=dnnl_ops.json,llvm");
        return false;
    }
    if (!fallbacks.empty())
        options.fallback = fallbacks.front();
    if (const auto min = valueOf(args, "--min-region")) {
        const auto value = positiveNumber(*min);
        if (!value || *value != static_cast<double>(static_cast<std::size_t>(*value)))
            return usage("--min-region expects a positive whole number, got '" + *min + "'") == 0;
        options.minRegionOps = static_cast<std::size_t>(*value);
    }
    for (const std::string &entry : valuesOf(args, "--latency-per-target")) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos)
            return usage("--latency-per-target expects T=FILE, got '" + entry + "'") == 0;
        auto table = LatencyTable::load(entry.substr(eq + 1), problems);
        for (const Diagnostic &d : problems)
            std::cerr << d.toString() << '\n';
        if (!table)
            return false;
        tables.push_back(std::make_unique<LatencyTable>(std::move(*table)));
        options.latency[entry.substr(0, eq)] = tables.back().get();
    }
    CostSetup setup;
    if (const auto bw = valueOf(args, "--bandwidth")) {
        const auto value = positiveNumber(*bw);
        if (!value)
            return usage("--bandwidth expects a positive number of GB/s, got '" + *bw + "'") == 0;
        options.link.bytesPerSecond = *value * 1e9;
    }
    if (const auto lat = valueOf(args, "--link-latency")) {
        const auto value = positiveNumber(*lat, true);
        if (!value)
            return usage("--link-latency expects microseconds (>= 0), got '" + *lat + "'") == 0;
        options.link.latencyUs = *value;
    }
    if (const auto rate = valueOf(args, "--flops-rate")) {
        const auto value = positiveNumber(*rate);
        if (!value)
            return usage("--flops-rate expects a positive number of GFLOP/s") == 0;
        options.fallbackGflops = *value;
    }
    return true;
}

int runRegions(const AutoArguments &args, const Graph &graph)
{
    RegionOptions options;
    std::vector<std::unique_ptr<LatencyTable>> tables;
    if (!setupRegions(args, options, tables))
        return exitBadInput;
    auto view = std::make_shared<const FunctionView>(graph, graph.mainFunction());
    const RegionResult regions = findTargetRegions(*view, options);
    const PartitionPlan plan = planFromRegions(view, regions);
    const BoundaryTable boundary = computeBoundary(plan);
    std::vector<Diagnostic> diagnostics = validateAll(plan, boundary);
    if (hasFlag(args, "--json")) {
        nlohmann::json out = planReportJson(plan, boundary, diagnostics);
        out["mode"] = "regions";
        out["fallback"] = options.fallback;
        out["notes"] = regions.notes;
        std::cout << out.dump(2) << '\n';
    } else {
        std::cout << "auto: " << regions.regions.size() << " region(s) (fallback "
                  << options.fallback << ")\n";
        for (const std::string &note : regions.notes)
            std::cout << "  " << note << '\n';
        std::cout << '\n' << planReportText(plan, boundary, diagnostics);
    }
    return saveAndExport(args, plan, boundary, diagnostics);
}

} // namespace

std::vector<std::string_view> autoFlags()
{
    return { "--json", "--fold-batch-norm", "--transparent-stop-fusion" };
}

std::vector<std::string_view> autoOptions()
{
    return { "--stages",    "--devices",    "--objective",  "--memory-limit",
             "--latency",   "--flops-rate", "--bandwidth",  "--link-latency",
             "--level",     "--targets",    "--min-region", "--latency-per-target",
             "--save-plan", "--out" };
}

int runAuto(const AutoArguments &args)
{
    const int modes = (valueOf(args, "--stages") ? 1 : 0) + (valueOf(args, "--devices") ? 1 : 0)
        + (valueOf(args, "--targets") ? 1 : 0);
    if (modes != 1)
        return usage("give exactly one of --stages K, --devices FILE or --targets LIST");
    ImportResult imported = importFile(args.positionals.front());
    for (const Diagnostic &d : imported.diagnostics)
        std::cerr << d.toString() << '\n';
    if (!imported.ok()) {
        if (imported.diagnostics.empty())
            std::cerr << args.positionals.front() << ": error: the model could not be read\n";
        return exitBadInput;
    }
    if (valueOf(args, "--targets"))
        return runRegions(args, *imported.graph);
    return runStages(args, *imported.graph);
}

} // namespace cleave::cli
