// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/graphjson/GraphJsonModuleExporter.h"

#include "core/io/graphjson/GraphJsonImporter.h"
#include "core/support/FileIo.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace cleave {

namespace {

using Json = nlohmann::json;

/// The JSON being built: nodes, and per entry its type.
class GraphJsonBuilder
{
public:
    Json nodes = Json::array();
    std::vector<int> argNodes;
    std::vector<std::size_t> rowPtr { 0 };
    std::vector<Type> entryTypes;
    std::unordered_map<TensorRef, std::pair<std::size_t, std::uint32_t>> where;

    std::size_t addNull(const std::string &name, const Type &type)
    {
        const std::size_t nid = nodes.size();
        nodes.push_back({ { "op", "null" }, { "name", name }, { "inputs", Json::array() } });
        argNodes.push_back(static_cast<int>(nid));
        entryTypes.push_back(type);
        rowPtr.push_back(rowPtr.back() + 1);
        return nid;
    }

    /// Adds a kernel node; false when one of its inputs is not in the module.
    bool addKernel(const Graph &g, NodeId id)
    {
        const Node &n = g.node(id);
        Json inputs = Json::array();
        for (const TensorRef &t : n.inputs) {
            auto it = where.find(t);
            if (it == where.end())
                return false;
            inputs.push_back({ it->second.first, it->second.second, 0 });
        }
        Json attrs = Json::object();
        for (const auto &[key, value] : n.attrs.items()) {
            // graph.json stores every attribute as a string.
            attrs[key]
                = value.kind == AttrValue::Kind::Int ? std::to_string(value.intValue) : value.text;
        }
        const std::size_t nid = nodes.size();
        nodes.push_back(
            { { "op", "tvm_op" }, { "name", n.name }, { "attrs", attrs }, { "inputs", inputs } });
        for (std::uint32_t o = 0; o < n.outputCount(); ++o) {
            where[TensorRef { id, o }] = { nid, o };
            entryTypes.push_back(n.outputType(o));
        }
        rowPtr.push_back(rowPtr.back() + n.outputCount());
        return true;
    }

    [[nodiscard]] std::size_t entryOf(std::pair<std::size_t, std::uint32_t> ref) const
    {
        return rowPtr[ref.first] + ref.second;
    }
};

Json shapeOf(const Type &t)
{
    Json shape = Json::array();
    for (const Dim &d : t.shape)
        shape.push_back(d.isKnown() ? d.value : -1);
    return shape;
}

/// Null nodes for every value the partition reads but does not compute, in first-use order:
/// the interface inputs first, then the params (constants) under their source names.
void addSources(GraphJsonBuilder &b, const PartitionPlan &plan, const BoundaryTable &boundary,
                std::size_t k, const std::vector<NodeId> &members,
                const std::vector<std::string> &passThrough, ModuleSummary &summary)
{
    const Graph &src = plan.graph();
    for (const PartitionInput &in : boundary.interfaces[k].inputs) {
        if (in.boundary < 0) {
            b.where[TensorRef { in.globalInput, 0 }]
                = { b.addNull(in.name, src.node(in.globalInput).outputType()), 0 };
        } else {
            const BoundaryTensor &t = boundary.tensors[static_cast<std::size_t>(in.boundary)];
            b.where[t.tensor] = { b.addNull(in.name, t.type), 0 };
        }
        summary.parameters.push_back(in.name);
    }
    // Global inputs forwarded without being read (the model returns them directly).
    for (const std::string &name : passThrough) {
        for (NodeId in : plan.view().inputs()) {
            if (globalInputName(src, in) == name && !b.where.contains(TensorRef { in, 0 })) {
                b.where[TensorRef { in, 0 }] = { b.addNull(name, src.node(in).outputType()), 0 };
                summary.parameters.push_back(name);
            }
        }
    }
    auto addParam = [&](TensorRef t) {
        const Node &c = src.node(t.node);
        if (c.kind != NodeKind::Constant || b.where.contains(t))
            return;
        b.where[t] = { b.addNull(c.name, c.outputType()), 0 };
        summary.constants.push_back({ c.name, c.name, {}, c.outputType(), src.key(t.node), {} });
    };
    for (NodeId n : members) {
        for (const TensorRef &t : src.node(n).inputs)
            addParam(t);
    }
    for (const std::string &name : passThrough) {
        if (const NodeId c = src.findByKey(name); c.isValid())
            addParam(TensorRef { c, 0 });
    }
}

/// The heads: interface outputs in output_idx order, then the pass-through values.
std::optional<Json> headsOf(const GraphJsonBuilder &b, const PartitionPlan &plan,
                            const BoundaryTable &boundary, std::size_t k,
                            const std::vector<std::string> &passThrough)
{
    const Graph &src = plan.graph();
    Json heads = Json::array();
    for (const PartitionOutput &o : boundary.interfaces[k].outputs) {
        auto it = b.where.find(o.tensor);
        if (it == b.where.end())
            return std::nullopt;
        heads.push_back({ it->second.first, it->second.second, 0 });
    }
    for (const std::string &name : passThrough) {
        std::optional<TensorRef> t;
        for (NodeId in : plan.view().inputs()) {
            if (globalInputName(src, in) == name)
                t = TensorRef { in, 0 };
        }
        if (!t) {
            if (const NodeId c = src.findByKey(name); c.isValid())
                t = TensorRef { c, 0 };
        }
        auto it = t ? b.where.find(*t) : b.where.end();
        if (it == b.where.end())
            return std::nullopt;
        heads.push_back({ it->second.first, it->second.second, 0 });
    }
    return heads;
}

Json entryAttrs(const GraphJsonBuilder &b, const Json &heads)
{
    const std::size_t entries = b.rowPtr.back();
    std::vector<std::size_t> produced(entries);
    std::vector<std::size_t> lastUse(entries);
    std::vector<std::int64_t> bytes(entries, -1);
    std::vector<bool> pinned(entries, false);
    for (std::size_t nid = 0; nid < b.nodes.size(); ++nid) {
        for (std::size_t e = b.rowPtr[nid]; e < b.rowPtr[nid + 1]; ++e) {
            produced[e] = lastUse[e] = nid;
            pinned[e] = b.nodes[nid]["op"] == "null";
            bytes[e] = b.entryTypes[e].byteSize().value_or(-1);
        }
        for (const Json &in : b.nodes[nid]["inputs"]) {
            const std::size_t e
                = b.entryOf({ in[0].get<std::size_t>(), in[1].get<std::uint32_t>() });
            lastUse[e] = std::max(lastUse[e], nid);
        }
    }
    for (const Json &h : heads)
        pinned[b.entryOf({ h[0].get<std::size_t>(), h[1].get<std::uint32_t>() })] = true;
    Json shapes = Json::array();
    Json dtypes = Json::array();
    for (const Type &t : b.entryTypes) {
        shapes.push_back(shapeOf(t));
        dtypes.push_back(t.isTensor() ? t.dtype : std::string("float32"));
    }
    const std::vector<int> storage = graphJsonStoragePlan(produced, lastUse, bytes, pinned);
    return { { "shape", { "list_shape", shapes } },
             { "dltype", { "list_str", dtypes } },
             { "storage_id", { "list_int", storage } } };
}

} // namespace

std::vector<int> graphJsonStoragePlan(const std::vector<std::size_t> &produced,
                                      const std::vector<std::size_t> &lastUse,
                                      const std::vector<std::int64_t> &bytes,
                                      const std::vector<bool> &pinned)
{
    const std::size_t n = produced.size();
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return produced[a] < produced[b]; });
    std::vector<int> ids(n, -1);
    std::map<std::int64_t, std::vector<int>> freeBySize;
    std::vector<std::size_t> live; // shareable entries holding storage
    int next = 0;
    for (std::size_t e : order) {
        // Storage of entries whose last reader ran before this entry is produced is free again.
        for (auto it = live.begin(); it != live.end();) {
            if (lastUse[*it] < produced[e]) {
                freeBySize[bytes[*it]].push_back(ids[*it]);
                it = live.erase(it);
            } else {
                ++it;
            }
        }
        if (pinned[e] || bytes[e] < 0) {
            ids[e] = next++;
            continue;
        }
        auto &pool = freeBySize[bytes[e]];
        if (pool.empty()) {
            ids[e] = next++;
        } else {
            ids[e] = pool.back();
            pool.pop_back();
        }
        live.push_back(e);
    }
    return ids;
}

std::string checkGraphExecutorJson(const Json &doc)
{
    for (const char *key : { "nodes", "arg_nodes", "heads", "node_row_ptr", "attrs" }) {
        if (!doc.is_object() || !doc.contains(key))
            return std::string("missing \"") + key + "\"";
    }
    const Json &nodes = doc["nodes"];
    const Json &rowPtr = doc["node_row_ptr"];
    if (!nodes.is_array() || !rowPtr.is_array() || rowPtr.size() != nodes.size() + 1)
        return "node_row_ptr must have one entry per node plus one";
    std::vector<int> nulls;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Json &n = nodes[i];
        const std::size_t outputs
            = n["op"] == "null" ? 1 : std::stoul(n["attrs"].value("num_outputs", std::string("1")));
        if (rowPtr[i + 1].get<std::size_t>() != rowPtr[i].get<std::size_t>() + outputs)
            return "node_row_ptr[" + std::to_string(i + 1) + "] is not the prefix sum of outputs";
        if (n["op"] == "null")
            nulls.push_back(static_cast<int>(i));
        else if (n["attrs"].value("num_inputs", std::string())
                 != std::to_string(n["inputs"].size()))
            return "node " + std::to_string(i) + ": num_inputs does not match its inputs";
        for (const Json &in : n["inputs"]) {
            const std::size_t src = in[0].get<std::size_t>();
            if (src >= i
                || in[1].get<std::size_t>()
                    >= rowPtr[src + 1].get<std::size_t>() - rowPtr[src].get<std::size_t>())
                return "node " + std::to_string(i)
                    + " reads an entry that is not produced before it";
        }
    }
    if (doc["arg_nodes"].get<std::vector<int>>() != nulls)
        return "arg_nodes are not exactly the null nodes";
    const std::size_t entries = rowPtr.back().get<std::size_t>();
    for (const Json &h : doc["heads"]) {
        const std::size_t nid = h[0].get<std::size_t>();
        if (nid >= nodes.size())
            return "a head names node " + std::to_string(nid);
    }
    for (const char *key : { "shape", "dltype", "storage_id" }) {
        const Json &a = doc["attrs"].value(key, Json());
        if (!a.is_array() || a.size() != 2 || !a[1].is_array() || a[1].size() != entries)
            return std::string("attrs.") + key + " must list one value per entry";
    }
    return {};
}

bool GraphJsonModuleExporter::acceptsSource(const Graph &graph) const
{
    return graph.format() == "graph.json";
}

bool GraphJsonModuleExporter::writeModule(const PartitionPlan &plan, const BoundaryTable &boundary,
                                          std::size_t k, const ExportOptions &options,
                                          const std::vector<std::string> &passThrough,
                                          std::string &content, ModuleSummary &summary,
                                          std::vector<Diagnostic> &diagnostics) const
{
    (void)options; // constants are params of the source library: nothing to lift
    const Graph &src = plan.graph();
    std::vector<NodeId> members;
    for (NodeId n : moduleNodes(plan, boundary, k)) {
        if (src.node(n).kind == NodeKind::OpCall)
            members.push_back(n);
    }
    std::sort(members.begin(), members.end()); // the source's node order is topological
    GraphJsonBuilder b;
    addSources(b, plan, boundary, k, members, passThrough, summary);
    auto fail = [&](const std::string &message) {
        diagnostics.push_back(Diagnostic::make(Severity::Error, "export.graphjson",
                                               "mod" + std::to_string(k) + ".json: " + message));
        return false;
    };
    for (NodeId n : members) {
        if (!b.addKernel(src, n))
            return fail("kernel " + src.key(n) + " reads a value the partition does not receive");
    }
    const std::optional<Json> heads = headsOf(b, plan, boundary, k, passThrough);
    if (!heads)
        return fail("an output of the partition is not computed in it");
    // The short keys first and one node per line, so that "arg_nodes", "heads" and "nodes" all
    // fall within the first bytes the importers look at to recognise a graph.json.
    content = "{\n  \"arg_nodes\": " + Json(b.argNodes).dump() + ",\n  \"heads\": " + heads->dump()
        + ",\n  \"nodes\": [";
    for (std::size_t i = 0; i < b.nodes.size(); ++i)
        content += (i ? ",\n    " : "\n    ") + b.nodes[i].dump();
    content += "\n  ],\n  \"attrs\": " + entryAttrs(b, *heads).dump()
        + ",\n  \"node_row_ptr\": " + Json(b.rowPtr).dump() + "\n}\n";
    return true;
}

std::unique_ptr<Graph>
GraphJsonModuleExporter::readModule(const std::string &path,
                                    std::vector<Diagnostic> &diagnostics) const
{
    // Read as graph.json whatever the file looks like in its first bytes.
    return readGraphWith(GraphJsonImporter(), path, diagnostics);
}

std::optional<std::string> GraphJsonModuleExporter::constantDifference(
    const Graph &module, const Graph &source,
    const std::vector<std::pair<std::string, std::string>> &refs) const
{
    (void)module;
    (void)source;
    (void)refs;
    return std::nullopt;
}

} // namespace cleave
