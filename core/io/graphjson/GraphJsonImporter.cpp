// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/graphjson/GraphJsonImporter.h"

#include "core/graph/JsonParse.h"
#include "core/support/JsonLocator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <new>
#include <optional>

namespace cleave {

namespace {

using nlohmann::json;

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

std::string quoted(const std::string &s)
{
    return "'" + s + "'";
}

/// An integer from a JSON number or a decimal string (graph.json writes attrs as strings).
std::optional<std::int64_t> toInt(const json &v)
{
    if (v.is_number_integer())
        return v.get<std::int64_t>();
    if (v.is_string()) {
        const auto &s = v.get_ref<const std::string &>();
        std::int64_t out = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        if (ec == std::errc() && end == s.data() + s.size())
            return out;
    }
    return std::nullopt;
}

/// Reads one graph.json document; collects diagnostics and builds the graph when it can.
class GraphJsonReader
{
public:
    GraphJsonReader(std::string_view bytes, const std::string &path, std::vector<Diagnostic> &out)
        : m_bytes(bytes)
        , m_path(path)
        , m_locator(bytes, path)
        , m_diagnostics(out)
    {
    }

    std::unique_ptr<Graph> read();

private:
    void report(Severity severity, std::string code, std::string message,
                std::optional<std::size_t> node = std::nullopt, std::string_view pointer = {})
    {
        Diagnostic d;
        d.severity = severity;
        d.code = std::move(code);
        // Errors about a node point at the node; about a top-level value, at that value.
        d.where = pointer.empty() ? m_locator.at(0) : locateJsonValue(m_bytes, m_path, pointer);
        if (node) {
            if (*node < m_nodeOffsets.size())
                d.where = m_locator.at(m_nodeOffsets[*node]);
            message = "node " + std::to_string(*node) + nodeLabel(*node) + ": " + message;
            if (m_graphNodesMatchJson)
                d.nodes.emplace_back(*node);
        }
        d.message = std::move(message);
        m_diagnostics.push_back(std::move(d));
        if (severity == Severity::Error)
            ++m_errors;
    }
    void error(std::string code, std::string message, std::optional<std::size_t> node = {})
    {
        report(Severity::Error, std::move(code), std::move(message), node);
    }
    /// An error about the value at the JSON pointer `pointer` (e.g. `/heads/0`).
    void errorAt(std::string code, std::string message, std::string_view pointer)
    {
        report(Severity::Error, std::move(code), std::move(message), std::nullopt, pointer);
    }
    void warning(std::string code, std::string message, std::optional<std::size_t> node = {})
    {
        report(Severity::Warning, std::move(code), std::move(message), node);
    }
    std::string nodeLabel(std::size_t node) const
    {
        if (!m_nodes || node >= m_nodes->size())
            return {};
        const json &n = (*m_nodes)[node];
        if (n.is_object() && n.contains("name") && n["name"].is_string())
            return " (" + quoted(n["name"].get<std::string>()) + ")";
        return {};
    }

    bool parseDocument();
    bool checkTopLevel();
    bool readNodeHeaders();
    bool readRowPointers();
    bool readEntryTypes();
    std::optional<TensorRef> readEntry(const json &entry, const std::string &what,
                                       std::optional<std::size_t> node,
                                       const std::string &pointer = {});
    void buildNodes(Graph &graph, FunctionId main);
    void buildResult(Graph &graph, FunctionId main);
    void checkArgNodes();

    struct NodeHeader
    {
        bool isKernel = false;
        std::string name;
        std::string funcName;
        std::uint32_t outputs = 1;
        const json *attrs = nullptr;
    };

    std::string_view m_bytes;
    const std::string &m_path;
    JsonLocator m_locator;
    std::vector<Diagnostic> &m_diagnostics;
    std::size_t m_errors = 0;

    json m_doc;
    const json *m_nodes = nullptr;
    std::vector<std::size_t> m_nodeOffsets;
    bool m_graphNodesMatchJson = false;
    std::vector<NodeHeader> m_headers;
    std::vector<std::int64_t> m_rowPtr;
    std::vector<Type> m_entryTypes;
};

bool GraphJsonReader::parseDocument()
{
    std::optional<json> doc = parseJsonLocated(m_bytes, m_path, "graphjson.syntax", m_diagnostics);
    if (!doc) {
        ++m_errors;
        return false;
    }
    m_doc = std::move(*doc);
    return true;
}

bool GraphJsonReader::checkTopLevel()
{
    if (!m_doc.is_object()) {
        error("graphjson.type", "the top level of a graph.json must be a JSON object");
        return false;
    }
    struct Key
    {
        const char *name;
        bool required;
        bool array;
    };
    static constexpr std::array<Key, 5> keys = { { { "nodes", true, true },
                                                   { "heads", true, true },
                                                   { "attrs", true, false },
                                                   { "arg_nodes", false, true },
                                                   { "node_row_ptr", false, true } } };
    for (const Key &k : keys) {
        const auto it = m_doc.find(k.name);
        if (it == m_doc.end()) {
            if (k.required)
                error("graphjson.missing_key",
                      std::string("missing required key \"") + k.name + "\"");
            else if (std::string_view(k.name) == "arg_nodes")
                warning("graphjson.missing_key",
                        "missing key \"arg_nodes\"; the null nodes are taken as the arguments");
            continue;
        }
        if (k.array ? !it->is_array() : !it->is_object()) {
            error("graphjson.type",
                  std::string("\"") + k.name + "\" must be a JSON "
                      + (k.array ? "array" : "object"));
            m_diagnostics.back().where
                = locateJsonValue(m_bytes, m_path, std::string("/") + k.name);
        }
    }
    if (m_doc.contains("metadata"))
        warning("graphjson.metadata",
                "the \"metadata\" key is ignored (the TVM runtime stops "
                "reading there)");
    return m_errors == 0;
}

bool GraphJsonReader::readNodeHeaders()
{
    m_nodes = &m_doc["nodes"];
    m_nodeOffsets = JsonLocator::arrayElementOffsets(m_bytes, "nodes");
    m_headers.resize(m_nodes->size());
    for (std::size_t i = 0; i < m_nodes->size(); ++i) {
        const json &n = (*m_nodes)[i];
        NodeHeader &h = m_headers[i];
        if (!n.is_object()) {
            error("graphjson.type", "a node must be a JSON object", i);
            continue;
        }
        for (const char *key : { "op", "name", "inputs" }) {
            if (!n.contains(key))
                error("graphjson.missing_key", std::string("missing required key \"") + key + "\"",
                      i);
        }
        if (n.contains("name")) {
            if (n["name"].is_string())
                h.name = n["name"].get<std::string>();
            else
                error("graphjson.type", "\"name\" must be a string", i);
        }
        if (n.contains("inputs") && !n["inputs"].is_array())
            error("graphjson.type", "\"inputs\" must be an array", i);
        if (!n.contains("op"))
            continue;
        if (!n["op"].is_string()) {
            error("graphjson.type", "\"op\" must be a string", i);
            continue;
        }
        const std::string op = n["op"].get<std::string>();
        if (op == "null")
            continue;
        if (op != "tvm_op") {
            error("graphjson.bad_node",
                  "unknown op " + quoted(op) + R"( (expected "null" or "tvm_op"))", i);
            continue;
        }
        h.isKernel = true;
        const char *attrKey = n.contains("attrs") ? "attrs" : n.contains("attr") ? "attr" : nullptr;
        if (!attrKey) {
            error("graphjson.missing_key", "a tvm_op node needs \"attrs\"", i);
            continue;
        }
        if (!n[attrKey].is_object()) {
            error("graphjson.type", std::string("\"") + attrKey + "\" must be an object", i);
            continue;
        }
        h.attrs = &n[attrKey];
        const json &a = *h.attrs;
        if (!a.contains("func_name") || !a["func_name"].is_string())
            error("graphjson.missing_key", "a tvm_op node needs a string \"func_name\" attribute",
                  i);
        else
            h.funcName = a["func_name"].get<std::string>();
        if (!a.contains("num_outputs")) {
            error("graphjson.missing_key", "a tvm_op node needs a \"num_outputs\" attribute", i);
        } else if (const auto count = toInt(a["num_outputs"]); !count || *count < 1) {
            error("graphjson.type",
                  "\"num_outputs\" must be a positive integer, not " + a["num_outputs"].dump(), i);
        } else {
            h.outputs = static_cast<std::uint32_t>(*count);
        }
        if (a.contains("num_inputs") && !toInt(a["num_inputs"]))
            error("graphjson.type",
                  "\"num_inputs\" must be an integer, not " + a["num_inputs"].dump(), i);
    }
    return m_errors == 0;
}

bool GraphJsonReader::readRowPointers()
{
    const std::size_t count = m_headers.size();
    m_rowPtr.assign(count + 1, 0);
    for (std::size_t i = 0; i < count; ++i)
        m_rowPtr[i + 1] = m_rowPtr[i] + m_headers[i].outputs;
    const auto it = m_doc.find("node_row_ptr");
    if (it == m_doc.end())
        return true; // NNVM-era writers may leave it out: the prefix sum above is the same thing
    const json &rows = *it;
    if (rows.size() != count + 1) {
        errorAt("graphjson.node_row_ptr",
                "\"node_row_ptr\" has " + std::to_string(rows.size()) + " entries, expected "
                    + std::to_string(count + 1) + " (number of nodes + 1)",
                "/node_row_ptr");
        return false;
    }
    std::vector<std::int64_t> given(count + 1, 0);
    for (std::size_t i = 0; i <= count; ++i) {
        const auto v = toInt(rows[i]);
        if (!v || (!rows[i].is_number_integer())) {
            error("graphjson.type",
                  "\"node_row_ptr\"[" + std::to_string(i) + "] must be an integer");
            return false;
        }
        given[i] = *v;
    }
    if (given[0] != 0)
        error("graphjson.node_row_ptr",
              "\"node_row_ptr\" must start at 0, not " + std::to_string(given[0]));
    for (std::size_t i = 0; i < count; ++i) {
        const std::int64_t declared = m_headers[i].outputs;
        const std::int64_t entries = given[i + 1] - given[i];
        if (entries != declared) {
            error("graphjson.num_outputs",
                  (m_headers[i].isKernel ? "num_outputs is " : "a null node has ")
                      + std::to_string(declared) + (m_headers[i].isKernel ? "" : " output")
                      + " but node_row_ptr gives it " + std::to_string(entries) + " entries ("
                      + std::to_string(given[i]) + ".." + std::to_string(given[i + 1]) + ")",
                  i);
        }
    }
    return m_errors == 0;
}

bool GraphJsonReader::readEntryTypes()
{
    const json &attrs = m_doc["attrs"];
    const auto entries = static_cast<std::size_t>(m_rowPtr.back());
    auto list = [&](const char *key, const char *tag) -> const json * {
        const auto it = attrs.find(key);
        if (it == attrs.end()) {
            error("graphjson.missing_key",
                  std::string("missing required graph attribute \"") + key + "\"");
            return nullptr;
        }
        if (!it->is_array() || it->size() != 2 || !(*it)[0].is_string() || !(*it)[1].is_array()) {
            error("graphjson.type",
                  std::string("graph attribute \"") + key + "\" must be [\"" + tag + "\", [...]]");
            return nullptr;
        }
        if ((*it)[0].get<std::string>() != tag) {
            error("graphjson.type",
                  std::string("graph attribute \"") + key + "\" is tagged " + (*it)[0].dump()
                      + ", expected \"" + tag + "\"");
            return nullptr;
        }
        if ((*it)[1].size() != entries) {
            errorAt("graphjson.attr_length",
                    std::string("graph attribute \"") + key + "\" has "
                        + std::to_string((*it)[1].size()) + " entries, but the nodes have "
                        + std::to_string(entries) + " outputs",
                    std::string("/attrs/") + key + "/1");
            return nullptr;
        }
        return &(*it)[1];
    };
    const json *shapes = list("shape", "list_shape");
    const json *dtypes = list("dltype", "list_str");
    if (!shapes || !dtypes)
        return false;
    m_entryTypes.resize(entries);
    for (std::size_t e = 0; e < entries; ++e) {
        const json &shape = (*shapes)[e];
        const json &dtype = (*dtypes)[e];
        if (!shape.is_array() || !dtype.is_string()) {
            error("graphjson.type",
                  "entry " + std::to_string(e)
                      + ": a shape must be an array and a dltype a string");
            continue;
        }
        std::vector<Dim> dims;
        for (const json &d : shape) {
            if (!d.is_number_integer()) {
                error("graphjson.type",
                      "entry " + std::to_string(e) + ": shape " + shape.dump()
                          + " holds a non-integer");
                break;
            }
            const auto v = d.get<std::int64_t>();
            dims.push_back(v >= 0 ? Dim::known(v) : Dim::unknown());
        }
        m_entryTypes[e] = Type::tensor(std::move(dims), dtype.get<std::string>());
    }
    return m_errors == 0;
}

std::optional<TensorRef> GraphJsonReader::readEntry(const json &entry, const std::string &what,
                                                    std::optional<std::size_t> node,
                                                    const std::string &pointer)
{
    if (!entry.is_array() || entry.size() < 2 || entry.size() > 3
        || !std::all_of(entry.begin(), entry.end(),
                        [](const json &v) { return v.is_number_integer(); })) {
        report(Severity::Error, "graphjson.type",
               what + " must be [node, output] or [node, output, version], not " + entry.dump(),
               node, pointer);
        return std::nullopt;
    }
    const auto nid = entry[0].get<std::int64_t>();
    const auto index = entry[1].get<std::int64_t>();
    if (nid < 0 || static_cast<std::size_t>(nid) >= m_headers.size()) {
        report(Severity::Error, "graphjson.bad_entry",
               what + " refers to node " + std::to_string(nid) + ", but the graph has "
                   + std::to_string(m_headers.size()) + " nodes",
               node, pointer);
        return std::nullopt;
    }
    const std::uint32_t outputs = m_headers[static_cast<std::size_t>(nid)].outputs;
    if (index < 0 || index >= outputs) {
        report(Severity::Error, "graphjson.bad_entry",
               what + " refers to output " + std::to_string(index) + " of node "
                   + std::to_string(nid) + ", which has " + std::to_string(outputs) + " output"
                   + (outputs == 1 ? "" : "s"),
               node, pointer);
        return std::nullopt;
    }
    return TensorRef { NodeId(static_cast<std::size_t>(nid)), static_cast<std::uint32_t>(index) };
}

void GraphJsonReader::buildNodes(Graph &graph, FunctionId main)
{
    static const std::array<std::string_view, 3> intAttrs
        = { "num_inputs", "num_outputs", "flatten_data" };
    for (std::size_t i = 0; i < m_headers.size(); ++i) {
        const json &j = (*m_nodes)[i];
        const NodeHeader &h = m_headers[i];
        Node n;
        n.function = main;
        n.name = h.name;
        if (i < m_nodeOffsets.size())
            n.where = SourcePosition::of(m_locator.at(m_nodeOffsets[i]));
        if (h.outputs > 0) {
            const auto first = m_entryTypes.begin() + m_rowPtr[i];
            n.setOutputTypes(TypeList({ first, first + h.outputs }));
        }
        const json &inputs = j["inputs"];
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            if (auto ref = readEntry(inputs[k], "input " + std::to_string(k), i))
                n.inputs.push_back(*ref);
        }
        if (!h.isKernel) {
            n.kind
                = GraphJsonImporter::isParameterName(h.name) ? NodeKind::Constant : NodeKind::Input;
            if (!n.inputs.empty())
                warning("graphjson.null_inputs", "a null node has inputs; they are ignored", i);
            n.inputs.clear();
            const NodeId id = graph.addNode(std::move(n));
            if (graph.node(id).kind == NodeKind::Input)
                graph.function(main).params.push_back(id);
            continue;
        }
        n.kind = NodeKind::OpCall;
        n.op = h.funcName;
        std::vector<Attributes::Item> attrs;
        for (const auto &[key, value] : h.attrs->items()) {
            const bool isInt = std::find(intAttrs.begin(), intAttrs.end(), key) != intAttrs.end();
            if (isInt && toInt(value))
                Attributes::setItem(attrs, key, AttrValue::integer(*toInt(value)));
            else
                Attributes::setItem(
                    attrs, key,
                    AttrValue::string(value.is_string() ? value.get<std::string>() : value.dump()));
        }
        n.attrs = Attributes(std::move(attrs));
        if (const auto declared = toInt(h.attrs->value("num_inputs", json("-1")));
            declared && *declared >= 0 && static_cast<std::size_t>(*declared) != inputs.size()) {
            warning("graphjson.num_inputs",
                    "num_inputs is " + std::to_string(*declared) + " but the node has "
                        + std::to_string(inputs.size()) + " inputs",
                    i);
        }
        graph.addNode(std::move(n));
    }
}

void GraphJsonReader::buildResult(Graph &graph, FunctionId main)
{
    const json &heads = m_doc["heads"];
    std::vector<TensorRef> refs;
    for (std::size_t k = 0; k < heads.size(); ++k) {
        if (auto ref = readEntry(heads[k], "head " + std::to_string(k), std::nullopt,
                                 "/heads/" + std::to_string(k)))
            refs.push_back(*ref);
    }
    if (heads.empty())
        error("graphjson.no_outputs", "\"heads\" is empty: the graph has no outputs");
    if (refs.size() != heads.size() || refs.empty())
        return;
    if (refs.size() == 1 && refs[0].output == 0 && m_headers[refs[0].node.index()].outputs == 1) {
        graph.function(main).result = refs[0].node;
        return;
    }
    Node tuple;
    tuple.kind = NodeKind::Tuple;
    tuple.function = main;
    tuple.name = "heads";
    tuple.inputs = refs;
    std::vector<Type> fields;
    fields.reserve(refs.size());
    for (const TensorRef &r : refs)
        fields.push_back(graph.tensorType(r));
    tuple.setOutputTypes({ Type::tuple(std::move(fields)) });
    graph.function(main).result = graph.addNode(std::move(tuple));
}

void GraphJsonReader::checkArgNodes()
{
    const auto it = m_doc.find("arg_nodes");
    if (it == m_doc.end())
        return;
    for (const json &v : *it) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0
            || static_cast<std::size_t>(v.get<std::int64_t>()) >= m_headers.size()) {
            error("graphjson.bad_entry",
                  "\"arg_nodes\" holds " + v.dump() + ", which is not a node index below "
                      + std::to_string(m_headers.size()));
            continue;
        }
        const auto nid = static_cast<std::size_t>(v.get<std::int64_t>());
        if (m_headers[nid].isKernel)
            warning("graphjson.arg_node", "listed in \"arg_nodes\" but it is a tvm_op", nid);
    }
}

std::unique_ptr<Graph> GraphJsonReader::read()
{
    if (!parseDocument() || !checkTopLevel() || !readNodeHeaders() || !readRowPointers()
        || !readEntryTypes())
        return nullptr;
    m_graphNodesMatchJson = true;
    checkArgNodes();

    auto graph = std::make_unique<Graph>();
    graph->setFormat("graph.json"); // fuseOps() names compiled kernels by func_name on this
    graph->reserveNodes(m_headers.size() + 1);
    Function mainFn;
    mainFn.kind = Function::Kind::Global;
    mainFn.name = "main";
    const FunctionId main = graph->addFunction(std::move(mainFn));
    buildNodes(*graph, main);
    buildResult(*graph, main);
    if (m_errors > 0)
        return nullptr;

    graph->finalize();
    const std::vector<NodeId> order = graph->topologicalOrder(main);
    if (order.size() != graph->function(main).nodes.size()) {
        std::vector<bool> placed(graph->nodeCount(), false);
        for (NodeId id : order)
            placed[id.index()] = true;
        std::vector<std::size_t> stuck;
        for (std::size_t i = 0; i < graph->nodeCount(); ++i) {
            if (!placed[i])
                stuck.push_back(i);
        }
        std::string list;
        for (std::size_t k = 0; k < stuck.size() && k < 8; ++k)
            list += (k ? ", " : "") + std::to_string(stuck[k]);
        if (stuck.size() > 8)
            list += ", ...";
        error("graphjson.cycle",
              "the graph has a cycle: " + std::to_string(stuck.size())
                  + " nodes are on it or depend on it (nodes " + list + ")",
              stuck.front() < m_headers.size() ? std::optional<std::size_t>(stuck.front())
                                               : std::nullopt);
        return nullptr;
    }
    return graph;
}

} // namespace

bool GraphJsonImporter::canRead(std::string_view path, std::string_view head) const
{
    const bool looksLikeGraph = head.find("\"nodes\"") != std::string_view::npos
        && (head.find("\"node_row_ptr\"") != std::string_view::npos
            || head.find("\"heads\"") != std::string_view::npos
            || head.find("\"arg_nodes\"") != std::string_view::npos
            || head.find("\"tvm_op\"") != std::string_view::npos);
    if (endsWith(path, "graph.json"))
        return true;
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    const bool isObject = first != std::string_view::npos && head[first] == '{';
    return isObject && looksLikeGraph;
}

bool GraphJsonImporter::isParameterName(std::string_view name)
{
    if (name.size() > 1 && name[0] == 'p'
        && std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return true;
    if (startsWith(name, "_param_"))
        return true;
    static const std::array<std::string_view, 14> suffixes
        = { "_weight", "_bias",        "_gamma",      "_beta",         "_mean",
            "_var",    "_moving_mean", "_moving_var", "_running_mean", "_running_var",
            "_scale",  "_shift",       "_expand",     "_const" };
    return std::any_of(suffixes.begin(), suffixes.end(),
                       [&](std::string_view s) { return endsWith(name, s); });
}

ImportResult GraphJsonImporter::importBytes(std::string_view bytes, const std::string &path) const
{
    return guardedImport(path, "graphjson.internal", [&](ImportResult &result) {
        GraphJsonReader reader(bytes, path, result.diagnostics);
        result.graph = reader.read();
    });
}

} // namespace cleave
