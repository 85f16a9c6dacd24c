// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli validate MODEL --plan PLAN.json`: every rule of core/validation over a saved
// plan, through the plan pipeline (core/session) as the editor checks it; exit 1 when the plan
// is invalid.
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "core/partition/PlanFile.h"
#include "core/partition/PlanReport.h"
#include "core/session/PlanPipeline.h"

namespace cleave::cli {
namespace {

int runValidate(const Arguments &args, const CommandContext &context)
{
    if (!args.value("--plan"))
        return context.usageError("validate needs --plan PLAN.json");
    const auto graph = importModel(args.positionals.front(), context.err);
    if (!graph)
        return exitBadInput;
    std::vector<Diagnostic> diagnostics;
    std::vector<SourceLocation> locations;
    std::optional<PartitionPlan> plan
        = loadPlan(*graph, args, diagnostics, context.err, &locations);
    const auto settings = plan ? loadEngineSettings(args, &*plan, context.err) : std::nullopt;
    if (!settings)
        return exitBadInput;
    diagnostics = PlanPipeline(*graph, *settings).check(*plan, std::move(diagnostics)).diagnostics;
    locatePlanFindings(diagnostics, *plan, locations);
    const bool valid = !hasErrors(diagnostics);
    if (args.has("--json")) {
        const nlohmann::json out {
            { "valid", valid }, { "diagnostics", diagnosticsToJson(&*plan, *graph, diagnostics) }
        };
        context.out << jsonText(out) << '\n';
    } else {
        for (const Diagnostic &d : diagnostics)
            context.out << d.toString() << '\n';
        context.out << (valid ? "plan is valid" : "plan is invalid") << " ("
                    << plan->partitionCount() << " partitions)\n";
    }
    return valid ? exitOk : exitInvalidPlan;
}

} // namespace

Command validateCommand()
{
    return {
        "validate",
        "MODEL --plan PLAN.json [--json] [--op-support FILE] [--latency FILE] "
        "[--params NAMES|FILE] [--force]",
        "Validate a partition plan against a model; exit 1 when the plan is invalid.",
        "  --plan FILE        the plan file to check (required)\n"
        "  --op-support FILE  {\"target\": ..., \"ops\": [...]} list(s): flag ops a target "
        "lacks\n"
        "  --latency FILE     measured latencies: report each partition's share and the\n"
        "                     bottleneck (cost.balance)\n"
        "  --params NAMES|FILE global inputs that are weights (comma-separated, or a file:\n"
        "                     one name per line or a JSON list); a plan's \"params\" count too\n"
        "  --force            accept a plan made for a model with another checksum\n"
        "  --json             print {\"valid\", \"diagnostics\"} as JSON\n",
        { "--json", "--force" },
        1,
        runValidate,
        { "--plan", "--op-support", "--latency", "--params" }
    };
}

} // namespace cleave::cli
