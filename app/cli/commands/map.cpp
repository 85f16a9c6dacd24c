// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli map GRAPH.json MODEL`: which Relay ops each kernel of a TVM graph.json was built
// from, and (with --plan) a plan converted between the two levels.
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "core/analysis/KernelMapping.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanConversion.h"
#include "core/partition/PlanFile.h"
#include "core/partition/PlanReport.h"
#include "core/session/PlanPipeline.h"
#include "core/validation/Validation.h"

namespace cleave::cli {
namespace {

/// `map --plan`: loads a plan made for one of the two models (told apart by the checksum the
/// plan file records) and writes it converted to the other level.
int convertPlanLevel(const Arguments &args, const Graph &kernels, const Graph &relay,
                     const KernelMapping &mapping, const CommandContext &context)
{
    const std::string path = *args.value("--plan");
    const auto target = args.value("--save-plan");
    if (!target)
        return context.usageError("--plan needs --save-plan FILE for the converted plan");
    PlanLoadResult fromKernels = loadPlanFile(kernels, path);
    const bool kernelLevel = fromKernels.ok();
    PlanLoadResult loaded = kernelLevel ? std::move(fromKernels) : loadPlanFile(relay, path);
    if (!loaded.ok()) {
        for (const Diagnostic &d : loaded.diagnostics)
            context.err << d.toString() << '\n';
        context.err << path << ": error: the plan fits neither " << args.positionals[0] << " nor "
                    << args.positionals[1] << '\n';
        return exitBadInput;
    }
    const PlanConversion converted = kernelLevel
        ? kernelPlanToRelay(*loaded.plan, mapping, relay)
        : relayPlanToKernels(*loaded.plan, mapping, kernels);
    // Checked as every verb checks a plan: through the plan pipeline of the converted plan's model.
    const CheckedPlan checked = PlanPipeline(converted.plan->graph(), EngineSettings {})
                                    .check(*converted.plan, converted.diagnostics);
    const BoundaryTable &boundary = checked.boundary;
    const std::vector<Diagnostic> &diagnostics = checked.diagnostics;
    if (args.has("--json"))
        context.out << jsonText(planReportJson(*converted.plan, boundary, diagnostics)) << '\n';
    else
        context.out << "Converted the " << (kernelLevel ? "kernel" : "Relay op")
                    << "-level plan to " << (kernelLevel ? "Relay ops" : "kernels") << ":\n"
                    << planReportText(*converted.plan, boundary, diagnostics);
    std::string error;
    if (!savePlanFile(*converted.plan, *target, &error)) {
        context.err << *target << ": error: " << error << " [plan.write]\n";
        return exitBadInput;
    }
    return hasErrors(diagnostics) ? exitInvalidPlan : exitOk;
}

int runMap(const Arguments &args, const CommandContext &context)
{
    const auto kernels = importModel(args.positionals[0], context.err);
    if (!kernels)
        return exitBadInput;
    const auto relay = importModel(args.positionals[1], context.err);
    if (!relay)
        return exitBadInput;
    if (kernels->format() != "graph.json") {
        context.err << args.positionals[0] << ": error: expected a TVM graph.json, got a "
                    << kernels->format() << " model\n";
        return exitBadInput;
    }
    const KernelMapping mapping = mapKernels(*kernels, *relay);
    if (args.value("--plan"))
        return convertPlanLevel(args, *kernels, *relay, mapping, context);
    if (args.has("--json"))
        context.out << jsonText(kernelMappingToJson(*kernels, *relay, mapping)) << '\n';
    else
        context.out << kernelMappingToText(*kernels, *relay, mapping);
    return mapping.isComplete() ? exitOk : exitInvalidPlan;
}

} // namespace

Command mapCommand()
{
    return {
        "map",
        "GRAPH.json MODEL [--json] [--plan PLAN.json --save-plan OUT.json]",
        "Map each kernel of a TVM graph.json onto the Relay ops it was built from; exit 1 "
        "when a kernel or an op stays unmatched.",
        "  --json            print {\"kernels\": [{name, func_name, node_index, entries, ops,\n"
        "                    relay_nodes, matched, problem?}], \"unmatched_relay_nodes\", "
        "...}\n"
        "  --plan FILE       a plan made for either model: convert it to the other level\n"
        "                    (a cut between kernels becomes a cut between their op groups)\n"
        "  --save-plan FILE  where to write the converted plan (with --plan)\n",
        { "--json" },
        2,
        runMap,
        { "--plan", "--save-plan" }
    };
}

} // namespace cleave::cli
