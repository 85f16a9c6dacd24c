// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/PlanFile.h"

#include "core/graph/JsonParse.h"
#include "core/partition/NameRules.h"
#include "core/support/FileIo.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

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

/// Reads the "cut_edges" array: each {"producer", "output", "consumer"} must name an edge of the
/// graph whose ends lie in two different partitions. Reports through `error` (code, message,
/// JSON pointer); false when any entry is wrong.
template <class ErrorFn>
bool readCutEdges(const nlohmann::json &list, const Graph &graph, const PartitionPlan &plan,
                  std::vector<EdgeRef> &edges, ErrorFn &error)
{
    if (!list.is_array()) {
        error("plan.schema", "\"cut_edges\" must be an array", "/cut_edges", {});
        return false;
    }
    bool ok = true;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const nlohmann::json &e = list[i];
        const std::string here = "/cut_edges/" + std::to_string(i);
        if (!e.is_object() || !e.contains("producer") || !e.contains("consumer")
            || !e["producer"].is_string() || !e["consumer"].is_string()
            || (e.contains("output") && !e["output"].is_number_unsigned())) {
            error("plan.schema",
                  "cut edge " + std::to_string(i)
                      + " needs \"producer\" and \"consumer\" node keys and an optional unsigned "
                        "\"output\"",
                  here, {});
            ok = false;
            continue;
        }
        const std::string producer = e["producer"].get<std::string>();
        const std::string consumer = e["consumer"].get<std::string>();
        const NodeId from = graph.findByKey(producer);
        const NodeId to = graph.findByKey(consumer);
        const std::uint64_t output = e.contains("output") ? e["output"].get<std::uint64_t>() : 0;
        if (!from.isValid() || !to.isValid()) {
            error("plan.bad_cut_edge",
                  "cut edge " + std::to_string(i) + " names the node "
                      + quoteBounded(from.isValid() ? consumer : producer)
                      + ", which is not in the model",
                  here + (from.isValid() ? "/consumer" : "/producer"), {});
            ok = false;
            continue;
        }
        const PartitionId a = plan.partitionOf(from);
        if (a.isValid() && a == plan.partitionOf(to)) {
            error("plan.cut_edge_inside",
                  "cut edge " + std::to_string(i) + " from " + quoteBounded(producer) + " to "
                      + quoteBounded(consumer) + " lies inside partition "
                      + quoteBounded(plan.partition(a)->name) + "; a cut edge joins two partitions",
                  here, { from, to });
            ok = false;
            continue;
        }
        const Node &target = graph.node(to);
        const EdgeRef nested = plan.edgeBetween(from, to); // `to` may read it inside a scope
        const bool isEdge = output < graph.node(from).outputTypes.size()
            && (std::any_of(target.inputs.begin(), target.inputs.end(),
                            [&](TensorRef r) { return r.node == from && r.output == output; })
                || (nested.consumer.isValid() && nested.tensor.output == output));
        if (!isEdge) {
            error("plan.bad_cut_edge",
                  "cut edge " + std::to_string(i) + ": " + quoteBounded(consumer)
                      + " does not read output " + std::to_string(output) + " of "
                      + quoteBounded(producer),
                  here, {});
            ok = false;
            continue;
        }
        edges.push_back(EdgeRef { TensorRef { from, static_cast<std::uint32_t>(output) }, to });
    }
    return ok;
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
    // Every finding points at the value it is about (RFC 6901 pointer into the file's text).
    auto at = [&](const std::string &pointer) {
        return options.enclosingText.empty()
            ? locateJsonValue(text, path, pointer)
            : locateJsonValue(options.enclosingText, path, options.embeddedAt + pointer);
    };
    auto error = [&](const char *code, std::string message, const std::string &pointer = {},
                     std::vector<NodeId> nodes = {}) {
        Diagnostic d
            = planDiagnostic(Severity::Error, code, std::move(message), path, std::move(nodes));
        d.where = at(pointer);
        result.diagnostics.push_back(std::move(d));
    };
    auto warning = [&](const char *code, std::string message, const std::string &pointer = {},
                       std::vector<NodeId> nodes = {}) {
        Diagnostic d
            = planDiagnostic(Severity::Warning, code, std::move(message), path, std::move(nodes));
        d.where = at(pointer);
        result.diagnostics.push_back(std::move(d));
    };

    const std::optional<nlohmann::json> parsed = parseJsonLocated(
        text, path, "plan.syntax", result.diagnostics, "the plan file is not valid JSON");
    if (!parsed)
        return result;
    const nlohmann::json &doc = *parsed;
    if (!doc.is_object() || !doc.contains("cleave_plan")
        || !doc["cleave_plan"].is_number_integer()) {
        error("plan.version", "not a Cleave plan file (no integer \"cleave_plan\" version)",
              doc.is_object() && doc.contains("cleave_plan") ? "/cleave_plan" : "");
        return result;
    }
    if (doc["cleave_plan"] != planVersion) {
        error("plan.version",
              "plan file version " + doc["cleave_plan"].dump()
                  + " is not supported (this Cleave reads version " + std::to_string(planVersion)
                  + ")",
              "/cleave_plan");
        return result;
    }
    if (!doc.contains("partitions") || !doc["partitions"].is_array()) {
        error("plan.schema", "the plan file has no \"partitions\" array",
              doc.contains("partitions") ? "/partitions" : "");
        return result;
    }

    FunctionId function = graph.mainFunction();
    if (doc.contains("function") && doc["function"].is_string()) {
        const std::string name = doc["function"].get<std::string>();
        function = graph.findFunction(name);
        if (!function.isValid()) {
            error("plan.unknown_function", "the model has no function @" + quoteBounded(name),
                  "/function");
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
            warning("plan.checksum", message + "; loading anyway (forced)", "/model/checksum");
        else
            error("plan.checksum", message + "; use --force to load it anyway", "/model/checksum");
    }

    auto view = std::make_shared<const FunctionView>(graph, function);
    PartitionPlan plan(view, false);
    std::vector<char> listed(graph.nodeCount(), 0);
    std::vector<std::string> unknown;
    std::string firstUnknown; // pointer of the first unknown key
    std::vector<NodeId> twice, notAssignable;
    std::unordered_map<std::string, std::size_t> names; // name -> index of its partition
    const nlohmann::json &parts = doc["partitions"];
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const nlohmann::json &p = parts[i];
        const std::string here = "/partitions/" + std::to_string(i);
        if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("nodes")
            || !p["nodes"].is_array()) {
            error("plan.schema",
                  "partition " + std::to_string(i)
                      + " needs a \"name\" string and a \"nodes\" array",
                  here);
            continue;
        }
        const std::string name = p["name"].get<std::string>();
        if (const auto problem = partitionNameProblem(name)) {
            error("plan.bad_name",
                  "partition " + std::to_string(i) + " is named " + quoteBounded(name) + ": "
                      + *problem,
                  here + "/name");
            continue;
        }
        if (p.contains("target") && !p["target"].is_string()) {
            error("plan.schema",
                  "the target of partition " + quoteBounded(name) + " must be a string",
                  here + "/target");
            continue;
        }
        const std::string target
            = p.contains("target") ? p["target"].get<std::string>() : std::string("llvm");
        if (const auto problem = targetProblem(target)) {
            error("plan.bad_target",
                  "partition " + quoteBounded(name) + " has the target " + quoteBounded(target)
                      + ": " + *problem,
                  here + "/target");
            continue;
        }
        if (const auto [first, fresh] = names.emplace(name, i); !fresh) {
            error("plan.duplicate_name",
                  "partitions " + std::to_string(first->second) + " and " + std::to_string(i)
                      + " are both named " + quoteBounded(name)
                      + "; partition names must be unique",
                  here + "/name");
            continue;
        }
        // A colour index is kept by projects (see makeProject), so colours survive a reopen.
        const int colour = p.contains("colour") && p["colour"].is_number_integer()
                && p["colour"].get<std::int64_t>() >= 0 && p["colour"].get<std::int64_t>() < 1024
            ? p["colour"].get<int>()
            : -1;
        const PlanEdit added = plan.appendPartition(name, target, colour);
        const PartitionId created = added.partitionsAfter.back().id;
        std::vector<NodeId> members;
        const nlohmann::json &nodes = p["nodes"];
        for (std::size_t j = 0; j < nodes.size(); ++j) {
            const nlohmann::json &k = nodes[j];
            const std::string key = k.is_string() ? k.get<std::string>() : k.dump();
            const NodeId n = graph.findByKey(key);
            if (!n.isValid()) {
                if (unknown.empty())
                    firstUnknown = here + "/nodes/" + std::to_string(j);
                // Plain when short and printable, like the other key lists; bounded otherwise.
                const std::string shown = quoteBounded(key);
                unknown.push_back(shown == "'" + key + "'" ? key : shown);
            } else if (!view->isAssignable(n)) {
                notAssignable.push_back(n);
            } else if (listed[n.index()]) {
                twice.push_back(n);
            } else {
                listed[n.index()] = 1;
                members.push_back(n);
            }
        }
        plan.assignToPartition(members, created);
    }
    if (!unknown.empty())
        error("plan.unknown_node",
              std::to_string(unknown.size())
                  + " node key(s) in the plan do not exist in the model: " + keyList(unknown),
              firstUnknown);
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
              "/partitions", twice);
    if (!notAssignable.empty())
        warning("plan.not_assignable",
                std::to_string(notAssignable.size())
                    + " listed node(s) are inputs, constants or outside @"
                    + graph.function(function).name
                    + " and were ignored: " + keyList(keysOf(notAssignable)),
                "/partitions", notAssignable);
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
                "/partitions", missing);

    if (doc.contains("cut_edges")) {
        std::vector<EdgeRef> edges;
        if (!readCutEdges(doc["cut_edges"], graph, plan, edges, error))
            return result;
        plan.markCrossedEdges(edges);
    }
    if (hasErrors(result.diagnostics))
        return result;
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
    return writeFileAtomically(
        path, planToJson(plan).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n',
        error);
}

} // namespace cleave
