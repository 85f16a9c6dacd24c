// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/DeviceFile.h"

#include "core/support/FileIo.h"
#include "core/support/JsonLocator.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>

namespace cleave {

namespace {

/// Splits `12.5GiB` into 12.5 and `GiB` (spaces allowed between).
std::optional<std::pair<double, std::string>> numberAndUnit(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    std::size_t end = 0;
    while (end < text.size()
           && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'
               || text[end] == 'e' || text[end] == 'E' || text[end] == '+' || text[end] == '-'))
        ++end;
    // `e` may start a unit only if no digit follows; sizes never use it, so keep it simple.
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
    if (ec != std::errc() || ptr != text.data() + end || end == 0 || !std::isfinite(value)
        || value < 0)
        return std::nullopt;
    std::string unit(text.substr(end));
    while (!unit.empty() && unit.front() == ' ')
        unit.erase(unit.begin());
    return std::pair(value, unit);
}

std::optional<double> scaleOfSize(const std::string &unit)
{
    static const std::pair<const char *, double> units[] = { { "", 1 },
                                                             { "B", 1 },
                                                             { "KB", 1e3 },
                                                             { "MB", 1e6 },
                                                             { "GB", 1e9 },
                                                             { "TB", 1e12 },
                                                             { "KiB", 1024.0 },
                                                             { "MiB", 1048576.0 },
                                                             { "GiB", 1073741824.0 },
                                                             { "TiB", 1099511627776.0 } };
    for (const auto &[name, scale] : units) {
        if (unit == name)
            return scale;
    }
    return std::nullopt;
}

Diagnostic problem(std::string code, std::string message, const std::string &path,
                   SourceLocation where = {})
{
    Diagnostic d = Diagnostic::make(Severity::Error, std::move(code), std::move(message));
    d.where = std::move(where);
    if (d.where.file.empty())
        d.where.file = path;
    return d;
}

/// A JSON value that is a number or a string with a unit, as text.
std::optional<std::string> textOf(const nlohmann::json &v)
{
    if (v.is_number())
        return v.dump();
    if (v.is_string())
        return v.get<std::string>();
    return std::nullopt;
}

/// The most a device computes, in GFLOPS (an exaFLOPS): beyond it a rate is a typo.
constexpr double maxGflops = 1e9;

bool parseDevice(const nlohmann::json &e, std::size_t index, const std::string &path,
                 const SourceLocation &at, DeviceSet &set, std::vector<Diagnostic> &diagnostics)
{
    const std::string where = "device " + std::to_string(index);
    if (!e.is_object()) {
        diagnostics.push_back(problem("devices.type", where + " must be an object", path, at));
        return false;
    }
    DeviceSpec d;
    d.name = "device" + std::to_string(index);
    if (e.contains("name")) {
        if (!e["name"].is_string() || e["name"].get<std::string>().empty()) {
            diagnostics.push_back(
                problem("devices.name", where + ": \"name\" must be a non-empty string", path, at));
            return false;
        }
        d.name = e["name"].get<std::string>();
    }
    if (e.contains("target")) {
        if (!e["target"].is_string()) {
            diagnostics.push_back(problem("devices.target",
                                          where + R"(: "target" must be a string such as "cuda")",
                                          path, at));
            return false;
        }
        d.target = e["target"].get<std::string>();
    }
    if (e.contains("gflops")) {
        const double gflops = e["gflops"].is_number() ? e["gflops"].get<double>() : -1.0;
        if (!std::isfinite(gflops) || gflops <= 0 || gflops > maxGflops) {
            diagnostics.push_back(problem("devices.gflops",
                                          where
                                              + ": \"gflops\" must be a number above 0 and at "
                                                "most 1e9 (an exaFLOPS)",
                                          path, at));
            return false;
        }
        d.gflops = gflops;
    }
    if (e.contains("memory")) {
        const auto text = textOf(e["memory"]);
        d.memoryBytes = text ? parseByteSize(*text) : std::nullopt;
        if (!d.memoryBytes) {
            diagnostics.push_back(problem("devices.memory",
                                          where + R"(: "memory" must be a size such as "16GiB")",
                                          path, at));
            return false;
        }
    }
    if (e.contains("latency")) {
        if (!e["latency"].is_string()) {
            diagnostics.push_back(problem(
                "devices.latency", where + ": \"latency\" must name a latency file", path, at));
            return false;
        }
        std::filesystem::path file(e["latency"].get<std::string>());
        if (file.is_relative())
            file = std::filesystem::path(path).parent_path() / file;
        auto table = LatencyTable::load(file.string(), diagnostics);
        if (!table)
            return false;
        set.tables.push_back(std::make_unique<LatencyTable>(std::move(*table)));
        d.latency = set.tables.back().get();
    }
    set.devices.push_back(std::move(d));
    return true;
}

} // namespace

std::optional<std::int64_t> parseByteSize(std::string_view text)
{
    const auto parsed = numberAndUnit(text);
    if (!parsed)
        return std::nullopt;
    const auto scale = scaleOfSize(parsed->second);
    if (!scale)
        return std::nullopt;
    const double bytes = parsed->first * *scale;
    if (bytes > 9e18)
        return std::nullopt;
    return static_cast<std::int64_t>(std::llround(bytes));
}

std::optional<double> parseBandwidth(std::string_view text)
{
    const auto parsed = numberAndUnit(text);
    if (!parsed || parsed->first <= 0)
        return std::nullopt;
    std::string unit = parsed->second;
    if (unit.empty())
        return parsed->first * 1e9;
    if (unit.size() > 2 && unit.ends_with("/s"))
        unit.resize(unit.size() - 2);
    else
        return std::nullopt;
    const auto scale = scaleOfSize(unit);
    if (!scale)
        return std::nullopt;
    return parsed->first * *scale;
}

std::optional<double> parseDurationUs(std::string_view text)
{
    const auto parsed = numberAndUnit(text);
    if (!parsed)
        return std::nullopt;
    const std::string &unit = parsed->second;
    if (unit.empty() || unit == "us")
        return parsed->first;
    if (unit == "ns")
        return parsed->first / 1e3;
    if (unit == "ms")
        return parsed->first * 1e3;
    if (unit == "s")
        return parsed->first * 1e6;
    return std::nullopt;
}

std::optional<DeviceSet> parseDeviceFile(std::string_view text, const std::string &path,
                                         std::vector<Diagnostic> &diagnostics)
{
    nlohmann::json doc;
    const JsonLocator locator(text, path);
    try {
        doc = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error &e) {
        diagnostics.push_back(problem("devices.syntax", std::string("invalid JSON: ") + e.what(),
                                      path, locator.at(e.byte > 0 ? e.byte - 1 : 0)));
        return std::nullopt;
    } catch (const nlohmann::json::exception &e) {
        // A number out of range (1e999): nlohmann names the spelling, which locates it.
        const std::string what = e.what();
        const std::size_t open = what.find("parsing '");
        const std::size_t close = open == std::string::npos ? open : what.find('\'', open + 9);
        const std::string number
            = close == std::string::npos ? std::string() : what.substr(open + 9, close - open - 9);
        const std::size_t offset = number.empty() ? 0 : text.find(number);
        diagnostics.push_back(
            problem("devices.number",
                    "a number out of range" + (number.empty() ? std::string() : ": " + number),
                    path, locator.at(offset == std::string_view::npos ? 0 : offset)));
        return std::nullopt;
    }
    if (!doc.is_object() || !doc.contains("devices") || !doc["devices"].is_array()
        || doc["devices"].empty()) {
        diagnostics.push_back(
            problem("devices.type",
                    "a device file is a JSON object with a non-empty \"devices\" array", path));
        return std::nullopt;
    }
    DeviceSet set;
    const std::vector<std::size_t> offsets = JsonLocator::arrayElementOffsets(text, "devices");
    for (std::size_t i = 0; i < doc["devices"].size(); ++i) {
        const SourceLocation at = locator.at(i < offsets.size() ? offsets[i] : 0);
        if (!parseDevice(doc["devices"][i], i, path, at, set, diagnostics))
            return std::nullopt;
    }
    if (const auto links = doc.find("links"); links != doc.end()) {
        if (!links->is_object()) {
            diagnostics.push_back(problem("devices.links", "\"links\" must be an object", path));
            return std::nullopt;
        }
        if (links->contains("bandwidth")) {
            const auto t = textOf((*links)["bandwidth"]);
            const auto bw = t ? parseBandwidth(*t) : std::nullopt;
            if (!bw) {
                diagnostics.push_back(problem(
                    "devices.links", R"("bandwidth" must be a rate such as "12GB/s")", path));
                return std::nullopt;
            }
            set.link.bytesPerSecond = *bw;
        }
        if (links->contains("latency")) {
            const auto t = textOf((*links)["latency"]);
            const auto us = t ? parseDurationUs(*t) : std::nullopt;
            if (!us) {
                diagnostics.push_back(problem(
                    "devices.links", R"("latency" must be a duration such as "20us")", path));
                return std::nullopt;
            }
            set.link.latencyUs = *us;
        }
        set.hasLink = true;
    }
    return set;
}

std::optional<DeviceSet> loadDeviceFile(const std::string &path,
                                        std::vector<Diagnostic> &diagnostics)
{
    const std::optional<std::string> text = readFile(path);
    if (!text) {
        diagnostics.push_back(problem("devices.unreadable", "cannot read the device file", path));
        return std::nullopt;
    }
    return parseDeviceFile(*text, path, diagnostics);
}

} // namespace cleave
