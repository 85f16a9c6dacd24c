// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/PlanFile.h"

#include "core/support/FileIo.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cleave {

namespace {

constexpr int planVersion = 1;

Diagnostic planDiagnostic(Severity s, const char *code, std::string message,
                          const std::string &path, std::vector<NodeId> nodes = {})
{
    Diagnostic d;
    d.severity = s;
    d.code = code;
    d.message = std::move(message);
    d.nodes = std::move(nodes);
    d.where.file = path;
    return d;
}

std::string keyList(const std::vector<std::string> &keys)
{
    std::string text;
    for (std::size_t i = 0; i < keys.size() && i < 8; ++i)
        text += (i ? ", " : "") + keys[i];
    if (keys.size() > 8)
        text += " and " + std::to_string(keys.size() - 8) + " more";
    return text;
}

} // namespace

nlohmann::json planToJson(const PartitionPlan &plan)
{
    const Graph &g = plan.graph();
    nlohmann::json partitions = nlohmann::json::array();
    for (const Partition &p : plan.partitions()) {
        nlohmann::json nodes = nlohmann::json::array();
        for (NodeId n : plan.nodesOf(p.id))
            nodes.push_back(g.key(n));
        partitions.push_back({ { "name", p.name }, { "target", p.target }, { "nodes", nodes } });
    }
    nlohmann::json cuts = nlohmann::json::array();
    for (const EdgeRef &e : plan.crossedEdges()) {
        cuts.push_back({ { "producer", g.key(e.tensor.node) },
                         { "output", e.tensor.output },
                         { "consumer", g.key(e.consumer) } });
    }
    nlohmann::json doc;
    doc["cleave_plan"] = planVersion;
    doc["model"] = { { "path", g.sourcePath() }, { "checksum", g.checksum() } };
    doc["function"] = g.function(plan.function()).name;
    doc["partitions"] = std::move(partitions);
    if (!cuts.empty())
        doc["cut_edges"] = std::move(cuts);
    return doc;
}

PlanLoadResult planFromJson(const Graph &graph, std::string_view text, const std::string &path,
                            const PlanLoadOptions &options)
{
    PlanLoadResult result;
    auto error = [&](const char *code, std::string message, std::vector<NodeId> nodes = {}) {
        result.diagnostics.push_back(
            planDiagnostic(Severity::Error, code, std::move(message), path, std::move(nodes)));
    };
    auto warning = [&](const char *code, std::string message, std::vector<NodeId> nodes = {}) {
        result.diagnostics.push_back(
            planDiagnostic(Severity::Warning, code, std::move(message), path, std::move(nodes)));
    };

    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        Diagnostic d = planDiagnostic(Severity::Error, "plan.syntax",
                                      "the plan file is not valid JSON", path);
        d.where.line = 1;
        d.where.column = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++d.where.line;
                d.where.column = 1;
            } else {
                ++d.where.column;
            }
        }
        result.diagnostics.push_back(std::move(d));
        return result;
    }
    if (!doc.is_object() || !doc.contains("cleave_plan")
        || !doc["cleave_plan"].is_number_integer()) {
        error("plan.version", "not a Cleave plan file (no \"cleave_plan\" version)");
        return result;
    }
    if (doc["cleave_plan"].get<int>() != planVersion) {
        error("plan.version",
              "plan file version " + std::to_string(doc["cleave_plan"].get<int>())
                  + " is not supported (this Cleave reads version " + std::to_string(planVersion)
                  + ")");
        return result;
    }
    if (!doc.contains("partitions") || !doc["partitions"].is_array()) {
        error("plan.schema", "the plan file has no \"partitions\" array");
        return result;
    }

    FunctionId function = graph.mainFunction();
    if (doc.contains("function") && doc["function"].is_string()) {
        const std::string name = doc["function"].get<std::string>();
        function = graph.findFunction(name);
        if (!function.isValid()) {
            error("plan.unknown_function", "the model has no function @" + name);
            return result;
        }
    }

    const std::string expected = doc.contains("model") && doc["model"].is_object()
            && doc["model"].contains("checksum") && doc["model"]["checksum"].is_string()
        ? doc["model"]["checksum"].get<std::string>()
        : std::string();
    if (!expected.empty() && !graph.checksum().empty() && expected != graph.checksum()) {
        std::string message = "the plan was made for another model (checksum "
            + expected.substr(0, 12) + "…, this model " + graph.checksum().substr(0, 12) + "…)";
        if (options.force)
            warning("plan.checksum", message + "; loading anyway (forced)");
        else
            error("plan.checksum", message + "; use --force to load it anyway");
    }

    auto view = std::make_shared<const FunctionView>(graph, function);
    PartitionPlan plan(view, false);
    std::vector<char> listed(graph.nodeCount(), 0);
    std::vector<std::string> unknown;
    std::vector<NodeId> twice, notAssignable;
    const nlohmann::json &parts = doc["partitions"];
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const nlohmann::json &p = parts[i];
        if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("nodes")
            || !p["nodes"].is_array()) {
            error("plan.schema",
                  "partition " + std::to_string(i)
                      + " needs a \"name\" string and a \"nodes\" array");
            continue;
        }
        const std::string name = p["name"].get<std::string>();
        const std::string target = p.contains("target") && p["target"].is_string()
            ? p["target"].get<std::string>()
            : std::string("llvm");
        // A colour index is kept by projects (see makeProject), so colours survive a reopen.
        const int colour = p.contains("colour") && p["colour"].is_number_integer()
                && p["colour"].get<std::int64_t>() >= 0 && p["colour"].get<std::int64_t>() < 1024
            ? p["colour"].get<int>()
            : -1;
        const PlanEdit added = plan.appendPartition(name, target, colour);
        const Partition &created = added.partitionsAfter.back();
        if (created.name != name)
            warning("plan.duplicate_name",
                    "partition name " + name + " is used twice; the second is " + created.name);
        std::vector<NodeId> members;
        for (const nlohmann::json &k : p["nodes"]) {
            const std::string key = k.is_string() ? k.get<std::string>() : k.dump();
            const NodeId n = graph.findByKey(key);
            if (!n.isValid()) {
                unknown.push_back(key);
            } else if (!view->isAssignable(n)) {
                notAssignable.push_back(n);
            } else if (listed[n.index()]) {
                twice.push_back(n);
            } else {
                listed[n.index()] = 1;
                members.push_back(n);
            }
        }
        plan.assignToPartition(members, created.id);
    }
    if (!unknown.empty())
        error("plan.unknown_node",
              std::to_string(unknown.size())
                  + " node key(s) in the plan do not exist in the model: " + keyList(unknown));
    auto keysOf = [&](const std::vector<NodeId> &nodes) {
        std::vector<std::string> keys;
        for (NodeId n : nodes)
            keys.push_back(graph.key(n));
        return keys;
    };
    if (!twice.empty())
        error("plan.doubly_assigned",
              std::to_string(twice.size())
                  + " node(s) are listed in more than one partition (the first one is kept): "
                  + keyList(keysOf(twice)),
              twice);
    if (!notAssignable.empty())
        warning("plan.not_assignable",
                std::to_string(notAssignable.size())
                    + " listed node(s) are inputs, constants or outside @"
                    + graph.function(function).name
                    + " and were ignored: " + keyList(keysOf(notAssignable)),
                notAssignable);
    std::vector<NodeId> missing;
    for (NodeId n : view->assignableNodes()) {
        if (!listed[n.index()])
            missing.push_back(n);
    }
    if (!missing.empty())
        warning("plan.missing_nodes",
                std::to_string(missing.size()) + " operator node(s) of @"
                    + graph.function(function).name
                    + " are in no partition: " + keyList(keysOf(missing)),
                missing);

    if (doc.contains("cut_edges") && doc["cut_edges"].is_array()) {
        std::vector<EdgeRef> edges;
        for (const nlohmann::json &e : doc["cut_edges"]) {
            if (!e.is_object() || !e.contains("producer") || !e.contains("consumer")
                || !e["producer"].is_string() || !e["consumer"].is_string())
                continue;
            const NodeId from = graph.findByKey(e["producer"].get<std::string>());
            const NodeId to = graph.findByKey(e["consumer"].get<std::string>());
            const auto output = e.contains("output") && e["output"].is_number_unsigned()
                ? e["output"].get<std::uint32_t>()
                : 0U;
            if (from.isValid() && to.isValid())
                edges.push_back(EdgeRef { TensorRef { from, output }, to });
        }
        plan.markCrossedEdges(edges);
    }
    result.plan.emplace(std::move(plan));
    return result;
}

PlanLoadResult loadPlanFile(const Graph &graph, const std::string &path,
                            const PlanLoadOptions &options)
{
    const std::optional<std::string> bytes = readFile(path);
    if (!bytes) {
        PlanLoadResult result;
        result.diagnostics.push_back(
            planDiagnostic(Severity::Error, "plan.unreadable", "cannot open the plan file", path));
        return result;
    }
    return planFromJson(graph, *bytes, path, options);
}

bool savePlanFile(const PartitionPlan &plan, const std::string &path, std::string *error)
{
    return writeFileAtomically(path, planToJson(plan).dump(2) + '\n', error);
}

} // namespace cleave
