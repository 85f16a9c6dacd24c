// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli inspect MODEL`: what a model holds, as text or JSON, optionally with its fused
// blocks.
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "core/analysis/BlockReport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/ModelSummary.h"

namespace cleave::cli {
namespace {

int runInspect(const Arguments &args, const CommandContext &context)
{
    const auto graph = importModel(args.positionals.front(), context.err);
    if (!graph)
        return exitBadInput;
    const ModelSummary summary = ModelSummary::compute(*graph);
    std::vector<FusedBlock> blocks;
    const auto settings = loadEngineSettings(args, nullptr, context.err);
    if (!settings)
        return exitBadInput;
    const bool withBlocks = args.has("--blocks");
    if (withBlocks)
        blocks = fuseOps(*graph, graph->mainFunction(), settings->fusionOptions());
    if (args.has("--json")) {
        nlohmann::json json = summary.toJson();
        if (withBlocks)
            json["blocks"] = fusedBlocksToJson(*graph, blocks);
        context.out << jsonText(json) << '\n';
    } else {
        context.out << summary.toText(withBlocks);
        if (withBlocks)
            context.out << fusedBlocksToText(*graph, blocks);
    }
    return exitOk;
}

} // namespace

Command inspectCommand()
{
    return { "inspect",
             "MODEL [--json] [--blocks [FUSION OPTIONS]]",
             "Summarise a model: format, functions, op histogram, inputs, outputs, fused blocks, "
             "constants.",
             "  --json     print one JSON object instead of the text report\n"
             "  --blocks   list every fused block with its op histogram, and the FuseOps-style\n"
             "             kernels of the main function (JSON: \"blocks\")\n" //
             CLEAVE_CLI_FUSION_OPTIONS_HELP,
             { "--json", "--blocks", "--fold-batch-norm", "--transparent-stop-fusion" },
             1,
             runInspect,
             { "--op-patterns" } };
}

} // namespace cleave::cli
