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
        const bool isEdge = output < graph.node(from).outputTypes().size()
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

namespace {

/// Reads one plan document into a PartitionPlan, collecting every finding with the position of
/// the value it is about.
class PlanReader
{
public:
    PlanReader(const Graph &graph, std::string_view text, const std::string &path,
               const PlanLoadOptions &options)
        : m_graph(graph)
        , m_text(text)
        , m_path(path)
        , m_options(options)
    {
    }

    PlanLoadResult read();

    void error(const char *code, std::string message, const std::string &pointer = {},
               std::vector<NodeId> nodes = {})
    {
        report(Severity::Error, code, std::move(message), pointer, std::move(nodes));
    }
    void warning(const char *code, std::string message, const std::string &pointer = {},
                 std::vector<NodeId> nodes = {})
    {
        report(Severity::Warning, code, std::move(message), pointer, std::move(nodes));
    }

private:
    void report(Severity severity, const char *code, std::string message,
                const std::string &pointer, std::vector<NodeId> nodes);
    /// The file position of the value at `pointer`.
    SourceLocation where(const std::string &pointer);
    /// The "cleave_plan" version and the "partitions" array; false when unreadable.
    bool checkHeader(const nlohmann::json &doc);
    /// The planned function: "function" by name, else the main function; invalid if unknown.
    FunctionId readFunction(const nlohmann::json &doc);
    void checkModelChecksum(const nlohmann::json &doc);
    /// One entry of "partitions": checks its name and target and its listed nodes, and keeps it
    /// for the one edit that appends them all (one edit per partition costs O(partitions²)).
    void readPartition(const nlohmann::json &p, std::size_t i, const PartitionPlan &plan);
    void assignListedNodes(const nlohmann::json &nodes, const std::string &here,
                           const PartitionPlan &plan, std::vector<NodeId> &members);
    /// Unknown, doubly listed, ignored and unlisted nodes, each as one finding.
    void reportNodeLists(const PartitionPlan &plan);
    [[nodiscard]] std::vector<std::string> keysOf(const std::vector<NodeId> &nodes) const;

    const Graph &m_graph;
    std::string_view m_text;
    const std::string &m_path;
    const PlanLoadOptions &m_options;
    PlanLoadResult m_result;
    std::vector<char> m_listed; // per node: listed by some partition
    std::vector<std::string> m_unknown;
    std::string m_firstUnknown; // pointer of the first unknown key
    std::vector<NodeId> m_twice;
    std::vector<NodeId> m_notAssignable;
    std::unordered_map<std::string, std::size_t> m_names; // name -> index of its partition
    std::vector<PartitionSpec> m_partitions; // appended in one edit once all are read
    std::optional<JsonValueLocator> m_locator;
};

// Every finding points at the value it is about (RFC 6901 pointer into the file's text).
void PlanReader::report(Severity severity, const char *code, std::string message,
                        const std::string &pointer, std::vector<NodeId> nodes)
{
    Diagnostic d = planDiagnostic(severity, code, std::move(message), m_path, std::move(nodes));
    d.where = where(pointer);
    m_result.diagnostics.push_back(std::move(d));
}

SourceLocation PlanReader::where(const std::string &pointer)
{
    if (!m_locator) // one locator for every finding: a plan may hold 50,000 bad entries
        m_locator.emplace(m_options.enclosingText.empty() ? m_text : m_options.enclosingText,
                          m_path);
    return m_locator->at(m_options.enclosingText.empty() ? pointer
                                                         : m_options.embeddedAt + pointer);
}

bool PlanReader::checkHeader(const nlohmann::json &doc)
{
    if (!doc.is_object() || !doc.contains("cleave_plan")
        || !doc["cleave_plan"].is_number_integer()) {
        error("plan.version", "not a Cleave plan file (no integer \"cleave_plan\" version)",
              doc.is_object() && doc.contains("cleave_plan") ? "/cleave_plan" : "");
        return false;
    }
    if (doc["cleave_plan"] != planVersion) {
        error("plan.version",
              "plan file version " + doc["cleave_plan"].dump()
                  + " is not supported (this Cleave reads version " + std::to_string(planVersion)
                  + ")",
              "/cleave_plan");
        return false;
    }
    if (!doc.contains("partitions") || !doc["partitions"].is_array()) {
        error("plan.schema", "the plan file has no \"partitions\" array",
              doc.contains("partitions") ? "/partitions" : "");
        return false;
    }
    return true;
}

FunctionId PlanReader::readFunction(const nlohmann::json &doc)
{
    if (!doc.contains("function") || !doc["function"].is_string())
        return m_graph.mainFunction();
    const std::string name = doc["function"].get<std::string>();
    const FunctionId function = m_graph.findFunction(name);
    if (!function.isValid())
        error("plan.unknown_function", "the model has no function @" + quoteBounded(name),
              "/function");
    return function;
}

void PlanReader::checkModelChecksum(const nlohmann::json &doc)
{
    const std::string expected = doc.contains("model") && doc["model"].is_object()
            && doc["model"].contains("checksum") && doc["model"]["checksum"].is_string()
        ? doc["model"]["checksum"].get<std::string>()
        : std::string();
    if (expected.empty() || m_graph.checksum().empty() || expected == m_graph.checksum())
        return;
    const std::string message = "the plan was made for another model (checksum "
        + expected.substr(0, 12) + "…, this model " + m_graph.checksum().substr(0, 12) + "…)";
    if (m_options.force)
        warning("plan.checksum", message + "; loading anyway (forced)", "/model/checksum");
    else
        error("plan.checksum", message + "; use --force to load it anyway", "/model/checksum");
}

void PlanReader::readPartition(const nlohmann::json &p, std::size_t i, const PartitionPlan &plan)
{
    const std::string here = "/partitions/" + std::to_string(i);
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("nodes")
        || !p["nodes"].is_array()) {
        error("plan.schema",
              "partition " + std::to_string(i) + R"( needs a "name" string and a "nodes" array)",
              here);
        return;
    }
    const std::string name = p["name"].get<std::string>();
    if (const auto problem = partitionNameProblem(name)) {
        error("plan.bad_name",
              "partition " + std::to_string(i) + " is named " + quoteBounded(name) + ": "
                  + *problem,
              here + "/name");
        return;
    }
    if (p.contains("target") && !p["target"].is_string()) {
        error("plan.schema", "the target of partition " + quoteBounded(name) + " must be a string",
              here + "/target");
        return;
    }
    const std::string target
        = p.contains("target") ? p["target"].get<std::string>() : std::string("llvm");
    if (const auto problem = targetProblem(target)) {
        error("plan.bad_target",
              "partition " + quoteBounded(name) + " has the target " + quoteBounded(target) + ": "
                  + *problem,
              here + "/target");
        return;
    }
    if (const auto [first, fresh] = m_names.emplace(name, i); !fresh) {
        error("plan.duplicate_name",
              "partitions " + std::to_string(first->second) + " and " + std::to_string(i)
                  + " are both named " + quoteBounded(name) + "; partition names must be unique",
              here + "/name");
        return;
    }
    // A colour index is kept by projects (see makeProject), so colours survive a reopen.
    const int colour = p.contains("colour") && p["colour"].is_number_integer()
            && p["colour"].get<std::int64_t>() >= 0 && p["colour"].get<std::int64_t>() < 1024
        ? p["colour"].get<int>()
        : -1;
    m_partitions.push_back(PartitionSpec { name, target, colour, {} });
    assignListedNodes(p["nodes"], here, plan, m_partitions.back().nodes);
}

void PlanReader::assignListedNodes(const nlohmann::json &nodes, const std::string &here,
                                   const PartitionPlan &plan, std::vector<NodeId> &members)
{
    for (std::size_t j = 0; j < nodes.size(); ++j) {
        const nlohmann::json &k = nodes[j];
        const std::string key = k.is_string() ? k.get<std::string>() : k.dump();
        const NodeId n = m_graph.findByKey(key);
        if (!n.isValid()) {
            if (m_unknown.empty())
                m_firstUnknown = here + "/nodes/" + std::to_string(j);
            // Plain when short and printable, like the other key lists; bounded otherwise.
            const std::string shown = quoteBounded(key);
            m_unknown.push_back(shown == "'" + key + "'" ? key : shown);
        } else if (!plan.view().isAssignable(n)) {
            m_notAssignable.push_back(n);
        } else if (m_listed[n.index()]) {
            m_twice.push_back(n);
        } else {
            m_listed[n.index()] = 1;
            members.push_back(n);
        }
    }
}

std::vector<std::string> PlanReader::keysOf(const std::vector<NodeId> &nodes) const
{
    std::vector<std::string> keys;
    keys.reserve(nodes.size());
    for (NodeId n : nodes)
        keys.push_back(m_graph.key(n));
    return keys;
}

void PlanReader::reportNodeLists(const PartitionPlan &plan)
{
    const std::string &function = m_graph.function(plan.view().function()).name;
    if (!m_unknown.empty())
        error("plan.unknown_node",
              std::to_string(m_unknown.size())
                  + " node key(s) in the plan do not exist in the model: " + keyList(m_unknown),
              m_firstUnknown);
    if (!m_twice.empty())
        error("plan.doubly_assigned",
              std::to_string(m_twice.size())
                  + " node(s) are listed in more than one partition (the first one is kept): "
                  + keyList(keysOf(m_twice)),
              "/partitions", m_twice);
    if (!m_notAssignable.empty())
        warning("plan.not_assignable",
                std::to_string(m_notAssignable.size())
                    + " listed node(s) are inputs, constants or outside @" + function
                    + " and were ignored: " + keyList(keysOf(m_notAssignable)),
                "/partitions", m_notAssignable);
    std::vector<NodeId> missing;
    for (NodeId n : plan.view().assignableNodes()) {
        if (!m_listed[n.index()])
            missing.push_back(n);
    }
    if (!missing.empty())
        warning("plan.missing_nodes",
                std::to_string(missing.size()) + " operator node(s) of @" + function
                    + " are in no partition: " + keyList(keysOf(missing)),
                "/partitions", missing);
}

PlanLoadResult PlanReader::read()
{
    const std::optional<nlohmann::json> parsed = parseJsonLocated(
        m_text, m_path, "plan.syntax", m_result.diagnostics, "the plan file is not valid JSON");
    if (!parsed || !checkHeader(*parsed))
        return std::move(m_result);
    const nlohmann::json &doc = *parsed;
    const FunctionId function = readFunction(doc);
    if (!function.isValid())
        return std::move(m_result);
    checkModelChecksum(doc);

    PartitionPlan plan(std::make_shared<const FunctionView>(m_graph, function), false);
    m_listed.assign(m_graph.nodeCount(), 0);
    const nlohmann::json &parts = doc["partitions"];
    for (std::size_t i = 0; i < parts.size(); ++i)
        readPartition(parts[i], i, plan);
    plan.appendPartitions(std::move(m_partitions));
    reportNodeLists(plan);

    if (doc.contains("cut_edges")) {
        std::vector<EdgeRef> edges;
        auto cutEdgeError = [this](const char *code, std::string message,
                                   const std::string &pointer, std::vector<NodeId> nodes) {
            error(code, std::move(message), pointer, std::move(nodes));
        };
        if (!readCutEdges(doc["cut_edges"], m_graph, plan, edges, cutEdgeError))
            return std::move(m_result);
        plan.markCrossedEdges(edges);
    }
    if (!hasErrors(m_result.diagnostics)) {
        m_result.partitionLocations.reserve(parts.size());
        for (std::size_t i = 0; i < parts.size(); ++i)
            m_result.partitionLocations.push_back(where("/partitions/" + std::to_string(i)));
        m_result.plan.emplace(std::move(plan));
    }
    return std::move(m_result);
}

} // namespace

PlanLoadResult planFromJson(const Graph &graph, std::string_view text, const std::string &path,
                            const PlanLoadOptions &options)
{
    return PlanReader(graph, text, path, options).read();
}

void locatePlanFindings(std::vector<Diagnostic> &diagnostics, const PartitionPlan &plan,
                        const std::vector<SourceLocation> &locations)
{
    for (Diagnostic &d : diagnostics) {
        if (d.where.isValid())
            continue;
        PartitionId about = d.partition.value_or(PartitionId {});
        if (!about.isValid() && !d.nodes.empty()
            && d.nodes.front().index() < plan.graph().nodeCount())
            about = plan.partitionOf(d.nodes.front());
        const int index = about.isValid() ? plan.indexOf(about) : -1;
        if (index >= 0 && static_cast<std::size_t>(index) < locations.size())
            d.where = locations[static_cast<std::size_t>(index)];
    }
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
