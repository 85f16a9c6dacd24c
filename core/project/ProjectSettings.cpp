// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/project/ProjectSettings.h"

#include "core/graph/JsonParse.h"

#include <filesystem>
#include <system_error>
#include <utility>

namespace cleave {

namespace {

namespace fs = std::filesystem;

fs::path absoluteClean(const fs::path &p)
{
    std::error_code ec;
    fs::path absolute = fs::absolute(p, ec);
    return (ec ? p : absolute).lexically_normal();
}

/// Reads the settings object field by field; each reader reports where it failed.
class SettingsReader
{
public:
    SettingsReader(std::string_view text, const std::string &path,
                   std::vector<Diagnostic> &diagnostics)
        : m_text(text)
        , m_path(path)
        , m_diagnostics(diagnostics)
    {
    }

    [[nodiscard]] bool failed() const { return m_failed; }

    void error(const std::string &pointer, const std::string &message)
    {
        Diagnostic d = Diagnostic::make(Severity::Error, "project.schema", message);
        d.where = locateJsonValue(m_text, m_path, "/settings" + pointer);
        m_diagnostics.push_back(std::move(d));
        m_failed = true;
    }

    void readFlag(const nlohmann::json &object, const char *key, const std::string &pointer,
                  bool &out)
    {
        if (!object.contains(key))
            return;
        if (!object[key].is_boolean()) {
            error(pointer + "/" + key,
                  std::string("settings: \"") + key + "\" must be true or false");
            return;
        }
        out = object[key].get<bool>();
    }

    void readPath(const nlohmann::json &object, const char *key, const std::string &pointer,
                  std::string &out)
    {
        if (!object.contains(key))
            return;
        if (!object[key].is_string()) {
            error(pointer + "/" + key,
                  std::string("settings: \"") + key + "\" must be a file path");
            return;
        }
        out = object[key].get<std::string>();
    }

    void readStrings(const nlohmann::json &object, const char *key, std::vector<std::string> &out)
    {
        if (!object.contains(key))
            return;
        const nlohmann::json &list = object[key];
        const std::string pointer = std::string("/") + key;
        if (!list.is_array()) {
            error(pointer, std::string("settings: \"") + key + "\" must be a list of strings");
            return;
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_string() || list[i].get<std::string>().empty()) {
                error(pointer + "/" + std::to_string(i),
                      std::string("settings: every entry of \"") + key
                          + "\" must be a non-empty string");
                return;
            }
            out.push_back(list[i].get<std::string>());
        }
    }

private:
    std::string_view m_text;
    const std::string &m_path;
    std::vector<Diagnostic> &m_diagnostics;
    bool m_failed = false;
};

} // namespace

std::string storedProjectPath(const std::string &path, const std::string &projectPath)
{
    if (path.empty())
        return {};
    const fs::path file = absoluteClean(path);
    const fs::path folder = absoluteClean(projectPath).parent_path();
    const fs::path relative = file.lexically_relative(folder);
    return !relative.empty() && file.root_path() == folder.root_path() ? relative.generic_string()
                                                                       : file.generic_string();
}

std::string resolveProjectPath(const std::string &stored, const std::string &projectPath)
{
    if (stored.empty())
        return {};
    const fs::path file(stored);
    if (file.is_absolute())
        return file.lexically_normal().string();
    return (absoluteClean(projectPath).parent_path() / file).lexically_normal().string();
}

namespace {

/// `settings` with every file path it names passed through `map(path, projectPath)`.
ProjectSettings withMappedPaths(ProjectSettings settings, const std::string &projectPath,
                                std::string (*map)(const std::string &, const std::string &))
{
    for (std::string &file : settings.opSupportFiles)
        file = map(file, projectPath);
    settings.latencyFile = map(settings.latencyFile, projectPath);
    settings.opPatternsFile = map(settings.opPatternsFile, projectPath);
    return settings;
}

} // namespace

ProjectSettings storedSettings(ProjectSettings settings, const std::string &projectPath)
{
    return withMappedPaths(std::move(settings), projectPath, storedProjectPath);
}

ProjectSettings resolvedSettings(ProjectSettings settings, const std::string &projectPath)
{
    return withMappedPaths(std::move(settings), projectPath, resolveProjectPath);
}

nlohmann::json settingsToJson(const ProjectSettings &settings)
{
    nlohmann::json json = nlohmann::json::object();
    if (!settings.opSupportFiles.empty())
        json["op_support"] = settings.opSupportFiles;
    if (!settings.latencyFile.empty())
        json["latency"] = settings.latencyFile;
    nlohmann::json fusion = { { "fold_batch_norm", settings.foldBatchNorm },
                              { "transparent_stop_fusion", settings.transparentStopFusion } };
    if (!settings.opPatternsFile.empty())
        fusion["op_patterns"] = settings.opPatternsFile;
    json["fusion"] = std::move(fusion);
    json["params"] = settings.params;
    json["export"] = { { "lift_constants", settings.liftConstants } };
    return json;
}

bool settingsFromJson(const nlohmann::json &json, std::string_view text, const std::string &path,
                      ProjectSettings &settings, std::vector<Diagnostic> &diagnostics)
{
    SettingsReader reader(text, path, diagnostics);
    if (!json.is_object()) {
        reader.error("", "the \"settings\" of the project must be an object");
        return false;
    }
    reader.readStrings(json, "op_support", settings.opSupportFiles);
    reader.readPath(json, "latency", "", settings.latencyFile);
    reader.readStrings(json, "params", settings.params);
    if (json.contains("fusion")) {
        const nlohmann::json &fusion = json["fusion"];
        if (!fusion.is_object()) {
            reader.error("/fusion", "settings: \"fusion\" must be an object");
        } else {
            reader.readFlag(fusion, "fold_batch_norm", "/fusion", settings.foldBatchNorm);
            reader.readFlag(fusion, "transparent_stop_fusion", "/fusion",
                            settings.transparentStopFusion);
            reader.readPath(fusion, "op_patterns", "/fusion", settings.opPatternsFile);
        }
    }
    if (json.contains("export")) {
        const nlohmann::json &exportOptions = json["export"];
        if (!exportOptions.is_object())
            reader.error("/export", "settings: \"export\" must be an object");
        else
            reader.readFlag(exportOptions, "lift_constants", "/export", settings.liftConstants);
    }
    return !reader.failed();
}

} // namespace cleave
