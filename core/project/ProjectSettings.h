// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// The engine options a project keeps beside its plan: what cleave-cli takes as flags
/// (`--op-support`, `--latency`, `--fold-batch-norm`, `--transparent-stop-fusion`,
/// `--op-patterns`, `--params`, `--lift-constants`). The partitioned function (`--function`)
/// and the partitions' targets are part of the plan itself.
///
/// Paths are absolute where the editor uses them (resolvedSettings()) and stored like the
/// model's path in a Project (storedSettings(): relative to the project's folder when they share
/// a root). As JSON:
/// ```
/// "settings": {"op_support": ["ops/dnnl.json"], "latency": "lat.json",
///              "fusion": {"fold_batch_norm": true, "transparent_stop_fusion": false,
///                         "op_patterns": "patterns.json"},
///              "params": ["conv1.weight"], "export": {"lift_constants": true}}
/// ```
/// Every key is optional; a project without `settings` (written before they existed) has the
/// defaults below.
struct ProjectSettings
{
    std::vector<std::string> opSupportFiles; ///< Op-support lists, in loading order.
    std::string latencyFile; ///< A latency table (LatencyTable), or empty.
    std::string opPatternsFile; ///< Extra or overriding op patterns (OpPatternTable), or empty.
    bool foldBatchNorm = false; ///< FusionOptions::foldBatchNorm.
    bool transparentStopFusion = false; ///< FusionOptions::transparentStopFusion.
    std::vector<std::string> params; ///< Global inputs the user marks as parameters.
    bool liftConstants = false; ///< ExportOptions::liftConstants.

    /// True when every option has its default (nothing worth writing).
    [[nodiscard]] bool isDefault() const { return *this == ProjectSettings {}; }

    friend bool operator==(const ProjectSettings &, const ProjectSettings &) = default;
};

/// `path` as a project at `projectPath` stores it: relative to the project's folder when both
/// share a root, else absolute (forward slashes either way). Empty stays empty.
std::string storedProjectPath(const std::string &path, const std::string &projectPath);

/// The absolute path of a path stored in the project at `projectPath` (see storedProjectPath).
std::string resolveProjectPath(const std::string &stored, const std::string &projectPath);

/// The settings with absolute paths as the project at `projectPath` stores them.
ProjectSettings storedSettings(ProjectSettings settings, const std::string &projectPath);
/// The settings of the project at `projectPath` with its stored paths made absolute.
ProjectSettings resolvedSettings(ProjectSettings settings, const std::string &projectPath);

/// The `settings` object of a project file (paths as stored).
nlohmann::json settingsToJson(const ProjectSettings &settings);

/// Reads the `settings` object of the project file `path` (paths kept as stored). A malformed
/// entry is a `project.schema` error located in `text` (the project's text) at its JSON
/// pointer under `/settings`; false when there was one.
bool settingsFromJson(const nlohmann::json &json, std::string_view text, const std::string &path,
                      ProjectSettings &settings, std::vector<Diagnostic> &diagnostics);

} // namespace cleave
