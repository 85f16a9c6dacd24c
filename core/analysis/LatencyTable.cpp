// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/LatencyTable.h"

#include "core/graph/FunctionView.h"
#include "core/graph/JsonParse.h"
#include "core/support/FileIo.h"
#include "core/support/JsonLocator.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace cleave {

namespace {

Diagnostic located(std::string code, std::string message, SourceLocation where,
                   const std::string &path)
{
    Diagnostic d = Diagnostic::make(Severity::Error, std::move(code), std::move(message));
    d.where = std::move(where);
    if (d.where.file.empty())
        d.where.file = path;
    return d;
}

/// One line from a "provenance" object: runtime and version, provider, threads, runs, host.
std::string provenanceLine(const nlohmann::json &p)
{
    std::string line;
    auto add = [&line](const std::string &part) {
        if (!part.empty())
            line += (line.empty() ? "" : ", ") + part;
    };
    auto text = [&p](const char *key) {
        const auto it = p.find(key);
        if (it == p.end())
            return std::string();
        return it->is_string() ? it->get<std::string>() : it->dump();
    };
    if (!text("onnxruntime").empty())
        add("onnxruntime " + text("onnxruntime"));
    else
        add(text("tool"));
    add(text("execution_provider"));
    if (const std::string t = text("intra_op_threads"); !t.empty())
        add(t + (t == "1" ? " thread" : " threads"));
    if (const std::string r = text("runs"); !r.empty())
        add(text("statistic").empty() ? r + " runs" : text("statistic") + " of " + r + " runs");
    if (const std::string h = text("host"); !h.empty())
        add("host " + h);
    return line.size() > 200 ? line.substr(0, 200) : line;
}

} // namespace

bool LatencyTable::readCalibration(const nlohmann::json &c, LatencyTable &table,
                                   const std::function<SourceLocation(const std::string &)> &at,
                                   const std::string &path, std::vector<Diagnostic> &diagnostics)
{
    if (!c.is_object()) {
        diagnostics.push_back(
            located("latency.type", "\"calibration\" must be an object", at("/calibration"), path));
        return false;
    }
    LatencyCalibration cal;
    bool ok = true;
    auto number = [&](const char *key, double limit) -> std::optional<double> {
        const auto it = c.find(key);
        if (it == c.end())
            return std::nullopt;
        const double v = it->is_number() ? it->get<double>() : -1.0;
        if (!std::isfinite(v) || v < 0 || v > limit) {
            diagnostics.push_back(
                located("latency.value",
                        std::string("calibration ") + key + ": expected a number from 0 to "
                            + (limit == maxLatencyUs ? std::string("3.6e9") : std::string("1e15"))
                            + ", got " + boundedJson(*it),
                        at(std::string("/calibration/") + key), path));
            ok = false;
            return std::nullopt;
        }
        return v;
    };
    cal.runOverheadUs = number("run_overhead_us", maxLatencyUs).value_or(0.0);
    cal.handoffUs = number("handoff_us", maxLatencyUs);
    cal.copyBytesPerSecond = number("copy_bytes_per_second", 1e15);
    if (cal.copyBytesPerSecond && *cal.copyBytesPerSecond <= 0)
        cal.copyBytesPerSecond.reset();
    if (ok)
        table.m_calibration = cal;
    return ok;
}

std::optional<LatencyTable> LatencyTable::fromJson(std::string_view text, const std::string &path,
                                                   std::vector<Diagnostic> &diagnostics)
{
    const std::optional<nlohmann::json> parsed
        = parseJsonLocated(text, path, "latency.syntax", diagnostics);
    if (!parsed)
        return std::nullopt;
    const nlohmann::json &doc = *parsed;
    auto at = [&](const std::string &pointer) { return locateJsonValue(text, path, pointer); };
    if (!doc.is_object() || (!doc.contains("ops") && !doc.contains("nodes"))) {
        diagnostics.push_back(located("latency.type",
                                      "a latency file is a JSON object with \"ops\" and/or "
                                      "\"nodes\" mapping names to latencies",
                                      at(""), path));
        return std::nullopt;
    }
    double scale = 1.0;
    if (const auto unit = doc.find("unit"); unit != doc.end()) {
        const std::string u = unit->is_string() ? unit->get<std::string>() : unit->dump();
        if (u == "ns")
            scale = 1e-3;
        else if (u == "ms")
            scale = 1e3;
        else if (u != "us") {
            diagnostics.push_back(located("latency.unit",
                                          "unknown unit " + boundedJson(*unit)
                                              + " (expected \"ns\", "
                                                "\"us\" or \"ms\")",
                                          at("/unit"), path));
            return std::nullopt;
        }
    }
    LatencyTable table;
    bool ok = true;
    for (const char *section : { "ops", "nodes" }) {
        const auto it = doc.find(section);
        if (it == doc.end())
            continue;
        if (!it->is_object()) {
            diagnostics.push_back(located("latency.type",
                                          std::string("\"") + section + "\" must be an object",
                                          at(std::string("/") + section), path));
            ok = false;
            continue;
        }
        for (const auto &[name, value] : it->items()) {
            // At most an hour per operator: a latency beyond it (1e308) is a typo, and would
            // overflow every sum it enters.
            const double us = value.is_number() ? value.get<double>() * scale : -1.0;
            if (!std::isfinite(us) || us < 0 || us > maxLatencyUs) {
                diagnostics.push_back(located(
                    "latency.value",
                    std::string(section) + " entry " + quoteBounded(name)
                        + ": expected a number of microseconds from 0 to 3.6e9 (an hour), got "
                        + boundedJson(value),
                    at((nlohmann::json::json_pointer() / section / name).to_string()), path));
                ok = false;
                continue;
            }
            if (std::string_view(section) == "ops")
                table.setOp(name, us);
            else
                table.setNode(name, us);
        }
    }
    if (const auto it = doc.find("calibration"); it != doc.end()) {
        if (!readCalibration(*it, table, at, path, diagnostics))
            ok = false;
    }
    if (const auto it = doc.find("provenance"); it != doc.end() && it->is_object())
        table.m_provenance = provenanceLine(*it);
    if (!ok)
        return std::nullopt;
    return table;
}

std::optional<LatencyTable> LatencyTable::load(const std::string &path,
                                               std::vector<Diagnostic> &diagnostics)
{
    const std::optional<std::string> text = readFile(path);
    if (!text) {
        diagnostics.push_back(
            located("latency.unreadable", "cannot open the latency file", {}, path));
        return std::nullopt;
    }
    return fromJson(*text, path, diagnostics);
}

std::optional<double> LatencyTable::opLatency(const std::string &op) const
{
    const auto it = m_ops.find(op);
    return it == m_ops.end() ? std::nullopt : std::optional<double>(it->second);
}

std::optional<double> LatencyTable::bodyLatency(const Graph &graph, FunctionId f) const
{
    double total = 0;
    for (NodeId n : graph.function(f).nodes) {
        const Node &node = graph.node(n);
        if (!node.isOperator())
            continue;
        const std::optional<double> l = latency(graph, n);
        if (!l)
            return std::nullopt;
        total += *l;
    }
    return total;
}

std::optional<double> LatencyTable::latency(const Graph &graph, NodeId node) const
{
    if (const auto it = m_nodes.find(graph.key(node)); it != m_nodes.end())
        return it->second;
    const Node &n = graph.node(node);
    if (!n.isOperator())
        return 0.0;
    if (n.kind == NodeKind::OpCall || n.kind == NodeKind::ConstructorCall)
        return opLatency(n.op);
    if (n.kind == NodeKind::FunctionCall && n.callee.isValid()) {
        const Function &callee = graph.function(n.callee);
        for (const std::string &name : { callee.name, callee.composite() }) {
            if (const auto l = name.empty() ? std::nullopt : opLatency(name))
                return l;
        }
        if (callee.isPrimitive()) {
            if (const auto l = opLatency(fusedName(graph, n.callee)))
                return l;
        }
        // Fused and composite bodies are small and never recursive; a global function may be.
        if (callee.isPrimitive() || !callee.composite().empty())
            return bodyLatency(graph, n.callee);
    }
    return std::nullopt; // If, Match, closures: only a node entry can cost them
}

} // namespace cleave
