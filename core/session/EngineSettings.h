// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/LatencyTable.h"
#include "core/analysis/OpPattern.h"
#include "core/graph/Diagnostic.h"
#include "core/project/ProjectSettings.h"
#include "core/validation/Validation.h"

#include <memory>
#include <string>
#include <vector>

namespace cleave {

/// One loaded op-support file: its path and the lists it holds (one per target).
struct OpSupportFile
{
    std::string path;
    std::vector<OpSupportList> lists;
};

/// The engine options of the open document — what cleave-cli takes as flags — with the tables
/// they load: op-support lists (target support rule), a latency table (latency column, balance,
/// `cost.balance`), the FuseOps options (blocks), the inputs marked as parameters and lifted
/// constants (validation and export). A value type: tables are shared, immutable, so a copy
/// (an undo command's before and after) costs little.
struct EngineSettings
{
    std::vector<std::shared_ptr<const OpSupportFile>> opSupport;
    std::shared_ptr<const LatencyTable> latency;
    std::string latencyPath;
    std::shared_ptr<const OpPatternTable> opPatterns; ///< Built-in table plus the file.
    std::string opPatternsPath;
    bool foldBatchNorm = false;
    bool transparentStopFusion = false;
    bool liftConstants = false;
    std::vector<std::string> params; ///< Global inputs marked as parameters, by name.

    /// What validateAll checks with these settings (the op-support lists are copied; the latency
    /// table is pointed to and must outlive the options).
    [[nodiscard]] ValidationOptions validationOptions() const;
    /// The FuseOps options (the pattern table is pointed to).
    [[nodiscard]] FusionOptions fusionOptions() const;
    /// True when `other` forms the same blocks.
    [[nodiscard]] bool sameFusion(const EngineSettings &other) const;
    /// The targets the op-support lists name, each once, in loading order.
    [[nodiscard]] std::vector<std::string> supportedTargets() const;
    /// True when `name` is marked as a parameter.
    [[nodiscard]] bool isParam(const std::string &name) const;

    /// The settings as a project saves them (absolute paths).
    [[nodiscard]] ProjectSettings toProject() const;
    /// Loads what a project's settings (absolute paths) name. A file that cannot be read is left
    /// out and its problems (file:line:col) are added to `problems`.
    static EngineSettings fromProject(const ProjectSettings &project,
                                      std::vector<Diagnostic> &problems);

    /// Reads an op-support file; null with diagnostics when it is not one.
    static std::shared_ptr<const OpSupportFile> loadOpSupport(const std::string &path,
                                                              std::vector<Diagnostic> &problems);
    /// Reads a latency table; null with diagnostics when it is not one.
    static std::shared_ptr<const LatencyTable> loadLatency(const std::string &path,
                                                           std::vector<Diagnostic> &problems);
    /// Reads an op-pattern file over the built-in table; null with diagnostics when it is not
    /// one (entries with an unknown pattern are reported as errors too).
    static std::shared_ptr<const OpPatternTable> loadOpPatterns(const std::string &path,
                                                                std::vector<Diagnostic> &problems);
};

} // namespace cleave
