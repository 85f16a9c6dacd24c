// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: what opening a project does below the window — the project (.cleave, also
// recovery files) reader, its plan against the small model, the engine settings it names read
// from their files, and the plan checked with those settings (PlanPipeline::check: validation
// with the op-support lists and the latency table, the blocks with the op patterns).
//
// Input: the project file, then optionally "\n%%\n" and a latency table, "\n%%\n" and an
// op-support file, "\n%%\n" and an op-pattern file. The side files are written into a folder of
// this process as lat.json, ops.json and patterns.json beside the project (p.cleave), so a
// project's "settings" reach them by those names; an absent section leaves no file.
#include "FuzzSupport.h"
#include "core/project/ProjectFile.h"
#include "core/project/ProjectSettings.h"
#include "core/session/EngineSettings.h"
#include "core/session/PlanPipeline.h"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view folderPrefix = "cleave-fuzz-project-";

/// This process's folder for the project's side files (cleave-fuzz-project-PID in the temporary
/// folder). libFuzzer may end a run with _Exit, so the folders of processes that are gone are
/// removed when the next run starts.
const std::filesystem::path &folder()
{
    static const std::filesystem::path dir = [] {
        const std::filesystem::path tmp = std::filesystem::temp_directory_path();
        std::error_code ec;
        for (const auto &entry : std::filesystem::directory_iterator(tmp, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind(folderPrefix, 0) != 0)
                continue;
            const long pid = std::strtol(name.c_str() + folderPrefix.size(), nullptr, 10);
            if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
                std::filesystem::remove_all(entry.path(), ec);
        }
        std::filesystem::path d = tmp / (std::string(folderPrefix) + std::to_string(::getpid()));
        std::filesystem::create_directories(d, ec);
        return d;
    }();
    return dir;
}

/// Writes `text` as `name` in folder(), or removes that file when the section is absent.
void sideFile(const char *name, std::string_view text, bool present)
{
    const std::filesystem::path path = folder() / name;
    std::error_code ignored;
    if (!present) {
        std::filesystem::remove(path, ignored);
        return;
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(text.data(), static_cast<std::streamsize>(text.size()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    // The project, then the latency, op-support and op-pattern files.
    const std::vector<std::string_view> sections
        = cleave::fuzz::sections({ reinterpret_cast<const char *>(data), size }, 4);
    const char *names[] = { "lat.json", "ops.json", "patterns.json" };
    for (std::size_t s = 1; s < 4; ++s)
        sideFile(names[s - 1], s < sections.size() ? sections[s] : std::string_view(),
                 s < sections.size());

    const std::string projectPath = (folder() / "p.cleave").string();
    const cleave::ProjectLoadResult r = cleave::projectFromJson(sections[0], projectPath);
    if (!r.project)
        return 0;
    (void)cleave::resolveModelPath(*r.project, projectPath);
    const cleave::Graph &model = cleave::fuzz::smallModel();
    cleave::PlanLoadResult plan = cleave::projectPlan(*r.project, model, projectPath, true);
    std::vector<cleave::Diagnostic> problems;
    cleave::EngineSettings settings = cleave::EngineSettings::fromProject(
        cleave::resolvedSettings(r.project->settings, projectPath), problems);
    if (plan.plan) {
        const cleave::PlanPipeline pipeline(model, std::move(settings));
        (void)pipeline.check(*plan.plan);
    }
    return 0;
}
