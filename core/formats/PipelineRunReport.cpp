// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/formats/PipelineRunReport.h"

#include "core/graph/JsonParse.h"
#include "core/support/FileIo.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace cleave {

namespace {

/// A finite non-negative number at `key`, or nullopt.
std::optional<double> number(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number())
        return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) && v >= 0 ? std::optional<double>(v) : std::nullopt;
}

std::string textAt(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

std::optional<PipelineRunReport> readPipelineRunReport(const std::string &path, std::string &error)
{
    const auto bytes = readRegularFile(path, 64u << 20, error);
    if (!bytes)
        return std::nullopt;
    return parsePipelineRunReport(*bytes, path, error);
}

std::optional<PipelineRunReport> parsePipelineRunReport(std::string_view text,
                                                        const std::string &path, std::string &error)
{
    std::vector<Diagnostic> problems;
    const auto parsed = parseJsonLocated(text, path, "run_report.syntax", problems);
    if (!parsed) {
        error = problems.empty() ? path + ": not JSON" : problems.front().toString();
        return std::nullopt;
    }
    const nlohmann::json &j = *parsed;
    if (!j.is_object() || !j.contains("stages") || !j["stages"].is_array()) {
        Diagnostic d = Diagnostic::make(Severity::Error, "run_report.type",
                                        R"(not a run report (run_pipeline.py --bench N --json )"
                                        R"(FILE writes one: an object with "stages"))");
        d.where = locateJsonValue(text, path, "");
        error = d.toString();
        return std::nullopt;
    }
    PipelineRunReport r;
    r.runtime = textAt(j, "runtime");
    if (const std::string v = textAt(j, "runtime_version"); !v.empty())
        r.runtime += (r.runtime.empty() ? "" : " ") + v;
    r.mode = textAt(j, "mode");
    r.host = textAt(j, "host");
    r.bottleneck = textAt(j, "bottleneck");
    r.wholeUs = number(j, "whole_us").value_or(0.0);
    r.throughputPerSecond = number(j, "throughput_per_s").value_or(0.0);
    r.wholeThroughputPerSecond = number(j, "whole_throughput_per_s").value_or(0.0);
    if (j.contains("items")) {
        const auto items = number(j, "items");
        if (!items || *items > std::numeric_limits<int>::max() || std::floor(*items) != *items) {
            Diagnostic d = Diagnostic::make(Severity::Error, "run_report.items",
                                            R"("items" must be a whole number from 0 to )"
                                                + std::to_string(std::numeric_limits<int>::max()));
            d.where = locateJsonValue(text, path, "/items");
            error = d.toString();
            return std::nullopt;
        }
        r.items = static_cast<int>(*items);
    }
    for (std::size_t i = 0; i < j["stages"].size(); ++i) {
        const nlohmann::json &s = j["stages"][i];
        const auto measured = s.is_object() ? number(s, "measured_us") : std::nullopt;
        if (!measured || textAt(s, "name").empty()) {
            Diagnostic d
                = Diagnostic::make(Severity::Error, "run_report.stage",
                                   "stage " + std::to_string(i)
                                       + R"( needs a "name" and a non-negative "measured_us")");
            d.where = locateJsonValue(text, path, "/stages/" + std::to_string(i));
            error = d.toString();
            return std::nullopt;
        }
        r.stages.push_back({ textAt(s, "name"), *measured, number(s, "predicted_us") });
    }
    return r;
}

} // namespace cleave
