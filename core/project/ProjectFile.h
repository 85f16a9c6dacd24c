// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/PlanFile.h"
#include "core/project/ProjectSettings.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// The zoom and centre range a project's saved view may hold; beyond it (a zoom of 1e308) the
/// loader warns (`project.view`) and the editor fits the model instead.
inline constexpr double minProjectZoom = 1e-4;
inline constexpr double maxProjectZoom = 100.0;
inline constexpr double maxProjectCoordinate = 1e9;

/// How the editor showed the model when the project was saved. Coordinates are the canvas's
/// scene coordinates; `tool` is "select" or "cut", `level` is "ops" or "blocks".
struct ProjectViewState
{
    double zoom = 1.0;
    double centerX = 0.0;
    double centerY = 0.0;
    bool hasCenter = false; ///< False: the editor fits the graph instead.
    std::string tool = "select";
    std::string level = "ops";

    friend bool operator==(const ProjectViewState &, const ProjectViewState &) = default;
};

/// A Cleave project (`.cleave`, JSON version 1): which model, the plan, and the view.
/// ```
/// {"cleave_project": 1,
///  "model": {"path": "../samples/resnet18.relay", "checksum": "<sha-256 hex>"},
///  "plan": { ...the plan file object (PlanFile.h)... },
///  "view": {"zoom": 0.8, "center": [412.0, 960.5], "tool": "cut", "level": "ops"},
///  "settings": { ...engine options (ProjectSettings.h), only when not all default... }}
/// ```
/// The model path is stored relative to the project's folder when the model lives on the same
/// file system tree, else absolute.
struct Project
{
    std::string modelPath; ///< As stored: relative to the project's folder, or absolute.
    std::string modelChecksum; ///< SHA-256 of the model file when the project was saved.
    nlohmann::json plan; ///< The plan in the plan-file format (planToJson).
    ProjectViewState view;
    ProjectSettings settings; ///< Paths as stored (see storedSettings()).
    /// The text the project was read from (empty for a new project): plan diagnostics point
    /// at their line and column in it.
    std::string sourceText;
};

/// A read project and everything worth saying about the file. `project` is set only when the
/// file could be read and has the required fields.
struct ProjectLoadResult
{
    std::optional<Project> project;
    std::vector<Diagnostic> diagnostics;

    [[nodiscard]] bool ok() const { return project.has_value() && !hasErrors(diagnostics); }
};

/// Builds the project of `plan` (whose graph's source path and checksum name the model) as it
/// will be saved at `projectPath`, with the engine `settings` (absolute paths).
Project makeProject(const PartitionPlan &plan, const std::string &projectPath,
                    const ProjectViewState &view = {}, const ProjectSettings &settings = {});

/// The project as JSON.
nlohmann::json projectToJson(const Project &project);

/// Reads a project from JSON text. Problems become diagnostics (codes `project.*`) naming `path`:
/// invalid JSON (with line and column), a wrong or missing version, missing or mistyped model,
/// plan, view or settings fields. A project without settings has the default ones.
ProjectLoadResult projectFromJson(std::string_view text, const std::string &path);

/// Reads a project file from disk (see projectFromJson); an unreadable file is
/// `project.unreadable`.
ProjectLoadResult loadProjectFile(const std::string &path);

/// Writes the project atomically: a temporary file beside `path` is renamed over it, so an
/// existing project is never left half-written. Returns false and sets `error` on failure.
bool saveProjectFile(const Project &project, const std::string &path, std::string *error = nullptr);

/// The absolute path of the project's model, resolving a relative path against the folder of
/// `projectPath`.
std::string resolveModelPath(const Project &project, const std::string &projectPath);

/// True when the model file's checksum differs from the one the project recorded.
bool modelChanged(const Project &project, const Graph &graph);

/// The project's plan applied to `graph` (see planFromJson). With `force`, a plan for a model
/// whose checksum changed is accepted with a warning; node keys the model no longer has are
/// still errors.
PlanLoadResult projectPlan(const Project &project, const Graph &graph,
                           const std::string &projectPath, bool force);

} // namespace cleave
