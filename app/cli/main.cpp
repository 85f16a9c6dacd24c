// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// cleave-cli: the engine without the editor. Each subcommand is one row of the command table;
// this file only parses arguments and wires them to core.
#include "core/analysis/BlockReport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/KernelMapping.h"
#include "core/analysis/LatencyTable.h"
#include "core/analysis/ModelSummary.h"
#include "core/export/Exporter.h"
#include "core/io/FileIo.h"
#include "core/io/Importer.h"
#include "core/partition/BlockCuts.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/PlanConversion.h"
#include "core/partition/PlanFile.h"
#include "core/partition/PlanReport.h"
#include "core/validation/Validation.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Exit status as DESIGN.md fixes it.
constexpr int exitOk = 0;
constexpr int exitInvalidPlan = 1;
constexpr int exitBadInput = 2;

/// The arguments of one subcommand: positionals in order, the flags that were given, and the
/// options with their values (an option may repeat).
struct Arguments
{
    std::vector<std::string> positionals;
    std::vector<std::string> flags;
    std::vector<std::pair<std::string, std::string>> options;

    [[nodiscard]] bool has(std::string_view flag) const
    {
        return std::find(flags.begin(), flags.end(), flag) != flags.end();
    }
    /// Every value given for `option`, in order.
    [[nodiscard]] std::vector<std::string> values(std::string_view option) const
    {
        std::vector<std::string> out;
        for (const auto &[name, value] : options) {
            if (name == option)
                out.push_back(value);
        }
        return out;
    }
    /// The last value given for `option`.
    [[nodiscard]] std::optional<std::string> value(std::string_view option) const
    {
        const std::vector<std::string> all = values(option);
        return all.empty() ? std::nullopt : std::optional<std::string>(all.back());
    }
};

struct Command
{
    std::string_view name;
    std::string_view synopsis; ///< Arguments after the command name.
    std::string_view summary;
    std::string_view details; ///< Option descriptions for `<command> --help`.
    std::vector<std::string_view> flags; ///< Flags the command accepts (besides --help).
    std::size_t positionals; ///< Exactly this many positional arguments.
    int (*run)(const Arguments &args);
    std::vector<std::string_view> options = {}; ///< Options taking a value (`--plan FILE`).
};

// The options of the FuseOps-style grouping, shared by the commands that form blocks.
#define FUSION_OPTIONS_HELP                                                                        \
    "  --fold-batch-norm   group as after SimplifyInference: batch_norm acts as its folded add\n" \
    "  --transparent-stop-fusion\n"                                                              \
    "                      let blocks grow across annotation.stop_fusion\n"                      \
    "  --op-patterns FILE  {\"op\": \"injective\", ...}: extra or overriding op patterns\n"

int runInspect(const Arguments &args);
int runValidate(const Arguments &args);
int runPartition(const Arguments &args);
int runMap(const Arguments &args);
int runVerify(const Arguments &args);
int exportPlan(const cleave::PartitionPlan &plan, const cleave::BoundaryTable &boundary,
               const std::vector<cleave::Diagnostic> &diagnostics, const Arguments &args,
               const std::string &dir);

const std::vector<Command> &commands()
{
    static const std::vector<Command> table = {
        { "inspect",
          "MODEL [--json] [--blocks [FUSION OPTIONS]]",
          "Summarise a model: format, functions, op histogram, inputs, outputs, fused blocks, "
          "constants.",
          "  --json     print one JSON object instead of the text report\n"
          "  --blocks   list every fused block with its op histogram, and the FuseOps-style\n"
          "             kernels of the main function (JSON: \"blocks\")\n"
          FUSION_OPTIONS_HELP,
          { "--json", "--blocks", "--fold-batch-norm", "--transparent-stop-fusion" },
          1,
          runInspect,
          { "--op-patterns" } },
        { "validate",
          "MODEL --plan PLAN.json [--json] [--op-support FILE] [--latency FILE] [--force]",
          "Validate a partition plan against a model; exit 1 when the plan is invalid.",
          "  --plan FILE        the plan file to check (required)\n"
          "  --op-support FILE  {\"target\": ..., \"ops\": [...]} list(s): flag ops a target "
          "lacks\n"
          "  --latency FILE     measured latencies: report each partition's share and the\n"
          "                     bottleneck (cost.balance)\n"
          "  --force            accept a plan made for a model with another checksum\n"
          "  --json             print {\"valid\", \"diagnostics\"} as JSON\n",
          { "--json", "--force" },
          1,
          runValidate,
          { "--plan", "--op-support", "--latency" } },
        { "partition",
          "MODEL [(--cut-after OP:INDEX | --cut-after-block NAME[:INDEX])... | --plan PLAN.json] "
          "[--dry-run] [--json] "
          "[--save-plan FILE] [--out DIR [--lift-constants] [--targets T0,T1,...]]",
          "Partition a model and print the partitions (ops, FLOPs, params), the boundary "
          "tensors and the diagnostics.",
          "  --cut-after OP:INDEX  cut after the INDEX-th (0-based) call of OP in program order,\n"
          "                        as TVM's graph_split does; repeat for several cuts\n"
          "  --cut-after-block NAME[:INDEX]\n"
          "                        cut after the INDEX-th fused block (FuseOps kernel) named\n"
          "                        NAME, e.g. nn_conv2d_add_nn_relu:2; repeatable; the blocks\n"
          "                        are formed with the options below\n"
          FUSION_OPTIONS_HELP
          "  --plan FILE           start from a saved plan instead\n"
          "  --function NAME       partition this function of the module (default: main)\n"
          "  --op-support FILE     check ops against per-target op-support lists\n"
          "  --latency FILE        measured latencies ({\"ops\": {op: us}, \"nodes\": {key: us}}):\n"
          "                        a latency column and the pipeline's bottleneck\n"
          "  --save-plan FILE      write the resulting plan (not with --dry-run)\n"
          "  --out DIR             export: mod<k>.relay, pipeline_config.json, partitions.json,\n"
          "                        build_pipeline.py (+ byoc.relay, byoc_annotated.relay for\n"
          "                        BYOC targets); DIR is replaced atomically\n"
          "  --lift-constants      with --out: constants become trailing parameters const_<i>\n"
          "                        (order of first use), listed in partitions.json\n"
          "  --targets T0,T1,...   with --out: the target of each partition, in order\n"
          "  --dry-run             only print; write nothing\n"
          "  --force               accept a plan made for a model with another checksum\n"
          "  --json                print {\"partitions\", \"boundary\", \"diagnostics\"} as JSON\n",
          { "--json", "--dry-run", "--force", "--fold-batch-norm", "--transparent-stop-fusion",
            "--lift-constants" },
          1,
          runPartition,
          { "--cut-after", "--cut-after-block", "--plan", "--function", "--save-plan", "--op-support",
            "--latency", "--op-patterns", "--out", "--targets" } },
        { "verify",
          "DIR",
          "Re-import an export's modules, wire them by pipeline_config.json and check that they "
          "recompose the source model; exit 1 with the first difference.",
          "",
          {},
          1,
          runVerify },
        { "map",
          "GRAPH.json MODEL [--json] [--plan PLAN.json --save-plan OUT.json]",
          "Map each kernel of a TVM graph.json onto the Relay ops it was built from; exit 1 "
          "when a kernel or an op stays unmatched.",
          "  --json            print {\"kernels\": [{name, func_name, node_index, entries, ops,\n"
          "                    relay_nodes, matched, problem?}], \"unmatched_relay_nodes\", ...}\n"
          "  --plan FILE       a plan made for either model: convert it to the other level\n"
          "                    (a cut between kernels becomes a cut between their op groups)\n"
          "  --save-plan FILE  where to write the converted plan (with --plan)\n",
          { "--json" },
          2,
          runMap,
          { "--plan", "--save-plan" } },
    };
    return table;
}

void printUsage(std::ostream &out)
{
    out << "Usage: cleave-cli <command> [arguments]\n"
           "       cleave-cli --help | --version\n\n"
           "Commands:\n";
    for (const Command &c : commands())
        out << "  " << c.name << ' ' << c.synopsis << "\n      " << c.summary << '\n';
    out << "\nRun 'cleave-cli <command> --help' for a command's options.\n"
           "Exit status: 0 success, 1 invalid partition plan, 2 bad input or usage.\n";
}

void printCommandHelp(const Command &c, std::ostream &out)
{
    out << "Usage: cleave-cli " << c.name << ' ' << c.synopsis << "\n\n"
        << c.summary << "\n\nOptions:\n"
        << c.details << "  -h, --help print this help\n";
}

int usageError(const std::string &message, const Command *command)
{
    std::cerr << "cleave-cli: " << message << "\n\n";
    if (command)
        printCommandHelp(*command, std::cerr);
    else
        printUsage(std::cerr);
    return exitBadInput;
}

/// The fusion options the flags ask for; the pattern table, when a file extends it, is kept in
/// `patterns` (options.patterns points to it). Prints what went wrong.
bool fusionOptions(const Arguments &args, cleave::FusionOptions &options,
                   std::optional<cleave::OpPatternTable> &patterns)
{
    options.foldBatchNorm = args.has("--fold-batch-norm");
    options.transparentStopFusion = args.has("--transparent-stop-fusion");
    const auto file = args.value("--op-patterns");
    if (!file)
        return true;
    const std::optional<std::string> text = cleave::readFile(*file);
    if (!text) {
        std::cerr << *file << ": error: cannot open the op pattern file\n";
        return false;
    }
    patterns = cleave::OpPatternTable::builtin();
    std::vector<cleave::Diagnostic> problems;
    const bool ok = patterns->loadJson(*text, *file, problems);
    for (const cleave::Diagnostic &d : problems)
        std::cerr << d.toString() << '\n';
    options.patterns = &*patterns;
    return ok;
}

int runInspect(const Arguments &args)
{
    const cleave::ImportResult result = cleave::importFile(args.positionals.front());
    for (const cleave::Diagnostic &d : result.diagnostics)
        std::cerr << d.toString() << '\n';
    if (!result.ok()) {
        if (result.diagnostics.empty())
            std::cerr << args.positionals.front() << ": error: the model could not be read\n";
        return exitBadInput;
    }
    const cleave::ModelSummary summary = cleave::ModelSummary::compute(*result.graph);
    const cleave::Graph &graph = *result.graph;
    std::vector<cleave::FusedBlock> blocks;
    cleave::FusionOptions fusion;
    std::optional<cleave::OpPatternTable> patterns;
    if (!fusionOptions(args, fusion, patterns))
        return exitBadInput;
    if (args.has("--blocks"))
        blocks = cleave::fuseOps(graph, graph.mainFunction(), fusion);
    if (args.has("--json")) {
        nlohmann::json json = summary.toJson();
        if (args.has("--blocks"))
            json["blocks"] = cleave::fusedBlocksToJson(graph, blocks);
        std::cout << json.dump(2) << '\n';
    } else {
        std::cout << summary.toText(args.has("--blocks"));
        if (args.has("--blocks"))
            std::cout << cleave::fusedBlocksToText(graph, blocks);
    }
    return exitOk;
}

const Command *findCommand(std::string_view name)
{
    for (const Command &c : commands()) {
        if (c.name == name)
            return &c;
    }
    return nullptr;
}

/// Imports the model; prints its diagnostics. Null when it cannot be used.
std::unique_ptr<cleave::Graph> importModel(const std::string &path)
{
    cleave::ImportResult result = cleave::importFile(path);
    for (const cleave::Diagnostic &d : result.diagnostics)
        std::cerr << d.toString() << '\n';
    if (!result.ok()) {
        if (result.diagnostics.empty())
            std::cerr << path << ": error: the model could not be read\n";
        return nullptr;
    }
    return std::move(result.graph);
}

/// Loads the plan file and the op-support lists; prints what went wrong. Load warnings are
/// kept in `notes` to be reported with the validation findings.
std::optional<cleave::PartitionPlan> loadPlan(const cleave::Graph &graph, const Arguments &args,
                                              std::vector<cleave::Diagnostic> &notes)
{
    cleave::PlanLoadOptions options;
    options.force = args.has("--force");
    cleave::PlanLoadResult loaded = cleave::loadPlanFile(graph, *args.value("--plan"), options);
    for (cleave::Diagnostic &d : loaded.diagnostics) {
        if (!loaded.ok())
            std::cerr << d.toString() << '\n';
        else
            notes.push_back(std::move(d));
    }
    if (!loaded.ok())
        return std::nullopt;
    return std::move(loaded.plan);
}

/// Loads the op-support lists (--op-support) and the latency table (--latency, kept in
/// `latency`, which options.latency then points to); prints what went wrong.
bool loadCheckOptions(const Arguments &args, cleave::ValidationOptions &options,
                      std::optional<cleave::LatencyTable> &latency)
{
    std::vector<cleave::Diagnostic> problems;
    for (const std::string &file : args.values("--op-support")) {
        for (cleave::OpSupportList &l : cleave::loadOpSupportFile(file, problems))
            options.opSupport.push_back(std::move(l));
    }
    if (const auto file = args.value("--latency")) {
        latency = cleave::LatencyTable::load(*file, problems);
        options.latency = latency ? &*latency : nullptr;
    }
    for (const cleave::Diagnostic &d : problems)
        std::cerr << d.toString() << '\n';
    return !cleave::hasErrors(problems);
}

int runValidate(const Arguments &args)
{
    if (!args.value("--plan"))
        return usageError("validate needs --plan PLAN.json", findCommand("validate"));
    const auto graph = importModel(args.positionals.front());
    if (!graph)
        return exitBadInput;
    std::vector<cleave::Diagnostic> diagnostics;
    std::optional<cleave::PartitionPlan> plan = loadPlan(*graph, args, diagnostics);
    cleave::ValidationOptions options;
    std::optional<cleave::LatencyTable> latency;
    if (!plan || !loadCheckOptions(args, options, latency))
        return exitBadInput;
    for (cleave::Diagnostic &d : cleave::validateAll(*plan, options))
        diagnostics.push_back(std::move(d));
    const bool valid = !cleave::hasErrors(diagnostics);
    if (args.has("--json")) {
        const nlohmann::json out { { "valid", valid },
                                   { "diagnostics",
                                     cleave::diagnosticsToJson(&*plan, *graph, diagnostics) } };
        std::cout << out.dump(2) << '\n';
    } else {
        for (const cleave::Diagnostic &d : diagnostics)
            std::cout << d.toString() << '\n';
        std::cout << (valid ? "plan is valid" : "plan is invalid") << " (" << plan->partitionCount()
                  << " partitions)\n";
    }
    return valid ? exitOk : exitInvalidPlan;
}

/// Parses `NAME:INDEX` (or, when the index is optional, `NAME` meaning `NAME:0`).
std::optional<std::pair<std::string, std::size_t>> parseSplitPoint(const std::string &text,
                                                                   bool indexOptional = false)
{
    const auto colon = text.rfind(':');
    if (colon == std::string::npos)
        return indexOptional && !text.empty()
            ? std::optional(std::pair<std::string, std::size_t>(text, 0))
            : std::nullopt;
    const std::string index = text.substr(colon + 1);
    if (colon == 0 || index.empty() || index.size() > 9
        || index.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return std::pair<std::string, std::size_t>(text.substr(0, colon), std::stoul(index));
}

int runPartition(const Arguments &args)
{
    const std::vector<std::string> cuts = args.values("--cut-after");
    const std::vector<std::string> blockCuts = args.values("--cut-after-block");
    if ((!cuts.empty() || !blockCuts.empty()) && args.value("--plan"))
        return usageError("give either --cut-after / --cut-after-block or --plan, not both",
                          findCommand("partition"));
    std::vector<cleave::SplitPoint> points;
    for (const std::string &cut : cuts) {
        const auto point = parseSplitPoint(cut);
        if (!point)
            return usageError("--cut-after expects OP:INDEX (e.g. add:0), got '" + cut + "'",
                              findCommand("partition"));
        points.push_back({ point->first, point->second });
    }
    std::vector<cleave::BlockSplitPoint> blockPoints;
    for (const std::string &cut : blockCuts) {
        const auto point = parseSplitPoint(cut, true);
        if (!point)
            return usageError("--cut-after-block expects NAME[:INDEX] (e.g. "
                                  "nn_conv2d_add_nn_relu:2), got '" + cut + "'",
                              findCommand("partition"));
        blockPoints.push_back({ point->first, point->second });
    }
    const auto graph = importModel(args.positionals.front());
    if (!graph)
        return exitBadInput;
    std::vector<cleave::Diagnostic> diagnostics;
    std::optional<cleave::PartitionPlan> plan;
    const auto functionName = args.value("--function"); // Relax modules have several
    const cleave::FunctionId function = functionName ? graph->findFunction(*functionName) : cleave::FunctionId {};
    if (functionName && (!function.isValid() || !graph->function(function).sourceText.empty())) {
        std::cerr << args.positionals.front() << ": error: the model has no dataflow function '"
                  << *functionName << "'\n";
        return exitBadInput;
    }
    if (args.value("--plan"))
        plan = loadPlan(*graph, args, diagnostics);
    else
        plan.emplace(*graph, function);
    cleave::ValidationOptions options;
    std::optional<cleave::LatencyTable> latency;
    if (!plan || !loadCheckOptions(args, options, latency))
        return exitBadInput;
    if (!points.empty()) {
        const cleave::PlanEdit edit = plan->cutAfterOps(points);
        for (const cleave::Diagnostic &d : edit.diagnostics)
            std::cerr << args.positionals.front() << ": " << d.toString() << '\n';
        if (cleave::hasErrors(edit.diagnostics))
            return exitBadInput;
    }
    if (!blockPoints.empty()) {
        cleave::FusionOptions fusion;
        std::optional<cleave::OpPatternTable> patterns;
        if (!fusionOptions(args, fusion, patterns))
            return exitBadInput;
        const auto blocks = cleave::fuseOps(*graph, plan->function(), fusion);
        const cleave::PlanEdit edit = cleave::cutAfterBlocks(*plan, blocks, blockPoints);
        for (const cleave::Diagnostic &d : edit.diagnostics)
            std::cerr << args.positionals.front() << ": " << d.toString() << '\n';
        if (cleave::hasErrors(edit.diagnostics))
            return exitBadInput;
    }
    const cleave::BoundaryTable boundary = cleave::computeBoundary(*plan);
    for (cleave::Diagnostic &d : cleave::validateAll(*plan, boundary, options))
        diagnostics.push_back(std::move(d));
    if (args.has("--json"))
        std::cout << cleave::planReportJson(*plan, boundary, diagnostics, options.latency).dump(2)
                  << '\n';
    else
        std::cout << cleave::planReportText(*plan, boundary, diagnostics, options.latency);
    if (const auto target = args.value("--save-plan"); target && !args.has("--dry-run")) {
        std::string error;
        if (!cleave::savePlanFile(*plan, *target, &error)) {
            std::cerr << *target << ": error: " << error << '\n';
            return exitBadInput;
        }
    }
    if (const auto out = args.value("--out"); out && !args.has("--dry-run")) {
        if (const int status = exportPlan(*plan, boundary, diagnostics, args, *out); status != exitOk)
            return status;
    }
    return cleave::hasErrors(diagnostics) ? exitInvalidPlan : exitOk;
}

/// `partition --out DIR`: writes the export folder (DESIGN.md §3).
int exportPlan(const cleave::PartitionPlan &plan, const cleave::BoundaryTable &boundary,
               const std::vector<cleave::Diagnostic> &diagnostics, const Arguments &args,
               const std::string &dir)
{
    cleave::ExportOptions options;
    options.liftConstants = args.has("--lift-constants");
    options.diagnostics = diagnostics;
    if (const auto targets = args.value("--targets")) {
        std::stringstream list(*targets);
        std::string item;
        while (std::getline(list, item, ','))
            options.targets.push_back(item);
    }
    const cleave::ExportResult result = cleave::exportPartitions(plan, boundary, options, dir);
    for (const cleave::Diagnostic &d : result.diagnostics)
        std::cerr << dir << ": " << d.toString() << '\n';
    if (!result.ok) {
        const bool io = std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                                    [](const cleave::Diagnostic &d) { return d.code == "export.io"; });
        return io ? exitBadInput : exitInvalidPlan;
    }
    std::cout << "exported " << result.files.size() << " files to " << dir << '\n';
    return exitOk;
}

int runVerify(const Arguments &args)
{
    const std::string &dir = args.positionals.front();
    const cleave::VerifyResult result
        = cleave::verifyExport(dir);
    if (result.badInput) {
        std::cerr << dir << ": error: " << result.firstDifference << '\n';
        return exitBadInput;
    }
    if (!result.ok) {
        std::cout << dir << ": export does not recompose the source model: "
                  << result.firstDifference << '\n';
        return exitInvalidPlan;
    }
    std::cout << dir << ": export recomposes the source model\n";
    return exitOk;
}

/// `map --plan`: loads a plan made for one of the two models (told apart by the checksum the
/// plan file records) and writes it converted to the other level.
int convertPlanLevel(const Arguments &args, const cleave::Graph &kernels,
                     const cleave::Graph &relay, const cleave::KernelMapping &mapping)
{
    const std::string path = *args.value("--plan");
    const auto target = args.value("--save-plan");
    if (!target)
        return usageError("--plan needs --save-plan FILE for the converted plan", findCommand("map"));
    cleave::PlanLoadResult fromKernels = cleave::loadPlanFile(kernels, path);
    const bool kernelLevel = fromKernels.ok();
    cleave::PlanLoadResult loaded = kernelLevel ? std::move(fromKernels) : cleave::loadPlanFile(relay, path);
    if (!loaded.ok()) {
        for (const cleave::Diagnostic &d : loaded.diagnostics)
            std::cerr << d.toString() << '\n';
        std::cerr << path << ": error: the plan fits neither " << args.positionals[0] << " nor "
                  << args.positionals[1] << '\n';
        return exitBadInput;
    }
    const cleave::PlanConversion converted = kernelLevel
        ? cleave::kernelPlanToRelay(*loaded.plan, mapping, relay)
        : cleave::relayPlanToKernels(*loaded.plan, mapping, kernels);
    std::vector<cleave::Diagnostic> diagnostics = converted.diagnostics;
    const cleave::BoundaryTable boundary = cleave::computeBoundary(*converted.plan);
    for (cleave::Diagnostic &d : cleave::validateAll(*converted.plan, boundary, {}))
        diagnostics.push_back(std::move(d));
    if (args.has("--json"))
        std::cout << cleave::planReportJson(*converted.plan, boundary, diagnostics).dump(2) << '\n';
    else
        std::cout << "Converted the " << (kernelLevel ? "kernel" : "Relay op") << "-level plan to "
                  << (kernelLevel ? "Relay ops" : "kernels") << ":\n"
                  << cleave::planReportText(*converted.plan, boundary, diagnostics);
    std::string error;
    if (!cleave::savePlanFile(*converted.plan, *target, &error)) {
        std::cerr << *target << ": error: " << error << '\n';
        return exitBadInput;
    }
    return cleave::hasErrors(diagnostics) ? exitInvalidPlan : exitOk;
}

int runMap(const Arguments &args)
{
    const auto kernels = importModel(args.positionals[0]);
    if (!kernels)
        return exitBadInput;
    const auto relay = importModel(args.positionals[1]);
    if (!relay)
        return exitBadInput;
    if (kernels->format() != "graph.json") {
        std::cerr << args.positionals[0] << ": error: expected a TVM graph.json, got a "
                  << kernels->format() << " model\n";
        return exitBadInput;
    }
    const cleave::KernelMapping mapping = cleave::mapKernels(*kernels, *relay);
    if (args.value("--plan"))
        return convertPlanLevel(args, *kernels, *relay, mapping);
    if (args.has("--json"))
        std::cout << cleave::kernelMappingToJson(*kernels, *relay, mapping).dump(2) << '\n';
    else
        std::cout << cleave::kernelMappingToText(*kernels, *relay, mapping);
    return mapping.isComplete() ? exitOk : exitInvalidPlan;
}

int runCommand(const Command &command, std::span<const std::string> rest)
{
    Arguments args;
    bool onlyPositionals = false;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        const std::string &arg = rest[i];
        const auto eq = arg.find('=');
        const std::string optionName = arg.substr(0, eq);
        const bool isOption = !onlyPositionals && arg.size() > 2 && arg.front() == '-'
            && std::find(command.options.begin(), command.options.end(), optionName)
                != command.options.end();
        if (isOption) {
            if (eq != std::string::npos) {
                args.options.emplace_back(optionName, arg.substr(eq + 1));
            } else if (i + 1 < rest.size()) {
                args.options.emplace_back(arg, rest[++i]);
            } else {
                return usageError("option '" + arg + "' needs a value", &command);
            }
        } else if (onlyPositionals || arg.size() < 2 || arg.front() != '-') {
            args.positionals.push_back(arg);
        } else if (arg == "--") {
            onlyPositionals = true;
        } else if (arg == "-h" || arg == "--help") {
            printCommandHelp(command, std::cout);
            return exitOk;
        } else if (std::find(command.flags.begin(), command.flags.end(), arg)
                   != command.flags.end()) {
            args.flags.push_back(arg);
        } else {
            return usageError("unknown option '" + arg + "' for " + std::string(command.name),
                              &command);
        }
    }
    if (args.positionals.size() != command.positionals) {
        return usageError(std::string(command.name) + " takes "
                              + std::to_string(command.positionals)
                              + (command.positionals == 1 ? " argument, " : " arguments, ")
                              + std::to_string(args.positionals.size()) + " given",
                          &command);
    }
    return command.run(args);
}

} // namespace

int main(int argc, char **argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty())
        return usageError("no command given", nullptr);

    const std::string &first = args.front();
    if (first == "-h" || first == "--help" || first == "help") {
        printUsage(std::cout);
        return exitOk;
    }
    if (first == "--version") {
        std::cout << "cleave-cli " << CLEAVE_VERSION << '\n';
        return exitOk;
    }
    for (const Command &command : commands()) {
        if (command.name == first)
            return runCommand(command, std::span(args).subspan(1));
    }
    return usageError("unknown command '" + first + "'", nullptr);
}
