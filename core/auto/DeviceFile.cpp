// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/DeviceFile.h"

#include "core/graph/JsonParse.h"
#include "core/support/FileIo.h"

#include <nlohmann/json.hpp>

#include <algorithm>
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

Diagnostic problem(std::string code, std::string message, SourceLocation where,
                   Severity severity = Severity::Error)
{
    Diagnostic d = Diagnostic::make(severity, std::move(code), std::move(message));
    d.where = std::move(where);
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

/// Reads one device file: every finding located at the value it is about.
class DeviceReader
{
public:
    DeviceReader(std::string_view text, const std::string &path,
                 std::vector<Diagnostic> &diagnostics)
        : m_path(path)
        , m_locator(text, path)
        , m_diagnostics(diagnostics)
    {
    }

    void error(std::string code, std::string message, const std::string &pointer)
    {
        m_diagnostics.push_back(
            problem(std::move(code), std::move(message), m_locator.at(pointer)));
        m_ok = false;
    }

    /// Keys a device file does not know are typos ("gflop"): a warning, and the value is unused.
    void checkKeys(const nlohmann::json &object, const std::string &pointer,
                   std::initializer_list<std::string_view> known)
    {
        for (const auto &[key, value] : object.items()) {
            if (std::find(known.begin(), known.end(), key) != known.end())
                continue;
            std::string list;
            for (std::string_view k : known)
                list += (list.empty() ? "\"" : ", \"") + std::string(k) + "\"";
            m_diagnostics.push_back(
                problem("devices.unknown_key",
                        "unknown key " + quoteBounded(key) + " (ignored; expected " + list + ")",
                        m_locator.at((nlohmann::json::json_pointer(pointer) / key).to_string()),
                        Severity::Warning));
        }
    }

    void readDevice(const nlohmann::json &e, std::size_t index, DeviceSet &set);
    void readLinks(const nlohmann::json &links, DeviceSet &set);
    [[nodiscard]] bool ok() const { return m_ok; }

private:
    const std::string &m_path;
    JsonValueLocator m_locator;
    std::vector<Diagnostic> &m_diagnostics;
    bool m_ok = true;
};

void DeviceReader::readDevice(const nlohmann::json &e, std::size_t index, DeviceSet &set)
{
    const std::string where = "device " + std::to_string(index);
    const std::string here = "/devices/" + std::to_string(index);
    if (!e.is_object()) {
        error("devices.type", where + " must be an object, got " + boundedJson(e), here);
        return;
    }
    checkKeys(e, here, { "name", "target", "gflops", "memory", "latency" });
    DeviceSpec d;
    d.name = "device" + std::to_string(index);
    if (const auto name = e.find("name"); name != e.end()) {
        if (!name->is_string() || name->get<std::string>().empty())
            error("devices.name",
                  where + ": \"name\" must be a non-empty string, got " + boundedJson(*name),
                  here + "/name");
        else
            d.name = name->get<std::string>();
    }
    if (const auto target = e.find("target"); target != e.end()) {
        if (!target->is_string() || target->get<std::string>().empty())
            error("devices.target",
                  where + R"(: "target" must be a string such as "cuda", got )"
                      + boundedJson(*target),
                  here + "/target");
        else
            d.target = target->get<std::string>();
    }
    if (const auto gflops = e.find("gflops"); gflops != e.end()) {
        const double rate = gflops->is_number() ? gflops->get<double>() : -1.0;
        if (!std::isfinite(rate) || rate < minGflops || rate > maxGflops)
            error("devices.gflops",
                  where + ": \"gflops\" must be a number from 0.001 to 1e9 (an exaFLOPS), got "
                      + boundedJson(*gflops),
                  here + "/gflops");
        else
            d.gflops = rate;
    }
    if (const auto memory = e.find("memory"); memory != e.end()) {
        const auto text = textOf(*memory);
        d.memoryBytes = text ? parseByteSize(*text) : std::nullopt;
        if (!d.memoryBytes || *d.memoryBytes <= 0)
            error("devices.memory",
                  where + R"(: "memory" must be a size above 0 such as "16GiB", got )"
                      + boundedJson(*memory),
                  here + "/memory");
    }
    if (const auto latency = e.find("latency"); latency != e.end()) {
        if (!latency->is_string() || latency->get<std::string>().empty()) {
            error("devices.latency",
                  where + ": \"latency\" must name a latency file, got " + boundedJson(*latency),
                  here + "/latency");
        } else {
            std::filesystem::path file(latency->get<std::string>());
            if (file.is_relative())
                file = std::filesystem::path(m_path).parent_path() / file;
            std::vector<Diagnostic> found;
            auto table = LatencyTable::load(file.string(), found);
            for (Diagnostic &d : found) {
                if (d.code == "latency.unreadable") // said where the device file names it
                    error("devices.latency",
                          where + ": cannot open the latency file " + file.string(),
                          here + "/latency");
                else
                    m_diagnostics.push_back(std::move(d));
            }
            if (table) {
                set.tables.push_back(std::make_unique<LatencyTable>(std::move(*table)));
                d.latency = set.tables.back().get();
            } else {
                m_ok = false;
            }
        }
    }
    set.devices.push_back(std::move(d));
}

void DeviceReader::readLinks(const nlohmann::json &links, DeviceSet &set)
{
    if (!links.is_object()) {
        error("devices.links", "\"links\" must be an object, got " + boundedJson(links), "/links");
        return;
    }
    checkKeys(links, "/links", { "bandwidth", "latency" });
    if (const auto bandwidth = links.find("bandwidth"); bandwidth != links.end()) {
        const auto text = textOf(*bandwidth);
        const auto rate = text ? parseBandwidth(*text) : std::nullopt;
        if (!rate)
            error("devices.links",
                  R"("bandwidth" must be a rate from 1KB/s to 1e9GB/s such as "12GB/s" (a number )"
                  "is GB/s), got "
                      + boundedJson(*bandwidth),
                  "/links/bandwidth");
        else
            set.link.bytesPerSecond = *rate;
    }
    if (const auto latency = links.find("latency"); latency != links.end()) {
        const auto text = textOf(*latency);
        const auto us = text ? parseDurationUs(*text) : std::nullopt;
        if (!us)
            error("devices.links",
                  R"("latency" must be a duration from 0 to an hour such as "20us" (a number is )"
                  "µs), got "
                      + boundedJson(*latency),
                  "/links/latency");
        else
            set.link.latencyUs = *us;
    }
    set.hasLink = true;
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
    if (!std::isfinite(bytes) || bytes > 9e18)
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
        unit = "GB/s";
    if (unit.size() > 2 && unit.ends_with("/s"))
        unit.resize(unit.size() - 2);
    else
        return std::nullopt;
    const auto scale = scaleOfSize(unit);
    if (!scale)
        return std::nullopt;
    const double rate = parsed->first * *scale;
    if (!(rate >= minBandwidthBytesPerSecond && rate <= maxBandwidthBytesPerSecond))
        return std::nullopt;
    return rate;
}

std::optional<double> parseDurationUs(std::string_view text)
{
    const auto parsed = numberAndUnit(text);
    if (!parsed)
        return std::nullopt;
    const std::string &unit = parsed->second;
    double us = 0;
    if (unit.empty() || unit == "us")
        us = parsed->first;
    else if (unit == "ns")
        us = parsed->first / 1e3;
    else if (unit == "ms")
        us = parsed->first * 1e3;
    else if (unit == "s")
        us = parsed->first * 1e6;
    else
        return std::nullopt;
    if (!(us >= 0 && us <= maxLatencyUs))
        return std::nullopt;
    return us;
}

std::optional<DeviceSet> parseDeviceFile(std::string_view text, const std::string &path,
                                         std::vector<Diagnostic> &diagnostics)
{
    const std::optional<nlohmann::json> parsed
        = parseJsonLocated(text, path, "devices.syntax", diagnostics);
    if (!parsed)
        return std::nullopt;
    const nlohmann::json &doc = *parsed;
    DeviceReader reader(text, path, diagnostics);
    const auto devices = doc.is_object() ? doc.find("devices") : doc.end();
    if (!doc.is_object() || devices == doc.end() || !devices->is_array() || devices->empty()) {
        reader.error("devices.type",
                     "a device file is a JSON object with a non-empty \"devices\" array",
                     devices == doc.end() ? "" : "/devices");
        return std::nullopt;
    }
    reader.checkKeys(doc, "", { "devices", "links" });
    DeviceSet set;
    for (std::size_t i = 0; i < devices->size(); ++i)
        reader.readDevice((*devices)[i], i, set);
    if (const auto links = doc.find("links"); links != doc.end())
        reader.readLinks(*links, set);
    if (!reader.ok())
        return std::nullopt;
    return set;
}

std::optional<DeviceSet> loadDeviceFile(const std::string &path,
                                        std::vector<Diagnostic> &diagnostics)
{
    const std::optional<std::string> text = readFile(path);
    if (!text) {
        diagnostics.push_back(
            problem("devices.unreadable", "cannot read the device file", SourceLocation { path }));
        return std::nullopt;
    }
    return parseDeviceFile(*text, path, diagnostics);
}

} // namespace cleave
