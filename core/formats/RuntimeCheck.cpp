// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/formats/RuntimeCheck.h"

#include "core/formats/FormatRegistry.h"
#include "core/support/FileIo.h"

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cleave {

namespace fs = std::filesystem;

std::vector<std::string> pythonCandidates()
{
    std::vector<std::string> found;
    if (const char *env = std::getenv("CLEAVE_PYTHON"); env && *env)
        found.emplace_back(env);
    fs::path cache;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        cache = xdg;
    else if (const char *home = std::getenv("HOME"); home && *home)
        cache = fs::path(home) / ".cache";
    std::error_code ec;
    if (!cache.empty() && fs::is_directory(cache / "cleave", ec)) {
        std::vector<std::string> envs;
        for (const auto &entry : fs::directory_iterator(cache / "cleave", ec)) {
            const fs::path python = entry.path() / "bin" / "python";
            if (entry.path().filename().string().starts_with("pyenv-") && fs::exists(python, ec))
                envs.push_back(python.string());
        }
        std::sort(envs.begin(), envs.end());
        found.insert(found.end(), envs.begin(), envs.end());
    }
    found.emplace_back("python3");
    return found;
}

int runProgram(const std::string &program, const std::vector<std::string> &args,
               const std::string &workingDir, std::string &output)
{
    int pipeFds[2];
    if (pipe(pipeFds) != 0)
        return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipeFds[1]);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (!workingDir.empty())
        posix_spawn_file_actions_addchdir_np(&actions, workingDir.c_str());
    std::vector<char *> argv;
    argv.push_back(const_cast<char *>(program.c_str()));
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned
        = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipeFds[1]);
    if (spawned != 0) {
        close(pipeFds[0]);
        return -1;
    }
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(pipeFds[0], buffer, sizeof buffer);
        if (n > 0)
            output.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    close(pipeFds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string findPythonWith(const std::string &modules, std::string &tried)
{
    for (const std::string &python : pythonCandidates()) {
        std::string output;
        tried += (tried.empty() ? "" : ", ") + python;
        if (runProgram(python, { "-c", "import " + modules }, {}, output) == 0)
            return python;
    }
    return {};
}

std::string choosePython(const std::string &given, const std::string &modules,
                         const std::string &pipPackages, std::string &error)
{
    if (given.empty()) {
        std::string tried;
        std::string found = findPythonWith(modules, tried);
        if (found.empty())
            error = "no Python with " + modules + " was found (tried " + tried
                + "): run packaging/pydeps.sh, `pip install " + pipPackages
                + "`, or set CLEAVE_PYTHON";
        return found;
    }
    std::string output;
    if (runProgram(given, { "-c", "import " + modules }, {}, output) == 0)
        return given;
    error = given + " cannot import " + modules
        + (output.empty() ? std::string()
                          : ": " + output.substr(output.rfind('\n', output.size() - 2) + 1));
    while (!error.empty() && error.back() == '\n')
        error.pop_back();
    return {};
}

RuntimeCheckCommand runtimeCheckCommand(const std::string &dir, const RuntimeCheckOptions &options)
{
    RuntimeCheckCommand command;
    std::string error;
    const auto text
        = readRegularFile((fs::path(dir) / "partitions.json").string(), 64u << 20, error);
    if (!text) {
        command.error = "no partitions.json in " + dir + " (" + error + ")";
        return command;
    }
    const nlohmann::json manifest = nlohmann::json::parse(*text, nullptr, false);
    if (!manifest.is_object() || !manifest.contains("module_format")
        || !manifest["module_format"].is_string()) {
        command.error = dir + "/partitions.json is not a Cleave export manifest";
        return command;
    }
    const std::string format = manifest["module_format"].get<std::string>();
    const ModuleExporter *writer = moduleExporterFor(format);
    const auto check = writer ? writer->runtimeCheck() : std::nullopt;
    if (!check) {
        command.error = "this export holds " + format
            + " modules, which no runtime check runs (Relax exports run in TVM >= 0.20, ONNX "
              "exports in ONNX Runtime; TVM <= 0.19 runs are not part of verify)";
        return command;
    }
    if (!options.runtime.empty() && options.runtime != check->runtime) {
        command.error = "--runtime " + options.runtime + " cannot run " + format
            + " modules: this export runs in " + check->title + " (--runtime " + check->runtime
            + ")";
        return command;
    }
    if (options.placed && format != "relax") {
        command.error = "--placed checks placed.relax.py, which only Relax exports have";
        return command;
    }
    command.runtime = check->title;
    command.script = check->script;
    std::error_code ec;
    if (!fs::is_regular_file(fs::path(dir) / check->script, ec)) {
        command.error = "no " + check->script + " in " + dir + " (export it with the script)";
        return command;
    }
    command.program = choosePython(
        options.python, check->pythonModules,
        (check->runtime == "tvm" ? "apache-tvm" : check->runtime) + " numpy", command.error);
    if (command.program.empty())
        return command;
    command.workingDir = fs::absolute(dir, ec).string();
    // The report goes outside the export: the folder holds only what the export wrote.
    static int counter = 0;
    command.reportPath = (fs::temp_directory_path(ec)
                          / ("cleave-runtime-" + std::to_string(getpid()) + "-"
                             + std::to_string(++counter) + ".json"))
                             .string();
    command.args = { check->script };
    command.args.insert(command.args.end(), check->args.begin(), check->args.end());
    command.args.emplace_back("--json");
    command.args.push_back(command.reportPath);
    // The source from the manifest, so that the check does not depend on where the folder is.
    if (manifest.contains("source") && manifest["source"].is_object()
        && manifest["source"].contains("path") && manifest["source"]["path"].is_string()) {
        const std::string source = manifest["source"]["path"].get<std::string>();
        if (fs::is_regular_file(source, ec)) {
            command.args.emplace_back("--source");
            command.args.push_back(source);
        }
    }
    for (const std::string &d : options.dims) {
        command.args.emplace_back("--dim");
        command.args.push_back(d);
    }
    if (options.placed)
        command.args.emplace_back("--placed");
    return command;
}

namespace {

std::vector<RuntimeOutputCheck> readChecks(const nlohmann::json &list)
{
    std::vector<RuntimeOutputCheck> checks;
    if (!list.is_array())
        return checks;
    for (const nlohmann::json &o : list) {
        if (!o.is_object())
            continue;
        RuntimeOutputCheck c;
        c.output = o.value("output", std::string());
        c.ok = o.value("ok", false);
        c.object = o.value("kind", std::string()) == "object";
        c.maxRelDiff = o.contains("max_rel_diff") && o["max_rel_diff"].is_number()
            ? o["max_rel_diff"].get<double>()
            : 0.0;
        c.maxAbsDiff = o.contains("max_abs_diff") && o["max_abs_diff"].is_number()
            ? o["max_abs_diff"].get<double>()
            : 0.0;
        c.error = o.value("error", std::string());
        checks.push_back(std::move(c));
    }
    return checks;
}

} // namespace

std::optional<RuntimeReport> readRuntimeReport(const std::string &path, std::string &error)
{
    const auto text = readRegularFile(path, 64u << 20, error);
    if (!text)
        return std::nullopt;
    const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object()) {
        error = path + " is not a JSON object";
        return std::nullopt;
    }
    RuntimeReport r;
    r.ok = j.value("ok", false);
    r.runtimeVersion = j.value("tvm_version", j.value("runtime_version", std::string()));
    r.partitions = j.value("partitions", 0);
    r.outputs = readChecks(j.value("outputs", nlohmann::json::array()));
    r.placed = readChecks(j.value("placed", nlohmann::json::array()));
    return r;
}

} // namespace cleave
