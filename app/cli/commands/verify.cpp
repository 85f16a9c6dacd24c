// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli verify DIR [--runtime tvm|onnxruntime]`: re-imports an export folder's modules and
// checks that, wired by pipeline_config.json, they recompose the source model; with --runtime it
// also runs the export's own script in its runtime (build_relax.py in TVM, run_pipeline.py
// --check in ONNX Runtime) and reports every output's difference. The smallest command: start
// here when adding one.
#include "app/cli/CliArguments.h"
#include "core/formats/Exporter.h"
#include "core/formats/RuntimeCheck.h"

#include <cstdio>
#include <filesystem>

namespace cleave::cli {
namespace {

void printChecks(const CommandContext &context, const char *title,
                 const std::vector<RuntimeOutputCheck> &checks)
{
    for (const RuntimeOutputCheck &c : checks) {
        context.out << "  " << title << ", " << c.output << ": " << (c.ok ? "ok" : "MISMATCH");
        if (!c.error.empty()) {
            context.out << " (" << c.error << ")";
        } else if (c.object) {
            context.out << " (not a tensor)";
        } else {
            char text[96];
            std::snprintf(text, sizeof text, " (max relative difference %.3g, absolute %.3g)",
                          c.maxRelDiff, c.maxAbsDiff);
            context.out << text;
        }
        context.out << '\n';
    }
}

int runRuntimeCheck(const Arguments &args, const CommandContext &context, const std::string &dir)
{
    RuntimeCheckOptions options;
    options.runtime = args.value("--runtime").value_or("");
    options.python = args.value("--python").value_or("");
    options.dims = args.values("--dim");
    options.placed = args.has("--placed");
    const RuntimeCheckCommand command = runtimeCheckCommand(dir, options);
    if (!command.error.empty()) {
        context.err << dir << ": error: " << command.error << " [verify.runtime]\n";
        return exitBadInput;
    }
    std::string output;
    const int status = runProgram(command.program, command.args, command.workingDir, output);
    std::string error;
    const auto report = readRuntimeReport(command.reportPath, error);
    std::error_code ec;
    std::filesystem::remove(command.reportPath, ec);
    if (!report) {
        context.err << output;
        context.err << dir << ": error: " << command.script << " "
                    << (status == 2 ? "could not run" : "failed") << " (exit " << status
                    << ") with " << command.program << " [verify.run_failed]\n";
        return status == 2 || status < 0 ? exitBadInput : exitInvalidPlan;
    }
    context.out << dir << ": " << command.runtime << " " << report->runtimeVersion << " ran "
                << report->partitions << " partition(s) against the source model:\n";
    printChecks(context, "partitions vs source", report->outputs);
    printChecks(context, "placed.relax.py vs partitions", report->placed);
    if (!report->ok) {
        context.out << dir << ": the partitions' outputs differ from the source's in "
                    << command.runtime << '\n';
        return exitInvalidPlan;
    }
    context.out << dir << ": every output matches in " << command.runtime << '\n';
    return exitOk;
}

int runVerify(const Arguments &args, const CommandContext &context)
{
    const std::string &dir = args.positionals.front();
    const auto runtime = args.value("--runtime");
    if (runtime && *runtime != "tvm" && *runtime != "onnxruntime")
        return context.usageError("--runtime takes tvm or onnxruntime, got '" + *runtime + "'");
    const VerifyResult result = verifyExport(dir);
    if (result.badInput) {
        context.err << dir << ": error: " << result.firstDifference << " [verify.bad_folder]\n";
        return exitBadInput;
    }
    if (!result.ok) {
        context.out << dir
                    << ": export does not recompose the source model: " << result.firstDifference
                    << '\n';
        return exitInvalidPlan;
    }
    context.out << dir << ": export recomposes the source model\n";
    return runtime ? runRuntimeCheck(args, context, dir) : exitOk;
}

} // namespace

Command verifyCommand()
{
    return { "verify",
             "DIR [--runtime tvm|onnxruntime [--dim NAME=VALUE]... [--placed] [--python PATH]]",
             "Re-import an export's modules, wire them by pipeline_config.json and check that "
             "they recompose the source model; exit 1 with the first difference. With --runtime, "
             "also run the export in its runtime (TVM: build_relax.py; ONNX Runtime: "
             "run_pipeline.py --check) and compare every output with the whole source model's.",
             "  --runtime tvm     build and run a Relax export in TVM >= 0.20 and compare its\n"
             "                    outputs with the source module's (max relative difference\n"
             "                    <= 1e-5); exit 2 when no Python with TVM is found\n"
             "  --runtime onnxruntime\n"
             "                    run an ONNX export's partitions in ONNX Runtime, one session\n"
             "                    each, and compare with the source model (<= 1e-4)\n"
             "  --dim NAME=VALUE  a value for a symbolic dimension of the inputs (repeatable)\n"
             "  --placed          also build and run placed.relax.py on all partition devices\n"
             "  --python PATH     the interpreter to use (default: $CLEAVE_PYTHON, the\n"
             "                    environment of packaging/pydeps.sh, then python3)\n",
             { "--placed" },
             1,
             runVerify,
             { "--runtime", "--dim", "--python" } };
}

} // namespace cleave::cli
