// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/ModelSummary.h"

#include "core/analysis/Cost.h"
#include "core/support/Saturating.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>
#include <utility>

namespace cleave {

namespace {

const char *functionKindName(Function::Kind kind)
{
    switch (kind) {
    case Function::Kind::Global:
        return "global";
    case Function::Kind::Literal:
        return "literal";
    case Function::Kind::Scope:
        return "scope";
    }
    return "global";
}

std::string displayName(const Function &f)
{
    return f.kind == Function::Kind::Global ? "@" + f.name : f.name;
}

std::string blockKind(const Function &f)
{
    if (!f.composite().empty())
        return "composite";
    if (!f.compiler().empty())
        return "external";
    if (f.isPrimitive())
        return "primitive";
    return "global";
}

std::string stripSigil(const std::string &name)
{
    return !name.empty() && name.front() == '%' ? name.substr(1) : name;
}

std::string plural(std::size_t n, const char *singular, const char *pluralForm)
{
    return std::to_string(n) + " " + (n == 1 ? singular : pluralForm);
}

std::string attrsToText(const Attributes &attrs)
{
    std::string text;
    for (const auto &[key, value] : attrs.items()) {
        if (!text.empty())
            text += ", ";
        text += key + "=" + value.toRelay();
    }
    return text;
}

nlohmann::json attrsToJson(const Attributes &attrs)
{
    auto object = nlohmann::json::object();
    for (const auto &[key, value] : attrs.items())
        object[key] = attrValueToJson(value);
    return object;
}

nlohmann::json tensorToJson(const TensorSummary &t)
{
    return {
        { "name", t.name },
        { "node", t.node },
        { "shape", shapeToJson(t.type) },
        { "dtype", t.type.isTensor() ? nlohmann::json(t.type.dtype) : nlohmann::json() },
        { "type", t.type.toRelay() },
    };
}

// Appends rows whose columns are padded to the widest cell; the last column is not padded.
void appendTable(std::ostringstream &out, const std::vector<std::vector<std::string>> &rows)
{
    std::vector<std::size_t> widths;
    for (const auto &row : rows) {
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (std::size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());
    }
    for (const auto &row : rows) {
        std::string line = "  ";
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += row[c];
            if (c + 1 < row.size())
                line += std::string(widths[c] - row[c].size() + 2, ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << '\n';
    }
}

// Ops by descending count, then by name: the order a reader scans a histogram in.
std::vector<std::pair<std::string, std::size_t>> byCount(const OpHistogram &ops)
{
    std::vector<std::pair<std::string, std::size_t>> sorted(ops.begin(), ops.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
    return sorted;
}

std::string histogramToText(const OpHistogram &ops)
{
    std::string text;
    for (const auto &[op, count] : byCount(ops)) {
        if (!text.empty())
            text += ' ';
        text += op + "×" + std::to_string(count);
    }
    return text;
}

} // namespace

std::string ModelSummary::shapesNote() const
{
    if (opsWithoutShapes == 0)
        return {};
    const bool inputsShaped = std::all_of(inputs.begin(), inputs.end(), [](const TensorSummary &t) {
        return !t.type.isTensor() || t.type.elementCount().has_value();
    });
    std::string note = std::to_string(opsWithoutShapes) + " of " + std::to_string(mainOps)
        + " ops have no shape: ";
    if (!inputsShaped)
        note += "the model's inputs have no static shape and the file has no type annotations, "
                "so none can be inferred";
    else if (opsWithoutShapes * 2 > mainOps)
        note += "the file has no type annotations (no ty=) and no metadata, and shape inference "
                "stops at the first op it has no rule for";
    else
        note += "the file does not annotate them and shape inference has no rule for their ops";
    return note + "; their FLOPs are not counted (FLOPs are a lower bound)";
}

nlohmann::json attrValueToJson(const AttrValue &value)
{
    switch (value.kind) {
    case AttrValue::Kind::Null:
        return nullptr;
    case AttrValue::Kind::Int:
        return value.intValue;
    case AttrValue::Kind::Float:
        return value.floatValue;
    case AttrValue::Kind::Bool:
        return value.boolValue;
    case AttrValue::Kind::String:
        return value.text;
    case AttrValue::Kind::List: {
        auto array = nlohmann::json::array();
        for (const AttrValue &item : value.list)
            array.push_back(attrValueToJson(item));
        return array;
    }
    case AttrValue::Kind::Map: {
        auto object = nlohmann::json::object();
        for (std::size_t i = 0; i < value.keys.size() && i < value.list.size(); ++i)
            object[value.keys[i]] = attrValueToJson(value.list[i]);
        return object;
    }
    case AttrValue::Kind::MetaRef:
    case AttrValue::Kind::Opaque:
    case AttrValue::Kind::GlobalRef:
        return value.text;
    }
    return nullptr;
}

nlohmann::json shapeToJson(const Type &type)
{
    if (!type.isTensor())
        return nullptr;
    auto shape = nlohmann::json::array();
    for (const Dim &dim : type.shape) {
        if (!dim.symbol.empty())
            shape.push_back(dim.symbol);
        else
            shape.push_back(dim.isKnown() ? dim.value : Dim::dynamic);
    }
    return shape;
}

ModelSummary ModelSummary::compute(const Graph &graph)
{
    ModelSummary s;
    s.format = graph.format();
    s.sourcePath = graph.sourcePath();
    s.checksum = graph.checksum();
    s.nodeCount = graph.nodeCount();

    const std::size_t functionCount = graph.functionCount();
    std::vector<OpHistogram> directOps(functionCount);
    std::vector<std::size_t> calls(functionCount, 0);
    std::vector<bool> calledFromMain(functionCount, false);
    const FunctionId main = graph.mainFunction();
    std::unordered_set<std::string> seenConstants;
    const bool relax = graph.format() == "relax";

    // A Relax `R.match_cast` is TVM's MatchCast binding, a type refinement: a node of the graph
    // (it can be cut across) but not an operator call.
    auto isMatchCast = [relax](const Node &node) { return relax && node.op == "relax.match_cast"; };
    if (main.isValid()) {
        for (NodeId id : graph.function(main).nodes) {
            if (!graph.node(id).isOperator() || isMatchCast(graph.node(id)))
                continue;
            s.flops
                = satAdd(s.flops, nodeFlops(graph, id)); // 2^62-wide tensors overflow a plain sum
            ++s.mainOps;
            if (!hasStaticShapes(graph.node(id)))
                ++s.opsWithoutShapes;
        }
    }
    for (const Node &node : graph.nodes()) {
        switch (node.kind) {
        case NodeKind::OpCall:
            if (isMatchCast(node))
                break;
            ++s.opCalls;
            ++s.ops[node.op];
            ++directOps[node.function.index()][node.op];
            break;
        case NodeKind::FunctionCall:
            if (node.callee.isValid()) {
                // Relax counts `cls.f(...)` calls of module functions as op calls of `f`.
                const Function &callee = graph.function(node.callee);
                if (relax && callee.kind == Function::Kind::Global) {
                    ++s.opCalls;
                    ++s.ops[callee.name];
                    ++directOps[node.function.index()][callee.name];
                }
                ++calls[node.callee.index()];
                if (main.isValid() && graph.topLevelFunction(node.function) == main)
                    calledFromMain[node.callee.index()] = true;
            }
            break;
        case NodeKind::Constant:
            if (!node.value().isNull()) {
                ++s.scalarConstants;
            } else if (std::string ref = node.metaRef();
                       ref.empty() || seenConstants.insert(std::move(ref)).second) {
                ++s.constants;
                if (const auto bytes = node.outputType(0).byteSize())
                    s.constantBytes += *bytes;
                else
                    s.constantBytesKnown = false;
            }
            break;
        default:
            break;
        }
    }

    // A function's ops include those of every function nested in it.
    std::vector<OpHistogram> nestedOps(functionCount);
    for (std::size_t i = 0; i < functionCount; ++i) {
        for (FunctionId at(i); at.isValid(); at = graph.function(at).parent) {
            for (const auto &[op, count] : directOps[i])
                nestedOps[at.index()][op] += count;
        }
    }

    for (std::size_t i = 0; i < functionCount; ++i) {
        const FunctionId id(i);
        const Function &f = graph.function(id);
        if (f.kind != Function::Kind::Scope)
            s.functions.push_back(
                { id, displayName(f), f.kind, f.params.size(), f.nodes.size(), f.attrs });

        const bool fused = f.kind == Function::Kind::Literal
            && (f.isPrimitive() || !f.composite().empty() || !f.compiler().empty());
        const bool globalCalledFromMain
            = f.kind == Function::Kind::Global && id != main && calledFromMain[i];
        if (!fused && !globalCalledFromMain)
            continue;
        std::size_t blockOpCalls = 0;
        for (const auto &[op, count] : nestedOps[i])
            blockOpCalls += count;
        s.blocks.push_back(
            { id, displayName(f), blockKind(f), f.attrs, calls[i], blockOpCalls, nestedOps[i] });
    }

    if (main.isValid()) {
        for (NodeId param : graph.function(main).params) {
            const Node &node = graph.node(param);
            s.inputs.push_back({ stripSigil(node.name), graph.key(param), node.outputType(0) });
        }
        const std::vector<TensorRef> outputs = graph.outputs(main);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            // Formats that name tensors (ONNX) give outputs their own names.
            const Node &producer = graph.node(outputs[i].node);
            std::string name = outputs[i].output < producer.outputNames().size()
                ? producer.outputNames()[outputs[i].output]
                : std::string();
            if (name.empty())
                name = "output_" + std::to_string(i);
            s.outputs.push_back(
                { std::move(name), graph.key(outputs[i].node), graph.tensorType(outputs[i]) });
        }
    }
    return s;
}

nlohmann::json ModelSummary::toJson() const
{
    nlohmann::json json;
    json["format"] = format;
    json["source"] = { { "path", sourcePath }, { "sha256", checksum } };
    json["nodes"] = nodeCount;
    json["op_calls"] = opCalls;
    json["flops"] = flops;
    json["ops_without_shapes"] = opsWithoutShapes;
    json["ops"] = ops;

    json["inputs"] = nlohmann::json::array();
    for (const TensorSummary &t : inputs)
        json["inputs"].push_back(tensorToJson(t));
    json["outputs"] = nlohmann::json::array();
    for (const TensorSummary &t : outputs)
        json["outputs"].push_back(tensorToJson(t));

    json["functions"] = nlohmann::json::array();
    for (const FunctionSummary &f : functions) {
        json["functions"].push_back({ { "name", f.name },
                                      { "kind", functionKindName(f.kind) },
                                      { "params", f.params },
                                      { "nodes", f.nodes },
                                      { "attrs", attrsToJson(f.attrs) } });
    }

    // "blocks" is left to `inspect --blocks`, which lists the FuseOps-style kernels.
    json["block_functions"] = nlohmann::json::array();
    for (const BlockSummary &b : blocks) {
        json["block_functions"].push_back({ { "name", b.name },
                                            { "kind", b.kind },
                                            { "calls", b.calls },
                                            { "op_calls", b.opCalls },
                                            { "ops", b.ops },
                                            { "attrs", attrsToJson(b.attrs) } });
    }

    json["constants"] = { { "count", constants },
                          { "bytes", constantBytes },
                          { "bytes_known", constantBytesKnown },
                          { "scalars", scalarConstants } };
    return json;
}

std::string ModelSummary::toText(bool listBlocks) const
{
    std::ostringstream out;
    std::size_t globals = 0;
    for (const FunctionSummary &f : functions)
        globals += f.kind == Function::Kind::Global ? 1 : 0;
    std::string constantText = plural(constants, "tensor", "tensors");
    if (constants > 0)
        constantText += constantBytesKnown ? ", " + humanBytes(constantBytes)
                                           : ", at least " + humanBytes(constantBytes);
    constantText += " (" + plural(scalarConstants, "inline scalar", "inline scalars") + ")";

    appendTable(
        out,
        {
            { "Model", sourcePath },
            { "Format", format },
            { "SHA-256", checksum },
            { "Nodes", std::to_string(nodeCount) },
            { "Functions",
              std::to_string(functions.size()) + " (" + std::to_string(globals) + " global, "
                  + std::to_string(functions.size() - globals) + " literal)" },
            { "Op calls", std::to_string(opCalls) },
            { "Constants", constantText },
            { "FLOPs",
              flopsText(flops, opsWithoutShapes)
                  + (opsWithoutShapes ? ", " + std::to_string(opsWithoutShapes)
                             + (opsWithoutShapes == 1 ? " node" : " nodes") + " without shapes"
                                      : std::string()) },
        });

    const auto appendTensors = [&out](const char *title, const std::vector<TensorSummary> &list) {
        out << '\n' << title << " (" << list.size() << ")\n";
        std::vector<std::vector<std::string>> rows;
        rows.reserve(list.size());
        for (const TensorSummary &t : list)
            rows.push_back({ t.name, t.type.toRelay(), t.node });
        appendTable(out, rows);
    };
    appendTensors("Inputs", inputs);
    appendTensors("Outputs", outputs);

    out << "\nFunctions (" << functions.size() << ")\n";
    std::vector<std::vector<std::string>> functionRows;
    for (const FunctionSummary &f : functions) {
        functionRows.push_back({ f.name, functionKindName(f.kind),
                                 plural(f.params, "param", "params"),
                                 plural(f.nodes, "node", "nodes"), attrsToText(f.attrs) });
    }
    appendTable(out, functionRows);

    out << "\nOps (" << plural(opCalls, "call", "calls") << ", "
        << plural(ops.size(), "kind", "kinds") << ")\n";
    std::vector<std::vector<std::string>> opRows;
    for (const auto &[op, count] : byCount(ops))
        opRows.push_back({ op, std::to_string(count) });
    appendTable(out, opRows);

    std::map<std::string, std::size_t> blockKinds;
    for (const BlockSummary &b : blocks)
        ++blockKinds[b.kind];
    out << "\nBlocks (" << blocks.size();
    const char *separator = ": ";
    for (const auto &[kind, count] : blockKinds) {
        out << separator << count << ' ' << kind;
        separator = ", ";
    }
    out << ")\n";
    if (listBlocks) {
        std::vector<std::vector<std::string>> blockRows;
        for (const BlockSummary &b : blocks) {
            blockRows.push_back({ b.name, b.kind, plural(b.calls, "call", "calls"),
                                  plural(b.opCalls, "op", "ops"), histogramToText(b.ops) });
        }
        appendTable(out, blockRows);
    }
    return out.str();
}

} // namespace cleave
