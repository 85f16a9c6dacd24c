// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/RelaxPrinter.h"

#include "core/io/relax/RelaxValues.h"

#include <algorithm>

namespace cleave {

using relax::attrText;
using relax::quoted;
using relax::typeText;

namespace {

std::string pad(int indent)
{
    std::string spaces;
    spaces.append(static_cast<std::size_t>(indent), ' '); // not {n, ' '}: that is two chars
    return spaces;
}

bool isInlineName(const std::string &name)
{
    return name.empty() || name == "return" || name.find('/') != std::string::npos
        || name.front() == '$' || name.front() == '%';
}

bool isDecoratorKey(const std::string &key)
{
    return !key.empty() && key.front() == '@';
}

void symbolsOf(const Type &t, std::vector<std::string> &out)
{
    for (const Dim &d : t.shape) {
        if (!d.symbol.empty() && relax::isPlainIdentifier(d.symbol.str())
            && std::find(out.begin(), out.end(), d.symbol.str()) == out.end())
            out.push_back(d.symbol.str());
    }
    for (const Type &f : t.fields)
        symbolsOf(f, out);
}

/// True when the dim is known or every identifier of its symbolic text (`n`, `H * 16`) is in
/// `defined`.
bool dimDefined(const Dim &d, const std::vector<std::string> &defined)
{
    const std::string &text = d.symbol.str();
    if (text.empty())
        return d.isKnown();
    for (std::size_t i = 0; i < text.size();) {
        const auto isWord = [&](std::size_t k) {
            const char c = text[k];
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '_';
        };
        if (!isWord(i)) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && isWord(end))
            ++end;
        const std::string word = text.substr(i, end - i);
        if (!(word[0] >= '0' && word[0] <= '9')
            && std::find(defined.begin(), defined.end(), word) == defined.end())
            return false;
        i = end;
    }
    return true;
}

/// `t` as a function's return type may carry it: TVM lets a return type use only the symbolic
/// dims the parameters define, so a tensor or shape with another (one an R.match_cast defines
/// in the body) keeps only its rank, as TVM itself prints it (`R.Tensor(dtype=.., ndim=2)`).
Type returnTypeOver(Type t, const std::vector<std::string> &defined)
{
    const bool shaped = t.isTensor() || (t.kind == Type::Kind::Named && t.name == "R.Shape");
    if (shaped
        && !std::ranges::all_of(t.shape, [&](const Dim &d) { return dimDefined(d, defined); })) {
        for (Dim &d : t.shape)
            d = Dim::unknown();
    }
    for (Type &field : t.fields)
        field = returnTypeOver(field, defined);
    return t;
}

/// Puts every tensor of `t` (a tensor, or a tuple's tensors at any depth) on `device`.
void placeOn(Type &t, const std::string &device)
{
    if (t.isTensor())
        t.name = device;
    for (Type &field : t.fields)
        placeOn(field, device);
}

} // namespace

std::string relaxMetadataHeader(const std::string &json)
{
    std::string s = R"(metadata = tvm.ir.load_json(""")";
    for (const char c : json) {
        if (c == '\\' || c == '"')
            s += '\\';
        s += c;
    }
    return s + "\"\"\")\n";
}

RelaxPrinter::RelaxPrinter(const Graph &graph)
    : m_graph(graph)
{
    m_className = graph.moduleAttrs().stringOr("name", "Module");
    m_newSinfo = graph.moduleAttrs().stringOr("sinfo_keyword", "") == "ty";
}

std::string RelaxPrinter::printModule()
{
    const Attributes &mod = m_graph.moduleAttrs();
    std::string out = "# from tvm.script import ir as I\n# from tvm.script import "
        + mod.stringOr("tir", "tir") + " as T\n# from tvm.script import relax as R\n";
    if (!m_graph.metadata().empty())
        out += relaxMetadataHeader(m_graph.metadata());
    out += "\n@" + mod.stringOr("decorator", "I.ir_module") + "\nclass " + m_className + ":\n";
    bool first = true;
    if (const AttrValue *infos = mod.find("global_infos")) {
        out += "    I.module_global_infos(" + attrText(*infos) + ")\n";
        first = false;
    }
    for (std::size_t i = 0; i < m_graph.functionCount(); ++i) {
        const Function &f = m_graph.function(FunctionId(i));
        if (f.kind != Function::Kind::Global)
            continue;
        if (!first)
            out += "\n";
        first = false;
        out += printFunction(FunctionId(i), 4);
    }
    if (first)
        out += "    pass\n";
    return out;
}

std::string RelaxPrinter::printFunction(FunctionId f, int indent)
{
    std::string out;
    const Function &fn = m_graph.function(f);
    if (!fn.sourceText.empty()) {
        std::size_t pos = 0;
        while (pos < fn.sourceText.size()) {
            std::size_t eol = fn.sourceText.find('\n', pos);
            if (eol == std::string::npos)
                eol = fn.sourceText.size();
            const std::string line = fn.sourceText.substr(pos, eol - pos);
            out += line.empty() ? "\n" : pad(indent) + line + "\n";
            pos = eol + 1;
        }
        return out;
    }
    printRelaxFunction(f, indent, out);
    return out;
}

void RelaxPrinter::printRelaxFunction(FunctionId f, int indent, std::string &out)
{
    const Function &fn = m_graph.function(f);
    std::string options;
    for (const auto &[key, value] : fn.attrs.items()) {
        if (isDecoratorKey(key) && key != "@dataflow")
            options += (options.empty() ? "" : ", ") + key.substr(1) + "=" + attrText(value);
    }
    out += pad(indent) + "@R.function" + (options.empty() ? "" : "(" + options + ")") + "\n";
    out += pad(indent) + "def " + fn.name + "(";
    for (std::size_t i = 0; i < fn.params.size(); ++i) {
        const Node &p = m_graph.node(fn.params[i]);
        out += (i ? ", " : "") + bindingName(fn.params[i]);
        if (!p.outputType().isUnknown()) {
            Type t = p.outputType();
            if (auto device = m_devices.find(fn.params[i].value); device != m_devices.end())
                placeOn(t, device->second);
            out += ": " + typeText(t, true);
        }
    }
    out += ")";
    if (fn.hasReturnType) {
        std::vector<std::string> defined;
        for (NodeId p : fn.params)
            symbolsOf(m_graph.node(p).outputType(), defined);
        out += " -> " + typeText(returnTypeOver(fn.returnType, defined), true);
    }
    out += ":\n";
    const int body = indent + 4;
    std::string attrs;
    for (const auto &[key, value] : fn.attrs.items()) {
        if (!isDecoratorKey(key))
            attrs += (attrs.empty() ? "" : ", ") + quoted(key) + ": " + attrText(value);
    }
    std::vector<std::string> symbols;
    collectSymbols(f, symbols);
    for (const std::string &s : symbols)
        out += pad(body) + s + " = T.int64()\n";
    if (!attrs.empty())
        out += pad(body) + "R.func_attr({" + attrs + "})\n";
    if (fn.kind == Function::Kind::Global && referencesModule(f))
        out += pad(body) + "cls = " + m_className + "\n";
    printBody(f, body, out);
}

void RelaxPrinter::collectSymbols(FunctionId f, std::vector<std::string> &out) const
{
    const Function &fn = m_graph.function(f);
    for (NodeId p : fn.params)
        symbolsOf(m_graph.node(p).outputType(), out);
    if (fn.hasReturnType)
        symbolsOf(fn.returnType, out);
    for (NodeId n : fn.nodes)
        symbolsOf(m_graph.node(n).outputType(), out);
}

bool RelaxPrinter::referencesModule(FunctionId f) const
{
    for (std::size_t i = 0; i < m_graph.nodeCount(); ++i) {
        const Node &n = m_graph.node(NodeId(i));
        if (m_graph.topLevelFunction(n.function) != f)
            continue;
        if (n.callee.isValid() && m_graph.function(n.callee).kind == Function::Kind::Global)
            return true;
        if (n.kind == NodeKind::OpCall && n.attrs.find("call"))
            return true;
    }
    return false;
}

bool RelaxPrinter::isBound(NodeId id) const
{
    const Node &n = m_graph.node(id);
    switch (n.kind) {
    case NodeKind::Input:
    case NodeKind::If:
        return false;
    case NodeKind::Constant:
    case NodeKind::FunctionValue:
    case NodeKind::Tuple:
    case NodeKind::TupleGetItem:
        return !isInlineName(n.name);
    default:
        return true;
    }
}

std::string RelaxPrinter::bindingName(NodeId id) const
{
    std::string name = m_graph.node(id).name;
    if (!name.empty() && name.front() == '%')
        name.erase(0, 1);
    for (char &c : name) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
              || c == '_'))
            c = '_';
    }
    if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
        name = "v" + name;
    if (name == "return" || name == "cls" || name == "if" || name == "else")
        name = "v_" + name;
    return name;
}

void RelaxPrinter::printBody(FunctionId f, int indent, std::string &out)
{
    const Function &fn = m_graph.function(f);
    const AttrValue *df = fn.attrs.find("@dataflow");
    bool dataflow = df && df->toInt().value_or(0) != 0;
    for (NodeId n : fn.nodes)
        dataflow = dataflow && m_graph.node(n).kind != NodeKind::If;
    // In a dataflow block the returned variables leave it through R.output.
    std::vector<std::string> outputs;
    if (dataflow) {
        collectOutputs(fn.result, outputs);
        dataflow = !outputs.empty();
    }
    // Closures are defined outside the dataflow block, before it.
    int bodyIndent = indent;
    if (dataflow) {
        for (NodeId n : fn.nodes)
            printClosuresUsedBy(n, indent, out);
        out += pad(indent) + "with R.dataflow():\n";
        bodyIndent = indent + 4;
    }
    for (NodeId n : fn.nodes) {
        if (!dataflow)
            printClosuresUsedBy(n, indent, out);
        if (m_graph.node(n).kind == NodeKind::If)
            printIf(n, bodyIndent, out);
        else if (isBound(n))
            printBinding(n, bodyIndent, out);
    }
    if (dataflow) {
        std::string list;
        for (const std::string &o : outputs)
            list += (list.empty() ? "" : ", ") + o;
        out += pad(bodyIndent) + "R.output(" + list + ")\n";
    }
    if (fn.kind != Function::Kind::Scope && fn.result.isValid())
        out += pad(indent) + "return " + ref(TensorRef { fn.result, 0 }) + "\n";
    else if (fn.kind != Function::Kind::Scope) // a Relax function returns a value: none here
        out += pad(indent) + "return R.tuple()\n";
}

void RelaxPrinter::collectOutputs(NodeId id, std::vector<std::string> &out) const
{
    if (!id.isValid())
        return;
    const Node &n = m_graph.node(id);
    if (isBound(id)) {
        const std::string name = bindingName(id);
        if (std::find(out.begin(), out.end(), name) == out.end())
            out.push_back(name);
        return;
    }
    // A tuple or projection written in the return itself: what it reads leaves the block.
    if (n.kind == NodeKind::Tuple || n.kind == NodeKind::TupleGetItem) {
        for (const TensorRef &in : n.inputs)
            collectOutputs(in.node, out);
    }
}

void RelaxPrinter::printClosuresUsedBy(NodeId id, int indent, std::string &out)
{
    const Node &n = m_graph.node(id);
    if (!n.callee.isValid() || m_graph.function(n.callee).kind != Function::Kind::Literal)
        return;
    if (!m_printedClosures.insert(n.callee.value).second)
        return;
    printRelaxFunction(n.callee, indent, out);
    out += "\n";
}

void RelaxPrinter::printIf(NodeId id, int indent, std::string &out)
{
    const Node &n = m_graph.node(id);
    const std::string name = bindingName(id);
    for (std::size_t b = 0; b < n.scopes().size() && b < 2; ++b) {
        out += pad(indent)
            + (b == 0 ? "if " + ref(n.inputs.at(0)) + ":\n" : std::string("else:\n"));
        const FunctionId scope = n.scopes()[b];
        printBody(scope, indent + 4, out);
        const NodeId result = m_graph.function(scope).result;
        if (result.isValid() && (!isBound(result) || bindingName(result) != name))
            out += pad(indent + 4) + name + " = " + ref(TensorRef { result, 0 }) + "\n";
    }
}

std::string RelaxPrinter::annotation(NodeId id)
{
    const Node &n = m_graph.node(id);
    auto device = m_devices.find(id.value);
    if (device != m_devices.end() && (n.outputType().isTensor() || n.outputType().isTuple())) {
        Type t = n.outputType();
        placeOn(t, device->second);
        return ": " + typeText(t, false);
    }
    if (!n.typeAnnotated || n.outputType().isUnknown())
        return {};
    return ": " + typeText(n.outputType(), false);
}

void RelaxPrinter::printBinding(NodeId id, int indent, std::string &out)
{
    out += pad(indent) + bindingName(id) + annotation(id) + " = " + value(id) + "\n";
    if (auto it = m_after.find(id.value); it != m_after.end()) {
        for (const std::string &line : it->second)
            out += pad(indent) + line + "\n";
    }
}

std::string RelaxPrinter::ref(TensorRef t)
{
    if (!t.node.isValid())
        return "None";
    const Node &n = m_graph.node(t.node);
    if (n.kind == NodeKind::Input || n.kind == NodeKind::If || isBound(t.node))
        return bindingName(t.node);
    return value(t.node);
}

std::string RelaxPrinter::arguments(const Node &n, std::size_t first)
{
    std::string s;
    for (std::size_t i = first; i < n.inputs.size(); ++i)
        s += (s.empty() ? "" : ", ") + ref(n.inputs[i]);
    for (const auto &[key, v] : n.attrs.items())
        s += (s.empty() ? "" : ", ") + key + "=" + attrText(v);
    return s;
}

std::string RelaxPrinter::kernelCall(const Node &n)
{
    const std::string form = n.attrs.stringOr("call", "call_tir");
    const bool packed = form == "call_packed" || form == "call_pure_packed";
    const FunctionId callee = m_graph.findFunction(n.op);
    const bool prim = callee.isValid() && !m_graph.function(callee).sourceText.empty();
    std::string s = "R." + form + "(" + (prim && !packed ? "cls." + n.op.str() : quoted(n.op));
    if (packed) {
        for (const TensorRef &in : n.inputs)
            s += ", " + ref(in);
    } else {
        std::string args;
        for (const TensorRef &in : n.inputs)
            args += (args.empty() ? "" : ", ") + ref(in);
        s += n.inputs.empty() ? ", R.tuple()" : ", (" + args + (n.inputs.size() == 1 ? ",)" : ")");
    }
    const Type &t = n.outputType();
    if (!t.isUnknown()) {
        if (packed) {
            s += std::string(m_newSinfo ? ", ty_args=(" : ", sinfo_args=(") + typeText(t, false)
                + ",)";
        } else {
            std::string sinfo;
            if (t.isTuple()) {
                for (const Type &f : t.fields)
                    sinfo += (sinfo.empty() ? "" : ", ") + typeText(f, false);
                sinfo = "[" + sinfo + "]";
            } else {
                sinfo = typeText(t, false);
            }
            s += std::string(m_newSinfo ? ", out_ty=" : ", out_sinfo=") + sinfo;
        }
    }
    for (const auto &[key, v] : n.attrs.items()) {
        if (key != "call" && key != "op_pattern")
            s += ", " + key + "=" + attrText(v);
    }
    return s + ")";
}

std::string RelaxPrinter::value(NodeId id)
{
    const Node &n = m_graph.node(id);
    switch (n.kind) {
    case NodeKind::OpCall:
        if (n.attrs.find("call"))
            return kernelCall(n);
        if (n.op == "relax.match_cast" && n.inputs.size() == 1)
            return "R.match_cast(" + ref(n.inputs[0]) + ", " + typeText(n.outputType(), false)
                + ")";
        return "R." + (n.op.str().starts_with("relax.") ? n.op.str().substr(6) : n.op.str()) + "("
            + arguments(n, 0) + ")";
    case NodeKind::FunctionCall: {
        const Function &f = m_graph.function(n.callee);
        return (f.kind == Function::Kind::Global ? "cls." : "") + f.name + "(" + arguments(n, 0)
            + ")";
    }
    case NodeKind::ClosureCall:
        return ref(n.inputs.at(0)) + "(" + arguments(n, 1) + ")";
    case NodeKind::Tuple: {
        std::string s;
        for (const TensorRef &in : n.inputs)
            s += (s.empty() ? "" : ", ") + ref(in);
        return "(" + s + (n.inputs.size() == 1 ? ",)" : ")");
    }
    case NodeKind::TupleGetItem:
        return ref(n.inputs.at(0)) + "[" + std::to_string(n.index) + "]";
    case NodeKind::FunctionValue: {
        const Function &f = m_graph.function(n.callee);
        return (f.kind == Function::Kind::Global ? "cls." : "") + f.name;
    }
    case NodeKind::Constant: {
        if (std::string ref = n.metaRef(); !ref.empty())
            return ref;
        if (n.op == "R.const") {
            const std::string dtype = n.attrs.stringOr("dtype", "");
            return "R.const(" + attrText(n.value()) + (dtype.empty() ? "" : ", " + quoted(dtype))
                + ")";
        }
        if (n.op == "R.shape" || n.op == "R.prim_value" || n.op == "R.str" || n.op == "R.dtype")
            return n.op.str() + "(" + attrText(n.value()) + ")";
        return attrText(n.value());
    }
    case NodeKind::Input:
    case NodeKind::If:
        return bindingName(id);
    default:
        return "None";
    }
}

std::string printRelax(const Graph &graph)
{
    return RelaxPrinter(graph).printModule();
}

} // namespace cleave
