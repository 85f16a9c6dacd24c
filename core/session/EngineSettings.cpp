// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/session/EngineSettings.h"

#include "core/support/FileIo.h"

#include <algorithm>

namespace cleave {

ValidationOptions EngineSettings::validationOptions() const
{
    ValidationOptions options;
    for (const auto &file : opSupport)
        options.opSupport.insert(options.opSupport.end(), file->lists.begin(), file->lists.end());
    options.latency = latency.get();
    options.params = params;
    return options;
}

FusionOptions EngineSettings::fusionOptions() const
{
    FusionOptions options;
    options.foldBatchNorm = foldBatchNorm;
    options.transparentStopFusion = transparentStopFusion;
    options.patterns = opPatterns.get();
    return options;
}

bool EngineSettings::sameFusion(const EngineSettings &other) const
{
    return foldBatchNorm == other.foldBatchNorm
        && transparentStopFusion == other.transparentStopFusion && opPatterns == other.opPatterns;
}

std::vector<std::string> EngineSettings::supportedTargets() const
{
    std::vector<std::string> targets;
    for (const auto &file : opSupport) {
        for (const OpSupportList &list : file->lists) {
            if (std::find(targets.begin(), targets.end(), list.target) == targets.end())
                targets.push_back(list.target);
        }
    }
    return targets;
}

bool EngineSettings::isParam(const std::string &name) const
{
    return std::find(params.begin(), params.end(), name) != params.end();
}

ProjectSettings EngineSettings::toProject() const
{
    ProjectSettings project;
    for (const auto &file : opSupport)
        project.opSupportFiles.push_back(file->path);
    project.latencyFile = latencyPath;
    project.opPatternsFile = opPatternsPath;
    project.foldBatchNorm = foldBatchNorm;
    project.transparentStopFusion = transparentStopFusion;
    project.params = params;
    project.liftConstants = liftConstants;
    return project;
}

EngineSettings EngineSettings::fromProject(const ProjectSettings &project,
                                           std::vector<Diagnostic> &problems)
{
    EngineSettings settings;
    for (const std::string &path : project.opSupportFiles) {
        if (auto file = loadOpSupport(path, problems))
            settings.opSupport.push_back(std::move(file));
    }
    if (!project.latencyFile.empty()) {
        settings.latency = loadLatency(project.latencyFile, problems);
        if (settings.latency)
            settings.latencyPath = project.latencyFile;
    }
    if (!project.opPatternsFile.empty()) {
        settings.opPatterns = loadOpPatterns(project.opPatternsFile, problems);
        if (settings.opPatterns)
            settings.opPatternsPath = project.opPatternsFile;
    }
    settings.foldBatchNorm = project.foldBatchNorm;
    settings.transparentStopFusion = project.transparentStopFusion;
    settings.params = project.params;
    settings.liftConstants = project.liftConstants;
    return settings;
}

std::shared_ptr<const OpSupportFile>
EngineSettings::loadOpSupport(const std::string &path, std::vector<Diagnostic> &problems)
{
    std::vector<Diagnostic> found;
    auto file = std::make_shared<OpSupportFile>();
    file->path = path;
    file->lists = loadOpSupportFile(path, found);
    const bool ok = !hasErrors(found) && !file->lists.empty();
    if (!ok && !hasErrors(found)) {
        Diagnostic d
            = Diagnostic::make(Severity::Error, "opsupport.invalid", "the file lists no target");
        d.where.file = path;
        found.push_back(std::move(d));
    }
    problems.insert(problems.end(), found.begin(), found.end());
    return ok ? std::shared_ptr<const OpSupportFile>(std::move(file)) : nullptr;
}

std::shared_ptr<const LatencyTable> EngineSettings::loadLatency(const std::string &path,
                                                                std::vector<Diagnostic> &problems)
{
    std::vector<Diagnostic> found;
    std::optional<LatencyTable> table = LatencyTable::load(path, found);
    const bool ok = table && !hasErrors(found);
    problems.insert(problems.end(), found.begin(), found.end());
    return ok ? std::make_shared<const LatencyTable>(std::move(*table)) : nullptr;
}

std::shared_ptr<const OpPatternTable>
EngineSettings::loadOpPatterns(const std::string &path, std::vector<Diagnostic> &problems)
{
    const std::optional<std::string> text = readFile(path);
    if (!text) {
        Diagnostic d = Diagnostic::make(Severity::Error, "patterns.unreadable",
                                        "cannot open the op pattern file");
        d.where.file = path;
        problems.push_back(std::move(d));
        return nullptr;
    }
    auto table = std::make_shared<OpPatternTable>(OpPatternTable::builtin());
    std::vector<Diagnostic> found;
    const bool ok = table->loadJson(*text, path, found) && !hasErrors(found);
    problems.insert(problems.end(), found.begin(), found.end());
    return ok ? std::shared_ptr<const OpPatternTable>(std::move(table)) : nullptr;
}

} // namespace cleave
