// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/formats/ModelProfile.h"

#include "core/analysis/LatencyTable.h"
#include "core/export/onnx/OnnxScripts.h"
#include "core/formats/RuntimeCheck.h"
#include "core/graph/Graph.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cleave {

namespace fs = std::filesystem;

bool canProfile(const Graph &graph)
{
    return graph.format() == "onnx" && !graph.sourcePath().empty();
}

ProfileCommand profileCommand(const Graph &graph, const std::string &output,
                              const ProfileOptions &options)
{
    return profileCommand(graph.sourcePath(), graph.format(), output, options);
}

ProfileCommand profileCommand(const std::string &modelPath, const std::string &format,
                              const std::string &output, const ProfileOptions &options)
{
    ProfileCommand command;
    command.output = output;
    if (format != "onnx") {
        command.error = "profile measures ONNX models in ONNX Runtime; " + modelPath + " is a "
            + format
            + " model (measure TVM models with TVM's profiler and load the table as "
              "{\"unit\": \"us\", \"nodes\": {...}})";
        return command;
    }
    if (options.threads < 1 || options.runs < 1 || options.warmup < 0) {
        command.error = "threads and runs must be positive, warm-up runs not negative";
        return command;
    }
    command.program = choosePython(options.python, "onnxruntime, onnx, numpy",
                                   "onnxruntime onnx numpy", command.error);
    if (command.program.empty())
        return command;
    // profile.py goes to a private folder: never beside the user's model.
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "cleave-profile-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
        command.error = "cannot make a temporary folder for profile.py";
        return command;
    }
    command.scriptDir = pattern;
    const std::string script = (fs::path(pattern) / "profile.py").string();
    {
        std::ofstream out(script, std::ios::binary);
        const std::string_view text = onnxProfileScript();
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!out) {
            command.error = "cannot write " + script;
            return command;
        }
    }
    command.args = { script,       fs::absolute(modelPath, ec).string(),
                     "-o",         output,
                     "--threads",  std::to_string(options.threads),
                     "--runs",     std::to_string(options.runs),
                     "--warmup",   std::to_string(options.warmup),
                     "--level",    options.level,
                     "--provider", options.provider };
    for (const std::string &d : options.dims) {
        command.args.emplace_back("--dim");
        command.args.push_back(d);
    }
    return command;
}

void removeProfileScript(const ProfileCommand &command)
{
    if (command.scriptDir.empty())
        return;
    std::error_code ec;
    fs::remove_all(command.scriptDir, ec);
}

bool parseProfileProgress(const std::string &line, int &done, int &total)
{
    return std::sscanf(line.c_str(), "progress %d/%d", &done, &total) == 2 && total > 0 && done >= 0
        && done <= total;
}

std::vector<std::string> unmeasuredNodes(const Graph &graph, const LatencyTable &table)
{
    std::vector<std::string> missing;
    for (NodeId n : graph.function(graph.mainFunction()).nodes) {
        if (graph.node(n).isOperator() && !table.hasNodeEntry(graph.key(n)))
            missing.push_back(graph.key(n));
    }
    return missing;
}

} // namespace cleave
