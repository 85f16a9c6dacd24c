// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli auto`: balanced pipeline stages or target-driven BYOC regions, proposed as an
// ordinary plan (issue 15).
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/LatencyTable.h"
#include "core/auto/AutoPlan.h"
#include "core/auto/DeviceFile.h"
#include "core/auto/StageSearch.h"
#include "core/auto/TargetRegions.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanFile.h"
#include "core/partition/PlanReport.h"
#include "core/session/PlanPipeline.h"
#include "core/support/FileIo.h"
#include "core/validation/Validation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

namespace cleave::cli {

namespace {

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

/// --bandwidth, --link-latency and --flops-rate, in the ranges a device file allows: a
/// bandwidth of 1e-320 GB/s or a rate of 1e-300 GFLOPS would make every time infinite.
bool readRates(const Arguments &args, const CommandContext &context, LinkSpec &link, double &gflops)
{
    if (const auto bw = args.value("--bandwidth")) {
        const auto value = parseBandwidth(*bw);
        if (!value)
            return context.usageError("--bandwidth expects GB/s from 0.000001 to 1e9 (or a "
                                      "rate such as 12GB/s), got '"
                                      + *bw + "'")
                == 0;
        link.bytesPerSecond = *value;
    }
    if (const auto lat = args.value("--link-latency")) {
        const auto value = parseDurationUs(*lat);
        if (!value)
            return context.usageError("--link-latency expects microseconds from 0 to 3.6e9 (an "
                                      "hour), got '"
                                      + *lat + "'")
                == 0;
        link.latencyUs = *value;
    }
    if (const auto rate = args.value("--flops-rate")) {
        const auto value = positiveNumber(*rate);
        if (!value || *value < minGflops || *value > maxGflops)
            return context.usageError("--flops-rate expects GFLOP/s from 0.001 to 1e9, got '"
                                      + *rate + "'")
                == 0;
        gflops = *value;
    }
    return true;
}

/// Everything the cost model needs, owned here so that DeviceSpecs can point into it.
struct CostSetup
{
    std::optional<LatencyTable> latency;
    DeviceSet devices;
    std::vector<std::optional<std::int64_t>> memoryLimits;
};

/// Reads --devices or --stages and the cost flags; prints what is wrong.
std::optional<std::size_t> setupCost(const Arguments &args, const CommandContext &context,
                                     CostSetup &setup)
{
    std::vector<Diagnostic> problems;
    if (const auto file = args.value("--latency")) {
        setup.latency = LatencyTable::load(*file, problems);
        if (!setup.latency) {
            for (const Diagnostic &d : problems)
                context.err << d.toString() << '\n';
            return std::nullopt;
        }
    }
    DeviceSpec base;
    base.latency = setup.latency ? &*setup.latency : nullptr;
    if (!readRates(args, context, setup.devices.link, base.gflops))
        return std::nullopt;
    // A measured table (cleave-cli profile) also says what a hand-off costs there (the flags win
    // over it); its stage run cost reaches the cost model through the devices' table.
    if (setup.latency && setup.latency->calibration()) {
        const LatencyCalibration &cal = *setup.latency->calibration();
        if (cal.handoffUs && !args.has("--link-latency"))
            setup.devices.link.latencyUs = *cal.handoffUs;
        if (cal.copyBytesPerSecond && !args.has("--bandwidth"))
            setup.devices.link.bytesPerSecond = *cal.copyBytesPerSecond;
    }
    std::optional<std::int64_t> memory;
    if (const auto limit = args.value("--memory-limit")) {
        memory = parseByteSize(*limit);
        if (!memory || *memory <= 0) {
            context.usageError("--memory-limit expects a size such as 16GiB or 512000000, got '"
                               + *limit + "'");
            return std::nullopt;
        }
    }
    if (const auto file = args.value("--devices")) {
        const LinkSpec flags = setup.devices.link;
        auto loaded = loadDeviceFile(*file, problems);
        for (const Diagnostic &d : problems)
            context.err << d.toString() << '\n';
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
    const std::string stages = args.value("--stages").value_or("");
    const auto k = positiveNumber(stages);
    if (!k || *k != static_cast<double>(static_cast<std::size_t>(*k)) || *k > 100000) {
        context.usageError("--stages expects a positive whole number, got '" + stages + "'");
        return std::nullopt;
    }
    base.memoryBytes = memory;
    setup.devices.devices.assign(1, base);
    setup.memoryLimits.assign(1, memory);
    return static_cast<std::size_t>(*k);
}

/// Writes the plan file and the export the options ask for (through the plan pipeline, which
/// refuses an invalid plan).
int saveAndExport(const Arguments &args, const CommandContext &context,
                  const PlanPipeline &pipeline, const PartitionPlan &plan,
                  const CheckedPlan &checked, const std::vector<StageCost> &predicted = {},
                  const std::string &costModel = {})
{
    if (const auto target = args.value("--save-plan")) {
        std::string error;
        if (!savePlanFile(plan, *target, &error)) {
            context.err << *target << ": error: " << error << " [plan.write]\n";
            return exitBadInput;
        }
    }
    if (const auto dir = args.value("--out")) {
        ExportOptions options;
        for (const StageCost &s : predicted)
            options.predictedUs.push_back(s.computeUs + s.overheadUs);
        options.costModel = costModel;
        const ExportResult result = pipeline.exportPlan(plan, options, *dir);
        for (const Diagnostic &d : result.diagnostics)
            context.err << *dir << ": " << d.toString() << '\n';
        if (!result.ok)
            return exitInvalidPlan;
        if (!args.has("--json"))
            context.out << "exported " << result.files.size() << " files to " << *dir << '\n';
    }
    return checked.valid() ? exitOk : exitInvalidPlan;
}

/// `--json`: the plan's stage times and memory, and each baseline's stage times.
void addStagesJson(nlohmann::json &out, const std::vector<StageCost> &planStages,
                   const std::vector<Baseline> &baselines)
{
    nlohmann::json times = nlohmann::json::array();
    nlohmann::json memory = nlohmann::json::array();
    for (const StageCost &s : planStages) {
        times.push_back(s.timeUs());
        memory.push_back(s.memoryBytes());
    }
    out["stage_times_us"] = times;
    out["stage_memory_bytes"] = memory;
    nlohmann::json list = nlohmann::json::array();
    for (const Baseline &b : baselines) {
        nlohmann::json bt = nlohmann::json::array();
        for (const StageCost &s : b.stages)
            bt.push_back(s.timeUs());
        list.push_back(
            { { "name", b.name }, { "bottleneck_us", b.bottleneckUs }, { "stage_times_us", bt } });
    }
    out["baselines"] = list;
}

int runStages(const Arguments &args, const CommandContext &context, const Graph &graph,
              FunctionId function)
{
    CostSetup setup;
    const std::optional<std::size_t> stages = setupCost(args, context, setup);
    if (!stages)
        return exitBadInput;
    StageSearchOptions options;
    options.stages = *stages;
    const std::string objective = args.value("--objective").value_or("throughput");
    if (objective != "throughput" && objective != "latency")
        return context.usageError("--objective is throughput or latency, got '" + objective + "'");
    options.objective
        = objective == "latency" ? StageObjective::Latency : StageObjective::Throughput;
    const std::string level = args.value("--level").value_or("blocks");
    if (level != "ops" && level != "blocks")
        return context.usageError("--level is ops or blocks, got '" + level + "'");

    auto view = std::make_shared<const FunctionView>(
        graph, function.isValid() ? function : graph.mainFunction());
    std::optional<CostGraph> cost;
    if (level == "blocks") {
        FusionOptions fusion;
        fusion.foldBatchNorm = args.has("--fold-batch-norm");
        fusion.transparentStopFusion = args.has("--transparent-stop-fusion");
        cost = CostGraph::buildBlocks(*view, fuseOps(graph, view->function(), fusion),
                                      setup.devices.devices, setup.devices.link);
    } else {
        cost = CostGraph::build(*view, setup.devices.devices, setup.devices.link);
    }
    const StageSearchResult result = searchStages(*cost, options, setup.memoryLimits);
    if (!result.ok) {
        context.err << args.positionals.front() << ": error: " << result.error << " ["
                    << result.errorCode << "]\n";
        return exitBadInput;
    }
    // --baseline: the plan another tool would make, to export and run beside the optimum.
    const Baseline *baseline = nullptr;
    if (const auto name = args.value("--baseline")) {
        for (const Baseline &b : result.baselines)
            baseline = b.name == *name ? &b : baseline;
        if (!baseline)
            return context.usageError("--baseline is uniform, parameters or flops, got '" + *name
                                      + "'");
    }
    const std::vector<std::int32_t> &stageOf = baseline ? baseline->stageOf : result.stageOf;
    const std::vector<StageCost> &planStages = baseline ? baseline->stages : result.stages;
    std::string costModel = setup.latency ? "latency table" : "FLOPs";
    if (setup.latency && !setup.latency->provenance().empty())
        costModel += " (" + setup.latency->provenance() + ")";
    std::vector<std::string> targets;
    for (std::size_t k = 0; k < *stages; ++k)
        targets.push_back(
            setup.devices.devices[std::min(k, setup.devices.devices.size() - 1)].target);
    const PartitionPlan plan = planFromStages(view, *cost, stageOf, *stages, targets);
    if (const auto problem = stageCountProblem(plan, *cost, *stages)) {
        context.err << args.positionals.front() << ": error: " << *problem
                    << " [auto.stage_count]\n";
        return exitBadInput;
    }
    const PlanPipeline pipeline(graph, EngineSettings {});
    const CheckedPlan checked = pipeline.check(plan);
    const BoundaryTable &boundary = checked.boundary;
    const std::vector<Diagnostic> &diagnostics = checked.diagnostics;
    const LatencyTable *latency = setup.latency ? &*setup.latency : nullptr;
    if (args.has("--json")) {
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
        if (result.usefulStages > 0)
            out["useful_stages"] = result.usefulStages;
        if (baseline)
            out["plan"] = "baseline " + baseline->name;
        addStagesJson(out, planStages, result.baselines);
        context.out << out.dump(2) << '\n';
    } else {
        context.out << "auto: " << *stages << " stages, objective " << objective << ", mode "
                    << searchModeName(result.mode)
                    << (result.mode == SearchMode::Exact
                            ? " (all convex splits, " + std::to_string(result.ideals) + " downsets)"
                            : " (best of program, branches, min-live-bytes orders; this one: "
                                + result.order + ")")
                    << "\n  bottleneck " << microseconds(result.bottleneckUs) << ", total "
                    << microseconds(result.totalUs) << ", lower bound "
                    << microseconds(result.lowerBoundUs) << ", " << result.transferBytes
                    << " bytes moved\n  stages:";
        for (const StageCost &s : result.stages)
            context.out << ' ' << microseconds(s.timeUs());
        if (result.usefulStages > 0)
            context.out << "\n  note: " << result.usefulStages << " stages reach this bottleneck; "
                        << "more cannot lower it (a unit or the transfers into a stage set it), "
                           "so the other "
                        << *stages - result.usefulStages << " hold little: ask for "
                        << result.usefulStages << " stages";
        if (baseline) {
            context.out << "\n  plan: baseline " << baseline->name << " (not the optimum), stages:";
            for (const StageCost &s : planStages)
                context.out << ' ' << microseconds(s.timeUs());
        }
        context.out << "\n  baselines:";
        for (const Baseline &b : result.baselines) {
            char ratio[32];
            std::snprintf(ratio, sizeof ratio, "%.2fx",
                          result.bottleneckUs > 0 ? b.bottleneckUs / result.bottleneckUs : 1.0);
            context.out << ' ' << b.name << ' ' << microseconds(b.bottleneckUs) << " (" << ratio
                        << ")";
        }
        context.out << "\n\n" << planReportText(plan, boundary, diagnostics, latency);
    }
    return saveAndExport(args, context, pipeline, plan, checked, planStages, costModel);
}

/// Reads `--targets dnnl=dnnl_ops.json,llvm` and the per-target latencies.
bool setupRegions(const Arguments &args, const CommandContext &context, RegionOptions &options,
                  std::vector<std::unique_ptr<LatencyTable>> &tables)
{
    std::vector<Diagnostic> problems;
    std::stringstream list(*args.value("--targets"));
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
        context.err << d.toString() << '\n';
    if (hasErrors(problems))
        return false;
    if (fallbacks.size() > 1 || options.targets.empty()) {
        context.usageError(
            "--targets expects T=OPS.json entries and at most one fallback target, e.g. "
            "dnnl=dnnl_ops.json,llvm");
        return false;
    }
    if (!fallbacks.empty())
        options.fallback = fallbacks.front();
    if (const auto min = args.value("--min-region")) {
        const auto value = positiveNumber(*min);
        if (!value || *value != static_cast<double>(static_cast<std::size_t>(*value)))
            return context.usageError("--min-region expects a positive whole number, got '" + *min
                                      + "'")
                == 0;
        options.minRegionOps = static_cast<std::size_t>(*value);
    }
    for (const std::string &entry : args.values("--latency-per-target")) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos)
            return context.usageError("--latency-per-target expects T=FILE, got '" + entry + "'")
                == 0;
        auto table = LatencyTable::load(entry.substr(eq + 1), problems);
        for (const Diagnostic &d : problems)
            context.err << d.toString() << '\n';
        if (!table)
            return false;
        tables.push_back(std::make_unique<LatencyTable>(std::move(*table)));
        options.latency[entry.substr(0, eq)] = tables.back().get();
    }
    return readRates(args, context, options.link, options.fallbackGflops);
}

int runRegions(const Arguments &args, const CommandContext &context, const Graph &graph,
               FunctionId function)
{
    RegionOptions options;
    std::vector<std::unique_ptr<LatencyTable>> tables;
    if (!setupRegions(args, context, options, tables))
        return exitBadInput;
    auto view = std::make_shared<const FunctionView>(
        graph, function.isValid() ? function : graph.mainFunction());
    const RegionResult regions = findTargetRegions(*view, options);
    const PartitionPlan plan = planFromRegions(view, regions);
    const PlanPipeline pipeline(graph, EngineSettings {});
    const CheckedPlan checked = pipeline.check(plan);
    const BoundaryTable &boundary = checked.boundary;
    const std::vector<Diagnostic> &diagnostics = checked.diagnostics;
    if (args.has("--json")) {
        nlohmann::json out = planReportJson(plan, boundary, diagnostics);
        out["mode"] = "regions";
        out["fallback"] = options.fallback;
        out["notes"] = regions.notes;
        context.out << out.dump(2) << '\n';
    } else {
        context.out << "auto: " << regions.regions.size() << " region(s) (fallback "
                    << options.fallback << ")\n";
        for (const std::string &note : regions.notes)
            context.out << "  " << note << '\n';
        context.out << '\n' << planReportText(plan, boundary, diagnostics);
    }
    return saveAndExport(args, context, pipeline, plan, checked);
}

int runAuto(const Arguments &args, const CommandContext &context)
{
    const int modes = (args.value("--stages") ? 1 : 0) + (args.value("--devices") ? 1 : 0)
        + (args.value("--targets") ? 1 : 0);
    if (modes != 1)
        return context.usageError(
            "give exactly one of --stages K, --devices FILE or --targets LIST");
    for (const char *regionsOnly : { "--min-region", "--latency-per-target" }) {
        if (args.value(regionsOnly) && !args.value("--targets"))
            return context.usageError(std::string(regionsOnly)
                                      + " applies to --targets only (BYOC regions), not to stages");
    }
    ImportResult imported = importFile(args.positionals.front());
    for (const Diagnostic &d : imported.diagnostics)
        context.err << d.toString() << '\n';
    if (!imported.ok()) {
        if (imported.diagnostics.empty())
            context.err << args.positionals.front()
                        << ": error: the model could not be read [import.unreadable]\n";
        return exitBadInput;
    }
    FunctionId function;
    if (!chooseFunction(*imported.graph, args, args.positionals.front(), function, context.err))
        return exitBadInput;
    if (args.value("--targets"))
        return runRegions(args, context, *imported.graph, function);
    return runStages(args, context, *imported.graph, function);
}

} // namespace

Command autoCommand()
{
    return {
        "auto",
        "MODEL (--stages K | --devices FILE | --targets T=OPS.json,...,FALLBACK) "
        "[--objective throughput|latency] [--memory-limit BYTES] [--latency FILE] "
        "[--flops-rate GFLOPS] [--bandwidth GBPS] [--link-latency US] [--level ops|blocks] "
        "[--baseline uniform|parameters|flops] [--min-region OPS] [--function NAME] "
        "[--save-plan FILE] [--out DIR] [--json]",
        "Propose a plan: K balanced pipeline stages (optimal for the cost model), or BYOC "
        "regions from op-support lists; print it with the baselines and optionally save or "
        "export it.",
        "  --stages K            split into K pipeline stages (convex, in topological order)\n"
        "  --devices FILE        one stage per device: {\"devices\": [{\"name\", \"target\",\n"
        "                        \"gflops\", \"memory\": \"16GiB\", \"latency\": FILE}, ...],\n"
        "                        \"links\": {\"bandwidth\": \"12GB/s\", \"latency\": \"20us\"}}\n"
        "  --objective O         throughput (default: the slowest stage, ties: fewer bytes\n"
        "                        moved) or latency (the sum of the stages)\n"
        "  --memory-limit BYTES  per stage: parameters + peak activations (16GiB, 512MB, ...)\n"
        "  --latency FILE        measured latencies ({\"ops\": {op: us}, \"nodes\": {key: us}});\n"
        "                        a table from `cleave-cli profile` also sets each stage's\n"
        "                        fixed run time and the link (hand-off latency, copy\n"
        "                        bandwidth) from its calibration, unless the flags do\n"
        "  --flops-rate GFLOPS   time of nodes without a latency: FLOPs / rate (default 1000)\n"
        "  --bandwidth GBPS      link bandwidth in GB/s, 10^9 bytes per second (default 10)\n"
        "  --link-latency US     per-transfer latency in microseconds (default 20)\n"
        "  --level ops|blocks    unit of placement: whole fused blocks, never split (the\n"
        "                        default; formed with --fold-batch-norm and the other\n"
        "                        fusion flags of `partition`), or single ops\n"
        "  --targets LIST        regions mode: T=OPS.json entries in priority order, then the\n"
        "                        fallback target (e.g. dnnl=dnnl_ops.json,llvm)\n"
        "  --min-region OPS      regions with fewer ops stay on the fallback (default 1)\n"
        "  --latency-per-target T=FILE\n"
        "                        measured latencies of a target (repeatable): a region whose\n"
        "                        transfers cost more than it gains stays on the fallback\n"
        "  --function NAME       partition this function of the module (default: main)\n"
        "  --save-plan FILE      write the plan file (the editor, validate and partition take\n"
        "                        it as it is)\n"
        "  --baseline NAME       save / export the plan of a baseline instead of the optimum:\n"
        "                        uniform (op count), parameters (bytes) or flops, contiguous\n"
        "                        splits of program order as other tools make them\n"
        "  --out DIR             export the plan as `partition --out` does; partitions.json\n"
        "                        gets each stage's predicted_us (compute + fixed run time)\n"
        "  --json                print the `partition --json` report plus objective, mode\n"
        "                        (exact | orders | regions), bottleneck_us, lower_bound_us,\n"
        "                        stage_times_us, baselines [{name, bottleneck_us,\n"
        "                        stage_times_us}] and, when fewer stages reach the same\n"
        "                        bottleneck, useful_stages\n",
        { "--json", "--fold-batch-norm", "--transparent-stop-fusion" },
        1,
        runAuto,
        { "--stages", "--devices", "--objective", "--memory-limit", "--latency", "--flops-rate",
          "--bandwidth", "--link-latency", "--level", "--targets", "--min-region",
          "--latency-per-target", "--function", "--save-plan", "--out", "--baseline" }
    };
}

} // namespace cleave::cli
