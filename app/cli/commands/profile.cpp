// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli profile MODEL.onnx [-o latency.json]`: measures every node of an ONNX model in ONNX
// Runtime on this machine (profile.py, the script ONNX exports carry) and writes the latency
// table `auto --latency` and the editor read.
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "core/analysis/LatencyTable.h"
#include "core/formats/ModelProfile.h"
#include "core/formats/RuntimeCheck.h"

#include <charconv>
#include <sstream>

namespace cleave::cli {
namespace {

/// A whole number in [low, high] from an option, or nullopt (printed as a usage error).
std::optional<int> wholeOption(const Arguments &args, const CommandContext &context,
                               const char *name, int fallback, int low, int high)
{
    const auto text = args.value(name);
    if (!text)
        return fallback;
    int value = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size() || value < low || value > high) {
        context.usageError(std::string(name) + " expects a whole number from " + std::to_string(low)
                           + " to " + std::to_string(high) + ", got '" + *text + "'");
        return std::nullopt;
    }
    return value;
}

int runProfile(const Arguments &args, const CommandContext &context)
{
    const std::string &model = args.positionals.front();
    ProfileOptions options;
    const auto threads = wholeOption(args, context, "--threads", 1, 1, 256);
    const auto runs = wholeOption(args, context, "--runs", 15, 1, 100000);
    const auto warmup = wholeOption(args, context, "--warmup", 3, 0, 100000);
    if (!threads || !runs || !warmup)
        return exitBadInput;
    options.threads = *threads;
    options.runs = *runs;
    options.warmup = *warmup;
    options.python = args.value("--python").value_or("");
    options.level = args.value("--level").value_or("all");
    if (options.level != "all" && options.level != "extended" && options.level != "basic"
        && options.level != "disable")
        return context.usageError("--level takes all, extended, basic or disable, got '"
                                  + options.level + "'");
    options.provider = args.value("--provider").value_or("CPUExecutionProvider");
    options.dims = args.values("--dim");
    const std::string output = args.value("-o").value_or("latency.json");

    const auto graph = importModel(model, context.err);
    if (!graph)
        return exitBadInput;
    const ProfileCommand command = profileCommand(*graph, output, options);
    if (!command.error.empty()) {
        removeProfileScript(command);
        context.err << model << ": error: " << command.error << " [profile.setup]\n";
        return exitBadInput;
    }
    std::string said;
    const int status = runProgram(command.program, command.args, {}, said);
    removeProfileScript(command);
    std::istringstream lines(said);
    std::string line;
    std::ostringstream shown;
    int done = 0;
    int total = 0;
    while (std::getline(lines, line)) {
        if (!parseProfileProgress(line, done, total))
            shown << line << '\n';
    }
    if (status != 0) {
        context.err << shown.str() << model << ": error: profile.py failed (exit " << status
                    << ") with " << command.program << '\n';
        return exitBadInput;
    }
    std::vector<Diagnostic> problems;
    const auto table = LatencyTable::load(output, problems);
    if (!table) {
        for (const Diagnostic &d : problems)
            context.err << d.toString() << '\n';
        return exitBadInput;
    }
    const std::vector<std::string> missing = unmeasuredNodes(*graph, *table);
    context.out << shown.str();
    context.out << output << ": " << table->nodeEntries() << " nodes measured";
    if (!table->provenance().empty())
        context.out << " (" << table->provenance() << ")";
    context.out << '\n';
    if (const auto &cal = table->calibration()) {
        context.out << "  calibration: " << cal->runOverheadUs << " us per stage run";
        if (cal->handoffUs)
            context.out << ", " << *cal->handoffUs << " us per hand-off between stages";
        context.out << '\n';
    }
    if (!missing.empty()) {
        context.out << "  " << missing.size() << " operator node(s) have no entry, e.g. "
                    << missing.front() << '\n';
    }
    return exitOk;
}

} // namespace

Command profileCommand()
{
    return { "profile",
             "MODEL.onnx [-o FILE] [--threads N] [--runs R] [--warmup W] [--level LEVEL] "
             "[--provider EP] [--dim NAME=VALUE]... [--python PATH]",
             "Measure every node of an ONNX model in ONNX Runtime on this machine (its profiler, "
             "median of R runs) and write a latency table for auto --latency and the editor.",
             "  -o FILE           the latency table to write (default latency.json)\n"
             "  --threads N       intra-op threads of the session (default 1: one per stage)\n"
             "  --runs R          measured runs; each node's entry is its median (default 15)\n"
             "  --warmup W        runs before measuring (default 3)\n"
             "  --level LEVEL     ONNX Runtime's graph optimisations: all (default), extended,\n"
             "                    basic or disable; a kernel ORT fused from several nodes is\n"
             "                    given to the node it is named after\n"
             "  --provider EP     execution provider (default CPUExecutionProvider)\n"
             "  --dim NAME=VALUE  a value for a symbolic dimension (default 1; repeatable)\n"
             "  --python PATH     the interpreter (default: $CLEAVE_PYTHON, the environment of\n"
             "                    packaging/pydeps.sh, then python3); exit 2 without onnxruntime\n"
             "The table also records where it was measured (provenance) and what a pipeline\n"
             "stage costs besides its nodes (calibration), which auto --latency uses. Export\n"
             "folders carry the same script as profile.py, to measure on the deployment machine.\n",
             {},
             1,
             runProfile,
             { "-o", "--threads", "--runs", "--warmup", "--level", "--provider", "--dim",
               "--python" } };
}

} // namespace cleave::cli
