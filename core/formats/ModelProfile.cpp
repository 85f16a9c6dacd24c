// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/formats/ModelProfile.h"

#include "core/export/onnx/OnnxScripts.h"
#include "core/formats/RuntimeCheck.h"
#include "core/graph/Graph.h"
#include "core/support/FileIo.h"

#include <nlohmann/json.hpp>

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
    if (options.python.empty()) {
        std::string tried;
        command.program = findPythonWith("onnxruntime, onnx, numpy", tried);
        if (command.program.empty()) {
            command.error = "no Python with onnxruntime, onnx and numpy was found (tried " + tried
                + "): run packaging/pydeps.sh, `pip install onnxruntime onnx numpy`, or set "
                  "CLEAVE_PYTHON";
            return command;
        }
    } else {
        command.program = options.python;
        std::string said;
        if (runProgram(command.program, { "-c", "import onnxruntime, onnx, numpy" }, {}, said)
            != 0) {
            command.error = command.program + " cannot import onnxruntime, onnx and numpy";
            return command;
        }
    }
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

std::vector<std::string> unmeasuredNodes(const Graph &graph, const std::string &latencyPath,
                                         std::string &error)
{
    std::vector<std::string> missing;
    const auto text = readRegularFile(latencyPath, 256u << 20, error);
    if (!text)
        return missing;
    const nlohmann::json table = nlohmann::json::parse(*text, nullptr, false);
    if (!table.is_object() || !table.contains("nodes") || !table["nodes"].is_object()) {
        error = latencyPath + " has no \"nodes\" object";
        return missing;
    }
    const nlohmann::json &nodes = table["nodes"];
    const FunctionId main = graph.mainFunction();
    for (NodeId n : graph.function(main).nodes) {
        if (graph.node(n).isOperator() && !nodes.contains(graph.key(n)))
            missing.push_back(graph.key(n));
    }
    return missing;
}

} // namespace cleave
