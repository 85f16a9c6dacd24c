// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/project/ProjectFile.h"

#include "core/graph/JsonParse.h"
#include "core/support/FileIo.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace cleave {

namespace {

constexpr int projectVersion = 1;
namespace fs = std::filesystem;

Diagnostic projectDiagnostic(Severity severity, std::string code, std::string message,
                             const std::string &path)
{
    Diagnostic d = Diagnostic::make(severity, std::move(code), std::move(message));
    d.where.file = path;
    return d;
}

fs::path absoluteClean(const fs::path &p)
{
    std::error_code ec;
    fs::path absolute = fs::absolute(p, ec);
    return (ec ? p : absolute).lexically_normal();
}

bool readView(const nlohmann::json &json, ProjectViewState &view)
{
    if (!json.is_object())
        return false;
    if (json.contains("zoom")) {
        if (!json["zoom"].is_number() || json["zoom"].get<double>() <= 0.0)
            return false;
        view.zoom = json["zoom"].get<double>();
    }
    if (json.contains("center")) {
        const nlohmann::json &c = json["center"];
        if (!c.is_array() || c.size() != 2 || !c[0].is_number() || !c[1].is_number())
            return false;
        view.centerX = c[0].get<double>();
        view.centerY = c[1].get<double>();
        view.hasCenter = true;
    }
    if (json.contains("tool")) {
        if (!json["tool"].is_string())
            return false;
        view.tool = json["tool"].get<std::string>();
        if (view.tool != "select" && view.tool != "cut")
            return false;
    }
    if (json.contains("level")) {
        if (!json["level"].is_string())
            return false;
        view.level = json["level"].get<std::string>();
        if (view.level != "ops" && view.level != "blocks")
            return false;
    }
    return true;
}

/// The member of a view that is out of range ("zoom", "center"), or "".
std::string viewOutOfRange(const ProjectViewState &view)
{
    if (!std::isfinite(view.zoom) || view.zoom < minProjectZoom || view.zoom > maxProjectZoom)
        return "zoom";
    const auto far
        = [](double c) { return !std::isfinite(c) || std::abs(c) > maxProjectCoordinate; };
    if (view.hasCenter && (far(view.centerX) || far(view.centerY)))
        return "center";
    return {};
}

std::string formatNumber(double value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

} // namespace

Project makeProject(const PartitionPlan &plan, const std::string &projectPath,
                    const ProjectViewState &view, const ProjectSettings &settings)
{
    Project project;
    const Graph &graph = plan.graph();
    const fs::path model = absoluteClean(graph.sourcePath());
    const fs::path folder = absoluteClean(projectPath).parent_path();
    // Relative paths keep a project and its model movable together; a model on another root
    // (or an empty path) stays as it is.
    const fs::path relative = model.lexically_relative(folder);
    project.modelPath = !graph.sourcePath().empty() && !relative.empty()
            && model.root_path() == folder.root_path()
        ? relative.generic_string()
        : model.generic_string();
    project.modelChecksum = graph.checksum();
    project.plan = planToJson(plan);
    project.plan["model"]["path"] = project.modelPath;
    // The editor's colour of each partition, so a reopened project looks the same.
    nlohmann::json &partitions = project.plan["partitions"];
    for (std::size_t i = 0; i < partitions.size() && i < plan.partitionCount(); ++i)
        partitions[i]["colour"] = plan.partitions()[i].colour;
    project.view = view;
    project.settings = storedSettings(settings, projectPath);
    return project;
}

nlohmann::json projectToJson(const Project &project)
{
    nlohmann::json view = { { "zoom", project.view.zoom },
                            { "tool", project.view.tool },
                            { "level", project.view.level } };
    if (project.view.hasCenter)
        view["center"] = { project.view.centerX, project.view.centerY };
    nlohmann::json json
        = { { "cleave_project", projectVersion },
            { "model", { { "path", project.modelPath }, { "checksum", project.modelChecksum } } },
            { "plan", project.plan },
            { "view", view } };
    // Projects with default settings stay as they were before settings existed.
    if (!project.settings.isDefault())
        json["settings"] = settingsToJson(project.settings);
    return json;
}

ProjectLoadResult projectFromJson(std::string_view text, const std::string &path)
{
    ProjectLoadResult result;
    auto error = [&](const char *code, std::string message, const std::string &pointer = {}) {
        Diagnostic d = projectDiagnostic(Severity::Error, code, std::move(message), path);
        d.where = locateJsonValue(text, path, pointer);
        result.diagnostics.push_back(std::move(d));
    };

    const std::optional<nlohmann::json> parsed = parseJsonLocated(
        text, path, "project.syntax", result.diagnostics, "the project file is not valid JSON");
    if (!parsed)
        return result;
    const nlohmann::json &doc = *parsed;
    if (!doc.is_object() || !doc.contains("cleave_project")
        || !doc["cleave_project"].is_number_integer()) {
        error("project.version",
              "not a Cleave project file (no integer \"cleave_project\" version)",
              doc.is_object() && doc.contains("cleave_project") ? "/cleave_project" : "");
        return result;
    }
    if (doc["cleave_project"] != projectVersion) {
        error("project.version",
              "project file version " + doc["cleave_project"].dump()
                  + " is not supported (this Cleave reads version " + std::to_string(projectVersion)
                  + ")",
              "/cleave_project");
        return result;
    }
    const nlohmann::json *model = doc.contains("model") ? &doc["model"] : nullptr;
    if (!model || !model->is_object() || !model->contains("path") || !(*model)["path"].is_string()
        || (*model)["path"].get<std::string>().empty()) {
        error("project.schema", R"(the project names no model ("model": {"path": ...}))", "/model");
        return result;
    }
    if (model->contains("checksum") && !(*model)["checksum"].is_string()) {
        error("project.schema", "the model checksum is not a string", "/model/checksum");
        return result;
    }
    if (!doc.contains("plan") || !doc["plan"].is_object()) {
        error("project.schema", "the project has no \"plan\" object",
              doc.contains("plan") ? "/plan" : "");
        return result;
    }
    Project project;
    project.modelPath = (*model)["path"].get<std::string>();
    if (model->contains("checksum"))
        project.modelChecksum = (*model)["checksum"].get<std::string>();
    project.plan = doc["plan"];
    project.sourceText = std::string(text);
    if (doc.contains("view") && !readView(doc["view"], project.view)) {
        error("project.schema",
              "the \"view\" object is malformed (zoom > 0, center [x, y], tool select|cut, "
              "level ops|blocks)",
              "/view");
        return result;
    }
    if (const std::string bad = viewOutOfRange(project.view); !bad.empty()) {
        // The view is a convenience: a zoom of 1e308 opened an empty canvas. Fit instead.
        Diagnostic d = projectDiagnostic(
            Severity::Warning, "project.view",
            "the saved view is out of range (zoom from " + formatNumber(minProjectZoom) + " to "
                + formatNumber(maxProjectZoom)
                + ", centre coordinates within ±1e9); the model is shown whole instead",
            path);
        d.where = locateJsonValue(text, path, "/view/" + bad);
        result.diagnostics.push_back(std::move(d));
        project.view.zoom = 1.0;
        project.view.hasCenter = false;
        project.view.centerX = project.view.centerY = 0.0;
    }
    if (doc.contains("settings")
        && !settingsFromJson(doc["settings"], text, path, project.settings, result.diagnostics))
        return result;
    result.project = std::move(project);
    return result;
}

ProjectLoadResult loadProjectFile(const std::string &path)
{
    const std::optional<std::string> bytes = readFile(path);
    if (!bytes) {
        ProjectLoadResult result;
        result.diagnostics.push_back(projectDiagnostic(Severity::Error, "project.unreadable",
                                                       "cannot open the project file", path));
        return result;
    }
    return projectFromJson(*bytes, path);
}

bool saveProjectFile(const Project &project, const std::string &path, std::string *error)
{
    return writeFileAtomically(
        path,
        projectToJson(project).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n',
        error);
}

std::string resolveModelPath(const Project &project, const std::string &projectPath)
{
    const fs::path model(project.modelPath);
    if (model.is_absolute())
        return model.lexically_normal().string();
    return (absoluteClean(projectPath).parent_path() / model).lexically_normal().string();
}

bool modelChanged(const Project &project, const Graph &graph)
{
    return !project.modelChecksum.empty() && project.modelChecksum != graph.checksum();
}

PlanLoadResult projectPlan(const Project &project, const Graph &graph,
                           const std::string &projectPath, bool force)
{
    PlanLoadOptions options;
    options.force = force;
    options.enclosingText = project.sourceText;
    options.embeddedAt = "/plan";
    return planFromJson(graph,
                        project.plan.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                        projectPath, options);
}

} // namespace cleave
