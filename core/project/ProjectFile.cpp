// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/project/ProjectFile.h"

#include "core/support/FileIo.h"

#include <algorithm>
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

// The 1-based line and column of byte `offset` (nlohmann reports one past the bad byte).
// Where the JSON parser gives up on `text`, for errors whose exception carries no offset (a
// number out of range such as 1e999 is an out_of_range, not a parse_error).
std::size_t failureOffset(std::string_view text)
{
    struct Sax : nlohmann::json_sax<nlohmann::json>
    {
        std::size_t offset = 0;
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t &) override { return true; }
        bool string(string_t &) override { return true; }
        bool binary(binary_t &) override { return true; }
        bool start_object(std::size_t) override { return true; }
        bool key(string_t &) override { return true; }
        bool end_object() override { return true; }
        bool start_array(std::size_t) override { return true; }
        bool end_array() override { return true; }
        bool parse_error(std::size_t position, const std::string &,
                         const nlohmann::detail::exception &) override
        {
            offset = position;
            return false;
        }
    } sax;
    nlohmann::json::sax_parse(text, &sax);
    // The parser stops after the token; point at its first character.
    auto inNumber = [](char c) {
        return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    };
    std::size_t start = std::min(sax.offset, text.size());
    if (start == 0 || !inNumber(text[start - 1]))
        return sax.offset;
    while (start > 0 && inNumber(text[start - 1]))
        --start;
    return start + 1;
}

SourceLocation locate(std::string_view text, std::size_t offset, const std::string &path)
{
    SourceLocation where { path, 1, 1 };
    for (std::size_t i = 0; i + 1 < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++where.line;
            where.column = 1;
        } else {
            ++where.column;
        }
    }
    return where;
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

} // namespace

Project makeProject(const PartitionPlan &plan, const std::string &projectPath,
                    const ProjectViewState &view)
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
    return project;
}

nlohmann::json projectToJson(const Project &project)
{
    nlohmann::json view = { { "zoom", project.view.zoom },
                            { "tool", project.view.tool },
                            { "level", project.view.level } };
    if (project.view.hasCenter)
        view["center"] = { project.view.centerX, project.view.centerY };
    return { { "cleave_project", projectVersion },
             { "model", { { "path", project.modelPath }, { "checksum", project.modelChecksum } } },
             { "plan", project.plan },
             { "view", view } };
}

ProjectLoadResult projectFromJson(std::string_view text, const std::string &path)
{
    ProjectLoadResult result;
    auto error = [&](const char *code, std::string message) {
        result.diagnostics.push_back(
            projectDiagnostic(Severity::Error, code, std::move(message), path));
    };

    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        Diagnostic d = projectDiagnostic(Severity::Error, "project.syntax",
                                         "the project file is not valid JSON", path);
        d.where = locate(text, e.byte, path);
        result.diagnostics.push_back(std::move(d));
        return result;
    } catch (const nlohmann::json::exception &) {
        // A number too large for a double, and the like: a syntax error at that place too.
        Diagnostic d = projectDiagnostic(Severity::Error, "project.syntax",
                                         "the project file holds a number out of range", path);
        d.where = locate(text, failureOffset(text), path);
        result.diagnostics.push_back(std::move(d));
        return result;
    }
    if (!doc.is_object() || !doc.contains("cleave_project")
        || !doc["cleave_project"].is_number_integer()) {
        error("project.version", "not a Cleave project file (no \"cleave_project\" version)");
        return result;
    }
    if (doc["cleave_project"].get<int>() != projectVersion) {
        error("project.version",
              "project file version " + std::to_string(doc["cleave_project"].get<int>())
                  + " is not supported (this Cleave reads version " + std::to_string(projectVersion)
                  + ")");
        return result;
    }
    const nlohmann::json *model = doc.contains("model") ? &doc["model"] : nullptr;
    if (!model || !model->is_object() || !model->contains("path") || !(*model)["path"].is_string()
        || (*model)["path"].get<std::string>().empty()) {
        error("project.schema", "the project names no model (\"model\": {\"path\": ...})");
        return result;
    }
    if (model->contains("checksum") && !(*model)["checksum"].is_string()) {
        error("project.schema", "the model checksum is not a string");
        return result;
    }
    if (!doc.contains("plan") || !doc["plan"].is_object()) {
        error("project.schema", "the project has no \"plan\" object");
        return result;
    }
    Project project;
    project.modelPath = (*model)["path"].get<std::string>();
    if (model->contains("checksum"))
        project.modelChecksum = (*model)["checksum"].get<std::string>();
    project.plan = doc["plan"];
    if (doc.contains("view") && !readView(doc["view"], project.view)) {
        error("project.schema",
              "the \"view\" object is malformed (zoom > 0, center [x, y], tool select|cut, "
              "level ops|blocks)");
        return result;
    }
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
    return writeFileAtomically(path, projectToJson(project).dump(2) + '\n', error);
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
    return planFromJson(graph, project.plan.dump(), projectPath, options);
}

} // namespace cleave
