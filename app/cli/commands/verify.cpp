// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli verify DIR`: re-imports an export folder's modules and checks that, wired by
// pipeline_config.json, they recompose the source model. The smallest command: start here
// when adding one.
#include "app/cli/CliArguments.h"
#include "core/formats/Exporter.h"

namespace cleave::cli {
namespace {

int runVerify(const Arguments &args, const CommandContext &context)
{
    const std::string &dir = args.positionals.front();
    const VerifyResult result = verifyExport(dir);
    if (result.badInput) {
        context.err << dir << ": error: " << result.firstDifference << '\n';
        return exitBadInput;
    }
    if (!result.ok) {
        context.out << dir
                    << ": export does not recompose the source model: " << result.firstDifference
                    << '\n';
        return exitInvalidPlan;
    }
    context.out << dir << ": export recomposes the source model\n";
    return exitOk;
}

} // namespace

Command verifyCommand()
{
    return { "verify",
             "DIR",
             "Re-import an export's modules, wire them by pipeline_config.json and check that "
             "they recompose the source model; exit 1 with the first difference.",
             "",
             {},
             1,
             runVerify };
}

} // namespace cleave::cli
