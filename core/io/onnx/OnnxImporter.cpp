// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/onnx/OnnxImporter.h"

#include "core/graph/JsonParse.h"
#include "core/io/onnx/OnnxNames.h"
#include "core/support/Utf8.h"

#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <array>
#include <climits>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

namespace cleave {

namespace {

/// How many graphs deep a graph's If / Loop / Scan bodies go (1: no subgraph).
int graphDepth(const onnx::GraphProto &graph)
{
    int deepest = 0;
    for (const onnx::NodeProto &node : graph.node()) {
        for (const onnx::AttributeProto &a : node.attribute()) {
            if (a.has_g())
                deepest = std::max(deepest, graphDepth(a.g()));
            for (const onnx::GraphProto &g : a.graphs())
                deepest = std::max(deepest, graphDepth(g));
        }
    }
    return deepest + 1;
}

using onnxio::dtypeName;

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Type typeFrom(const onnx::TypeProto &type)
{
    if (!type.has_tensor_type())
        return Type::unknown();
    const auto &tensor = type.tensor_type();
    if (!tensor.has_shape())
        return Type::unknown();
    std::vector<Dim> dims;
    for (const auto &d : tensor.shape().dim()) {
        if (d.has_dim_value())
            dims.push_back(Dim::known(d.dim_value()));
        else if (d.has_dim_param() && !d.dim_param().empty())
            dims.push_back(Dim::symbolic(d.dim_param()));
        else
            dims.push_back(Dim::unknown());
    }
    return Type::tensor(std::move(dims), dtypeName(tensor.elem_type()));
}

Type typeOf(const onnx::TensorProto &t)
{
    std::vector<Dim> dims;
    for (std::int64_t d : t.dims())
        dims.push_back(Dim::known(d));
    return Type::tensor(std::move(dims), dtypeName(t.data_type()));
}

AttrValue attrFrom(const onnx::AttributeProto &a)
{
    std::vector<AttrValue> items;
    switch (a.type()) {
    case onnx::AttributeProto::FLOAT:
        return AttrValue::floating(a.f(), "float32");
    case onnx::AttributeProto::INT:
        return AttrValue::integer(a.i(), "int64");
    case onnx::AttributeProto::STRING:
        if (firstInvalidUtf8(a.s()) != std::string_view::npos) { // bytes, not text
            AttrValue v;
            v.kind = AttrValue::Kind::Opaque;
            v.text = "bytes (" + std::to_string(a.s().size()) + ")";
            return v;
        }
        return AttrValue::string(a.s());
    case onnx::AttributeProto::FLOATS:
        for (float f : a.floats())
            items.push_back(AttrValue::floating(f, "float32"));
        return AttrValue::listOf(std::move(items));
    case onnx::AttributeProto::INTS:
        for (std::int64_t i : a.ints())
            items.push_back(AttrValue::integer(i, "int64"));
        return AttrValue::listOf(std::move(items));
    case onnx::AttributeProto::STRINGS:
        for (const std::string &s : a.strings())
            items.push_back(firstInvalidUtf8(s) == std::string_view::npos
                                ? AttrValue::string(s)
                                : AttrValue::string("bytes (" + std::to_string(s.size()) + ")"));
        return AttrValue::listOf(std::move(items));
    case onnx::AttributeProto::TENSOR: {
        AttrValue v;
        v.kind = AttrValue::Kind::Opaque;
        v.text = "tensor " + typeOf(a.t()).toShortString();
        return v;
    }
    case onnx::AttributeProto::GRAPH: {
        AttrValue v;
        v.kind = AttrValue::Kind::Opaque;
        v.text = "graph " + a.g().name() + " (" + std::to_string(a.g().node_size()) + " nodes)";
        return v;
    }
    default: {
        AttrValue v;
        v.kind = AttrValue::Kind::Opaque;
        v.text = onnx::AttributeProto::AttributeType_Name(a.type());
        return v;
    }
    }
}

/// Attributes that libonnx's shape inference divides by (a Conv stride of 0 is a SIGFPE
/// inside it) or that the spec requires positive: every value must be >= 1.
bool mustBePositive(const std::string &name)
{
    static constexpr std::array<std::string_view, 6> names
        = { "strides", "dilations", "kernel_shape", "blocksize", "group", "num_outputs" };
    return std::find(names.begin(), names.end(), name) != names.end();
}

/// The first attribute of `g` (or its subgraphs) that shape inference cannot take, or the
/// first name that is not UTF-8, described for a diagnostic; nullopt when all is well.
std::optional<std::string> unsafeForInference(const onnx::GraphProto &g, int depth)
{
    if (depth > 32)
        return "subgraphs nest more than 32 levels deep";
    auto badName
        = [](const std::string &name) { return firstInvalidUtf8(name) != std::string_view::npos; };
    for (const auto &list : { &g.input(), &g.output(), &g.value_info() }) {
        for (const auto &vi : *list) {
            if (badName(vi.name()))
                return "a value name is not valid UTF-8: " + quoteBounded(vi.name());
        }
    }
    for (const auto &t : g.initializer()) {
        if (badName(t.name()))
            return "an initializer name is not valid UTF-8: " + quoteBounded(t.name());
    }
    for (const onnx::NodeProto &node : g.node()) {
        const std::string what
            = "node " + quoteBounded(node.name()) + " (" + quoteBounded(node.op_type()) + ")";
        if (badName(node.name()) || badName(node.op_type()) || badName(node.domain()))
            return what + ": its name, op type or domain is not valid UTF-8";
        for (const auto &names : { &node.input(), &node.output() }) {
            for (const std::string &n : *names) {
                if (badName(n))
                    return what + ": tensor name " + quoteBounded(n) + " is not valid UTF-8";
            }
        }
        for (const onnx::AttributeProto &a : node.attribute()) {
            if (badName(a.name()))
                return what + ": an attribute name is not valid UTF-8";
            if (mustBePositive(a.name())) {
                const bool bad = (a.type() == onnx::AttributeProto::INT && a.i() < 1)
                    || std::any_of(a.ints().begin(), a.ints().end(),
                                   [](std::int64_t v) { return v < 1; });
                if (bad) {
                    std::string values = a.type() == onnx::AttributeProto::INT
                        ? std::to_string(a.i())
                        : std::string("[");
                    for (int k = 0; k < a.ints_size() && k < 8; ++k)
                        values += (k ? ", " : "") + std::to_string(a.ints(k));
                    if (a.type() != onnx::AttributeProto::INT)
                        values += a.ints_size() > 8 ? ", …]" : "]";
                    return what + ": attribute " + a.name() + " = "
                        + values.append("; every value must be at least 1");
                }
            }
            if (a.has_g()) {
                if (auto problem = unsafeForInference(a.g(), depth + 1))
                    return problem;
            }
            for (const onnx::GraphProto &sub : a.graphs()) {
                if (auto problem = unsafeForInference(sub, depth + 1))
                    return problem;
            }
        }
    }
    return std::nullopt;
}

using NameMap = std::unordered_map<std::string, TensorRef>;

/// Builds the graph of one ONNX GraphProto (the main graph or a subgraph) into function `f`.
class GraphBuilder
{
public:
    GraphBuilder(Graph &graph, const std::string &path, std::vector<Diagnostic> &diagnostics)
        : m_graph(graph)
        , m_path(path)
        , m_diagnostics(diagnostics)
    {
    }

    void error(std::string code, std::string message)
    {
        Diagnostic d = Diagnostic::make(Severity::Error, std::move(code), std::move(message));
        d.where = { m_path, 1, 1 };
        m_diagnostics.push_back(std::move(d));
    }
    void warning(std::string code, std::string message)
    {
        Diagnostic d = Diagnostic::make(Severity::Warning, std::move(code), std::move(message));
        d.where = { m_path, 1, 1 };
        m_diagnostics.push_back(std::move(d));
    }

    /// Adds the nodes of `g` to function `f`; `outer` resolves names of enclosing graphs.
    /// Returns false on an error that makes the graph unusable.
    bool build(const onnx::GraphProto &g, FunctionId f, const NameMap *outer, int depth)
    {
        if (depth > 32) {
            error("onnx.nesting", "subgraphs nest more than 32 levels deep");
            return false;
        }
        std::unordered_map<std::string, Type> types;
        for (const auto &vi : g.value_info())
            types[vi.name()] = typeFrom(vi.type());
        for (const auto &vi : g.output())
            types[vi.name()] = typeFrom(vi.type());

        NameMap names;
        if (!addInputsAndInitializers(g, f, names))
            return false;
        const std::vector<std::size_t> order = topologicalOrder(g, names, outer);
        if (order.empty() && g.node_size() > 0)
            return false;
        const std::vector<std::string> keys = onnxio::nodeKeys(g);
        for (std::size_t i : order) {
            const onnx::NodeProto &proto = g.node(static_cast<int>(i));
            const NodeId id = m_graph.addNode(nodeOf(proto, keys[i], f, names, outer, types));
            for (const auto &a : proto.attribute()) {
                if (a.type() == onnx::AttributeProto::GRAPH
                    && !subgraph(a, id, f, names, outer, depth))
                    return false;
            }
            for (std::size_t o = 0; o < static_cast<std::size_t>(proto.output_size()); ++o) {
                if (!proto.output(static_cast<int>(o)).empty())
                    names[proto.output(static_cast<int>(o))]
                        = { id, static_cast<std::uint32_t>(o) };
            }
        }
        if (m_failed)
            return false;
        return setResult(g, f, names, outer);
    }

private:
    // Graph inputs minus initializers are the inputs (IR < 4 lists initializers as inputs);
    // initializers are constants.
    bool addInputsAndInitializers(const onnx::GraphProto &g, FunctionId f, NameMap &names)
    {
        std::unordered_map<std::string, const onnx::TensorProto *> initializers;
        for (const auto &t : g.initializer())
            initializers[t.name()] = &t;
        for (const auto &in : g.input()) {
            if (initializers.contains(in.name()))
                continue;
            Node n;
            n.kind = NodeKind::Input;
            n.function = f;
            n.name = in.name();
            n.setOutputTypes({ typeFrom(in.type()) });
            n.setOutputNames({ in.name() });
            const NodeId id = m_graph.addNode(std::move(n));
            m_graph.function(f).params.push_back(id);
            names[in.name()] = { id, 0 };
        }
        for (const auto &t : g.initializer()) {
            if (!checkExternalData(t))
                return false;
            Node n;
            n.kind = NodeKind::Constant;
            n.function = f;
            n.name = t.name();
            n.setOutputTypes({ typeOf(t) });
            n.setOutputNames({ t.name() });
            names[t.name()] = { m_graph.addNode(std::move(n)), 0 };
        }
        return true;
    }

    /// The node for one NodeProto (without its subgraphs), its inputs resolved by name.
    Node nodeOf(const onnx::NodeProto &proto, const std::string &key, FunctionId f,
                const NameMap &names, const NameMap *outer,
                const std::unordered_map<std::string, Type> &types)
    {
        Node n;
        n.function = f;
        n.name = key;
        n.op = onnxio::opName(proto);
        n.kind = NodeKind::OpCall;
        for (int k = 0; k < proto.input_size(); ++k) {
            const std::string &in = proto.input(k);
            if (in.empty())
                continue; // an omitted optional input
            n.inputs.push_back(resolve(in, names, outer));
        }
        std::vector<Attributes::Item> attrs;
        for (const auto &a : proto.attribute()) {
            if (a.type() != onnx::AttributeProto::GRAPH)
                Attributes::setItem(attrs, a.name(), attrFrom(a));
        }
        n.attrs = Attributes(std::move(attrs));
        std::vector<Type> outputTypes;
        for (const std::string &out : proto.output()) {
            const auto t = types.find(out);
            outputTypes.push_back(t == types.end() ? Type::unknown() : t->second);
            n.editDetail().outputNames.push_back(out);
        }
        if (outputTypes.empty()) {
            outputTypes.push_back(Type::unknown());
            n.editDetail().outputNames.emplace_back();
        }
        n.setOutputTypes(TypeList(outputTypes));
        if (proto.op_type() == "Constant" && proto.domain().empty() && proto.input_size() == 0) {
            // A Constant node is a weight like an initializer: it follows its consumers.
            n.kind = NodeKind::Constant;
            n.op = InternedString();
            for (const auto &a : proto.attribute()) {
                if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR)
                    n.setOutputType(0, typeOf(a.t()));
            }
        }
        return n;
    }

    /// The function's result: its outputs (a tuple when there are several).
    bool setResult(const onnx::GraphProto &g, FunctionId f, const NameMap &names,
                   const NameMap *outer)
    {
        std::vector<TensorRef> results;
        for (const auto &out : g.output()) {
            const auto it = names.find(out.name());
            if (it == names.end()) {
                const TensorRef outerRef = outer ? lookup(*outer, out.name()) : TensorRef {};
                if (!outerRef.isValid()) {
                    error("onnx.dangling_output",
                          "graph output '" + out.name()
                              + "' is not produced by any node, input "
                                "or initializer of graph '"
                              + g.name() + "'");
                    return false;
                }
                results.push_back(outerRef);
                continue;
            }
            results.push_back(it->second);
            // Outputs keep their declared type when inference left them unknown.
            Node &producer = m_graph.node(it->second.node);
            if (producer.outputType(it->second.output).isUnknown())
                producer.setOutputType(it->second.output, typeFrom(out.type()));
        }
        if (results.size() == 1 && results[0].output == 0) {
            m_graph.function(f).result = results[0].node;
        } else if (!results.empty()) {
            Node tuple;
            tuple.kind = NodeKind::Tuple;
            tuple.function = f;
            tuple.name = g.name().empty() ? "outputs" : g.name() + ".outputs";
            tuple.inputs = results;
            std::vector<Type> fields;
            fields.reserve(results.size());
            for (TensorRef r : results)
                fields.push_back(m_graph.node(r.node).outputType(r.output));
            tuple.setOutputTypes({ Type::tuple(std::move(fields)) });
            m_graph.function(f).result = m_graph.addNode(std::move(tuple));
        }
        return true;
    }

    static TensorRef lookup(const NameMap &names, const std::string &name)
    {
        const auto it = names.find(name);
        return it == names.end() ? TensorRef {} : it->second;
    }

    TensorRef resolve(const std::string &name, const NameMap &names, const NameMap *outer)
    {
        TensorRef t = lookup(names, name);
        if (!t.isValid() && outer)
            t = lookup(*outer, name);
        return t;
    }

    /// Node indices in a topological order that keeps the file order among ready nodes (Kahn's
    /// algorithm over the smallest ready index). Empty, with a diagnostic, on a dangling input
    /// or a cycle.
    std::vector<std::size_t> topologicalOrder(const onnx::GraphProto &g, const NameMap &names,
                                              const NameMap *outer)
    {
        const auto count = static_cast<std::size_t>(g.node_size());
        const std::vector<std::string> keys = onnxio::nodeKeys(g);
        std::unordered_map<std::string, std::size_t> producer;
        for (std::size_t i = 0; i < count; ++i) {
            for (const std::string &out : g.node(static_cast<int>(i)).output()) {
                if (out.empty())
                    continue;
                if (producer.contains(out) || names.contains(out)) {
                    error("onnx.duplicate_output",
                          "node '" + keys[i] + "' (" + g.node(static_cast<int>(i)).op_type()
                              + ") writes tensor '" + out + "', which is already defined");
                    return {};
                }
                producer[out] = i;
            }
        }
        std::vector<std::size_t> pending(count, 0);
        std::vector<std::vector<std::size_t>> consumers(count);
        for (std::size_t i = 0; i < count; ++i) {
            const onnx::NodeProto &node = g.node(static_cast<int>(i));
            std::vector<std::string> reads(node.input().begin(), node.input().end());
            collectOuterReads(node, reads);
            for (std::size_t k = 0; k < reads.size(); ++k) {
                const std::string &in = reads[k];
                if (in.empty())
                    continue;
                const auto p = producer.find(in);
                if (p != producer.end()) {
                    if (p->second != i) {
                        ++pending[i];
                        consumers[p->second].push_back(i);
                    } else {
                        error("onnx.cycle",
                              "node '" + keys[i] + "' (" + node.op_type()
                                  + ") reads its own output '" + in + "'");
                        return {};
                    }
                    continue;
                }
                const bool known = names.contains(in) || (outer && outer->contains(in));
                if (!known && k < static_cast<std::size_t>(node.input_size())) {
                    error("onnx.dangling_input",
                          "node '" + keys[i] + "' (" + node.op_type() + ") input "
                              + std::to_string(k) + " reads '" + in
                              + "', which no node, graph "
                                "input or initializer produces");
                    return {};
                }
            }
        }
        std::vector<std::size_t> order;
        std::vector<std::size_t> ready;
        for (std::size_t i = 0; i < count; ++i) {
            if (pending[i] == 0)
                ready.push_back(i);
        }
        // Min-heap on the index keeps file order among ready nodes.
        auto cmp = [](std::size_t a, std::size_t b) { return a > b; };
        std::make_heap(ready.begin(), ready.end(), cmp);
        while (!ready.empty()) {
            std::pop_heap(ready.begin(), ready.end(), cmp);
            const std::size_t i = ready.back();
            ready.pop_back();
            order.push_back(i);
            for (std::size_t c : consumers[i]) {
                if (--pending[c] == 0) {
                    ready.push_back(c);
                    std::push_heap(ready.begin(), ready.end(), cmp);
                }
            }
        }
        if (order.size() != count) {
            std::string cycle;
            for (std::size_t i = 0; i < count && cycle.size() < 200; ++i) {
                if (pending[i] == 0)
                    continue;
                if (!cycle.empty())
                    cycle += ", ";
                cycle += keys[i];
            }
            error("onnx.cycle", "the nodes form a cycle (ONNX graphs must be acyclic): " + cycle);
            return {};
        }
        return order;
    }

    /// Names a node's subgraphs read from enclosing scopes (implicit inputs), which order the
    /// node after their producers.
    static void collectOuterReads(const onnx::NodeProto &node, std::vector<std::string> &reads)
    {
        for (const auto &a : node.attribute()) {
            if (a.type() != onnx::AttributeProto::GRAPH)
                continue;
            std::unordered_map<std::string, bool> local;
            for (const auto &i : a.g().input())
                local[i.name()] = true;
            for (const auto &t : a.g().initializer())
                local[t.name()] = true;
            for (const auto &n : a.g().node()) {
                for (const std::string &in : n.input()) {
                    if (!in.empty() && !local.contains(in))
                        reads.push_back(in);
                }
                for (const std::string &out : n.output())
                    local[out] = true;
            }
        }
    }

    bool subgraph(const onnx::AttributeProto &a, NodeId owner, FunctionId parent,
                  const NameMap &names, const NameMap *outer, int depth)
    {
        NameMap visible = outer ? *outer : decltype(visible) {};
        for (const auto &[name, ref] : names)
            visible[name] = ref;
        Function fn;
        fn.kind = Function::Kind::Scope;
        fn.parent = parent;
        fn.name = m_graph.node(owner).name + "." + a.name();
        const FunctionId id = m_graph.addFunction(std::move(fn));
        m_graph.node(owner).editDetail().scopes.push_back(id);
        if (!build(a.g(), id, &visible, depth + 1)) {
            m_failed = true;
            return false;
        }
        return true;
    }

    bool checkExternalData(const onnx::TensorProto &t)
    {
        if (t.data_location() != onnx::TensorProto::EXTERNAL)
            return true;
        const auto [location, offset, length] = onnxio::externalDataOf(t);
        namespace fs = std::filesystem;
        std::string problem;
        const auto file = onnxio::resolveExternalData(fs::path(m_path).parent_path().string(),
                                                      location, problem);
        if (!file) {
            error("onnx.external_data",
                  "initializer " + quoteBounded(t.name()) + " keeps its data in "
                      + quoteBounded(location) + ", which " + problem);
            return false;
        }
        std::error_code ec;
        const auto size = fs::file_size(*file, ec);
        const auto bytes = typeOf(t).byteSize();
        const std::int64_t needed = length >= 0 ? length : bytes.value_or(0);
        if (ec || offset < 0 || needed < 0
            || offset > std::numeric_limits<std::int64_t>::max() - needed
            || static_cast<std::uintmax_t>(offset + needed) > size) {
            const bool representable = offset >= 0 && needed >= 0
                && offset <= std::numeric_limits<std::int64_t>::max() - needed;
            const std::string end
                = representable ? std::to_string(offset + needed) : std::string("beyond 2^63");
            error("onnx.external_data",
                  "initializer " + quoteBounded(t.name()) + " needs bytes " + std::to_string(offset)
                      + " to " + end + " of " + quoteBounded(location) + ", which holds "
                      + std::to_string(size));
            return false;
        }
        return true;
    }

    Graph &m_graph;
    const std::string &m_path;
    std::vector<Diagnostic> &m_diagnostics;
    bool m_failed = false;
};

} // namespace

bool OnnxImporter::canRead(std::string_view path, std::string_view head) const
{
    if (endsWith(path, ".onnx"))
        return true;
    // ModelProto starts with ir_version (field 1, varint: tag 0x08) and a version of 3 to 10,
    // then usually opset_import (0x42), producer_name (0x12) or graph (0x3a).
    return head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0x08 && head[1] >= 3
        && head[1] <= 10
        && (head[2] == 0x42 || head[2] == 0x12 || head[2] == 0x3a || head[2] == 0x1a);
}

ImportResult OnnxImporter::importBytes(std::string_view bytes, const std::string &path) const
{
    return guardedImport(path, "onnx.internal", [&](ImportResult &result) {
        auto fail = [&](std::string code, std::string message) {
            Diagnostic d = Diagnostic::make(Severity::Error, std::move(code), std::move(message));
            d.where = { path, 1, 1 };
            result.diagnostics.push_back(std::move(d));
        };
        if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
            fail("onnx.too_large",
                 "the model is " + std::to_string(bytes.size() >> 20)
                     + " MiB; protobuf cannot read a single message over 2 GiB. Save the weights "
                       "as external data (onnx.save_model(model, path, "
                       "save_as_external_data=True))");
            return;
        }
        onnx::ModelProto model;
        if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
            // Protobuf refuses messages nested more than 100 deep as it refuses broken bytes: a
            // second reading with a higher limit tells the two apart (a few hundred levels of
            // generated parsing stay far from the stack's end).
            onnx::ModelProto deep;
            google::protobuf::io::CodedInputStream in(
                reinterpret_cast<const std::uint8_t *>(bytes.data()),
                static_cast<int>(bytes.size()));
            in.SetRecursionLimit(1000);
            if (deep.ParseFromCodedStream(&in)) {
                fail("onnx.too_deep",
                     "the model's graphs are nested " + std::to_string(graphDepth(deep.graph()))
                         + " deep (If / Loop / Scan bodies inside one another): more than the 100 "
                           "protobuf message levels ONNX readers accept (about 32 nested "
                           "graphs); flatten the control flow or split the model");
                return;
            }
            fail("onnx.parse",
                 "not a valid ONNX model: the protobuf message is malformed or truncated ("
                     + std::to_string(bytes.size()) + " bytes)");
            return;
        }
        if (!model.has_graph()) {
            fail("onnx.no_graph", "the ONNX model has no graph");
            return;
        }
        std::int64_t opset = 0;
        for (const auto &o : model.opset_import()) {
            if (o.domain().empty() || o.domain() == "ai.onnx")
                opset = o.version();
        }
        if (opset != 0 && (opset < 7 || opset > 18)) {
            Diagnostic d = Diagnostic::make(Severity::Warning, "onnx.opset",
                                            "opset " + std::to_string(opset)
                                                + " is outside the range Cleave is tested with "
                                                  "(7 to 18); shapes may be incomplete");
            d.where = { path, 1, 1 };
            result.diagnostics.push_back(std::move(d));
        }
        if (const auto problem = unsafeForInference(model.graph(), 0)) {
            fail("onnx.bad_attribute", *problem);
            return;
        }
        try {
            onnx::shape_inference::InferShapes(model);
        } catch (const std::exception &e) {
            Diagnostic d = Diagnostic::make(Severity::Warning, "onnx.shape_inference",
                                            std::string("ONNX shape inference stopped: ") + e.what()
                                                + "; tensor types come from the file only");
            d.where = { path, 1, 1 };
            result.diagnostics.push_back(std::move(d));
        }
        auto graph = std::make_unique<Graph>();
        Function main;
        main.kind = Function::Kind::Global;
        main.name = "main";
        const FunctionId f = graph->addFunction(std::move(main));
        graph->setVersionHeader("ir_version=" + std::to_string(model.ir_version())
                                + " opset=" + std::to_string(opset));
        GraphBuilder builder(*graph, path, result.diagnostics);
        if (!builder.build(model.graph(), f, nullptr, 0))
            return;
        graph->finalize();
        result.graph = std::move(graph);
    });
}

} // namespace cleave
