// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli partition MODEL`: cut a model (after ops, after fused blocks, or as a saved plan
// says), print the partitions, boundary and diagnostics, and optionally save the plan and
// write the export folder (docs/DESIGN.md §5).
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/partition/BlockCuts.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanFile.h"
#include "core/partition/PlanReport.h"
#include "core/session/PlanPipeline.h"

#include <algorithm>
#include <sstream>

namespace cleave::cli {
namespace {

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

/// Prints an edit's diagnostics (prefixed with the model path); false when one is an error.
bool reportEdit(const PlanEdit &edit, const std::string &model, std::ostream &err)
{
    for (const Diagnostic &d : edit.diagnostics)
        err << model << ": " << d.toString() << '\n';
    return !hasErrors(edit.diagnostics);
}

/// `partition --out DIR`: writes the export folder through the plan pipeline, which refuses an
/// invalid plan (docs/DESIGN.md §5.5).
int exportPlan(const PlanPipeline &pipeline, const PartitionPlan &plan,
               const std::vector<Diagnostic> &notes, const Arguments &args, const std::string &dir,
               const CommandContext &context)
{
    ExportOptions options;
    options.force = args.has("--force"); // also: write into a folder that is not an export
    options.diagnostics = notes;
    if (const auto targets = args.value("--targets")) {
        std::stringstream list(*targets);
        std::string item;
        while (std::getline(list, item, ','))
            options.targets.push_back(item);
    }
    const ExportResult result = pipeline.exportPlan(plan, options, dir);
    for (const Diagnostic &d : result.diagnostics)
        context.err << dir << ": " << d.toString() << '\n';
    if (!result.ok) {
        const bool io = std::any_of(
            result.diagnostics.begin(), result.diagnostics.end(),
            [](const Diagnostic &d) { return d.code == "export.io" || d.code == "export.busy"; });
        return io ? exitBadInput : exitInvalidPlan;
    }
    context.out << "exported " << result.files.size() << " files to " << dir << '\n';
    return exitOk;
}

/// Writes what the plan became: the report, then (unless --dry-run) --save-plan and --out.
/// `notes` are the findings from before validation (the plan file's), kept in the export's
/// manifest.
int writeResults(const PlanPipeline &pipeline, const PartitionPlan &plan,
                 const CheckedPlan &checked, const std::vector<Diagnostic> &notes,
                 const Arguments &args, const CommandContext &context)
{
    const LatencyTable *latency = pipeline.validationOptions().latency;
    if (args.has("--json"))
        context.out << jsonText(
            planReportJson(plan, checked.boundary, checked.diagnostics, latency))
                    << '\n';
    else
        context.out << planReportText(plan, checked.boundary, checked.diagnostics, latency);
    if (const auto target = args.value("--save-plan"); target && !args.has("--dry-run")) {
        std::string error;
        if (!savePlanFile(plan, *target, &error)) {
            context.err << *target << ": error: " << error << " [plan.write]\n";
            return exitBadInput;
        }
    }
    if (const auto out = args.value("--out"); out && !args.has("--dry-run")) {
        if (const int status = exportPlan(pipeline, plan, notes, args, *out, context);
            status != exitOk)
            return status;
    }
    return checked.valid() ? exitOk : exitInvalidPlan;
}

int runPartition(const Arguments &args, const CommandContext &context)
{
    const std::vector<std::string> cuts = args.values("--cut-after");
    const std::vector<std::string> blockCuts = args.values("--cut-after-block");
    if ((!cuts.empty() || !blockCuts.empty()) && args.value("--plan"))
        return context.usageError(
            "give either --cut-after / --cut-after-block or --plan, not both");
    std::vector<SplitPoint> points;
    for (const std::string &cut : cuts) {
        const auto point = parseSplitPoint(cut);
        if (!point)
            return context.usageError("--cut-after expects OP:INDEX (e.g. add:0), got '" + cut
                                      + "'");
        points.push_back({ point->first, point->second });
    }
    std::vector<BlockSplitPoint> blockPoints;
    for (const std::string &cut : blockCuts) {
        const auto point = parseSplitPoint(cut, true);
        if (!point)
            return context.usageError("--cut-after-block expects NAME[:INDEX] (e.g. "
                                      "nn_conv2d_add_nn_relu:2), got '"
                                      + cut + "'");
        blockPoints.push_back({ point->first, point->second });
    }
    const std::string &model = args.positionals.front();
    const auto graph = importModel(model, context.err);
    if (!graph)
        return exitBadInput;
    FunctionId function; // Relax modules have several
    if (!chooseFunction(*graph, args, model, function, context.err))
        return exitBadInput;
    std::vector<Diagnostic> notes;
    std::optional<PartitionPlan> plan;
    std::vector<SourceLocation> locations; // of a --plan file's partitions
    if (args.value("--plan"))
        plan = loadPlan(*graph, args, notes, context.err, &locations);
    else
        plan.emplace(*graph, function);
    const auto settings = plan ? loadEngineSettings(args, &*plan, context.err) : std::nullopt;
    if (!settings)
        return exitBadInput;
    const PlanPipeline pipeline(*graph, *settings);
    if (!points.empty() && !reportEdit(plan->cutAfterOps(points), model, context.err))
        return exitBadInput;
    if (!blockPoints.empty()) {
        const auto blocks = fuseOps(*graph, plan->function(), settings->fusionOptions());
        if (!reportEdit(cutAfterBlocks(*plan, blocks, blockPoints), model, context.err))
            return exitBadInput;
    }
    CheckedPlan checked = pipeline.check(*plan, notes);
    if (points.empty() && blockPoints.empty()) // the partitions are still the file's
        locatePlanFindings(checked.diagnostics, *plan, locations);
    return writeResults(pipeline, *plan, checked, notes, args, context);
}

} // namespace

Command partitionCommand()
{
    return {
        "partition",
        "MODEL [(--cut-after OP:INDEX | --cut-after-block NAME[:INDEX])... | --plan PLAN.json] "
        "[--dry-run] [--json] "
        "[--save-plan FILE] [--params NAMES|FILE] [--out DIR [--lift-constants] "
        "[--targets T0,T1,...]]",
        "Partition a model and print the partitions (ops, FLOPs, params), the boundary "
        "tensors and the diagnostics.",
        "  --cut-after OP:INDEX  cut after the INDEX-th (0-based) call of OP in program order,\n"
        "                        as TVM's graph_split does; repeat for several cuts\n"
        "  --cut-after-block NAME[:INDEX]\n"
        "                        cut after the INDEX-th fused block (FuseOps kernel) named\n"
        "                        NAME, e.g. nn_conv2d_add_nn_relu:2; repeatable; the blocks\n"
        "                        are formed with the options below\n" //
        CLEAVE_CLI_FUSION_OPTIONS_HELP "  --plan FILE           start from a saved plan instead\n"
        "  --function NAME       partition this function of the module (default: main)\n"
        "  --op-support FILE     check ops against per-target op-support lists\n"
        "  --latency FILE        measured latencies ({\"ops\": {op: us}, \"nodes\": {key: us}}):\n"
        "                        a latency column and the pipeline's bottleneck\n"
        "  --save-plan FILE      write the resulting plan (not with --dry-run)\n"
        "  --out DIR             export into DIR (replaced atomically): partitions.json,\n"
        "                        pipeline_config.json (not for Relax) and, by source format:\n"
        "                          Relay      mod<k>.relay, build_pipeline.py (+ byoc.relay,\n"
        "                                     byoc_annotated.relay for BYOC targets)\n"
        "                          ONNX       mod<k>.onnx, build_pipeline.py; the manifest\n"
        "                                     names each partition's ONNX Runtime provider\n"
        "                          graph.json mod<k>.json over the same compiled library,\n"
        "                                     run_pipeline.py (no recompilation)\n"
        "                          Relax      mod<k>.relax.py (each with only its metadata\n"
        "                                     constants), placed.relax.py (vdevices),\n"
        "                                     build_relax.py (+ byoc.relax.py for BYOC)\n"
        "                        a global input read by several partitions enters the first\n"
        "                        and is forwarded as an extra output (tensors; any value for\n"
        "                        Relax, so a tuple input is an error only for the others)\n"
        "  --params NAMES|FILE   global inputs that are weights, besides those every consumer\n"
        "                        reads as a weight operand (comma-separated, or a file: one\n"
        "                        name per line or a JSON list): each module reading one gets\n"
        "                        it through pipeline_config.json's param_connection\n"
        "  --lift-constants      with --out: constants become trailing parameters const_<i>\n"
        "                        (order of first use), listed in partitions.json; those of\n"
        "                        called functions too (passed on as extra parameters)\n"
        "  --targets T0,T1,...   with --out: the target of each partition, in order\n"
        "  --dry-run             only print; write nothing\n"
        "  --force               accept a plan made for a model with another checksum;\n"
        "                        with --out, write into a non-empty folder that is not a\n"
        "                        previous export (its files are kept)\n"
        "  --json                print {\"partitions\", \"boundary\", \"diagnostics\"} as JSON\n",
        { "--json", "--dry-run", "--force", "--fold-batch-norm", "--transparent-stop-fusion",
          "--lift-constants" },
        1,
        runPartition,
        { "--cut-after", "--cut-after-block", "--plan", "--function", "--save-plan", "--op-support",
          "--latency", "--op-patterns", "--out", "--targets", "--params" },
    };
}

} // namespace cleave::cli
