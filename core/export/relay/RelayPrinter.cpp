// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relay/RelayPrinter.h"

#include <algorithm>
#include <utility>

namespace cleave {

namespace {

std::string pad(int indent)
{
    // NOLINTNEXTLINE(modernize-return-braced-init-list): braces would pick the char list ctor
    return std::string(static_cast<std::size_t>(indent) * 2, ' ');
}

/// `[A, B]` after `def @f` or `fn` of a function with type parameters.
void printTypeParams(const Function &fn, std::string &out)
{
    if (fn.typeParams.empty())
        return;
    out += "[";
    for (std::size_t i = 0; i < fn.typeParams.size(); ++i)
        out += (i ? ", " : "") + fn.typeParams[i];
    out += "]";
}

} // namespace

RelayPrinter::RelayPrinter(const Graph &graph, RelayPrintOptions options)
    : m_graph(graph)
    , m_options(options)
{
    for (const Node &n : graph.nodes()) {
        if (n.kind == NodeKind::Input)
            m_reserved.insert(n.name);
    }
}

std::string RelayPrinter::freshName()
{
    std::string name;
    do {
        name = "%" + std::to_string(m_counter++);
    } while (m_reserved.contains(name));
    return name;
}

std::string RelayPrinter::typeComment(const Type &t) const
{
    if (!m_options.typeComments || t.isUnknown() || t.kind == Type::Kind::Incomplete)
        return {};
    return " /* ty=" + t.toRelay() + " */";
}

bool RelayPrinter::isAtomic(const Node &n) const
{
    if (n.kind == NodeKind::Input || n.kind == NodeKind::Constant)
        return true;
    if (n.kind == NodeKind::FunctionValue) // globals, ops and constructors print inline
        return !n.callee.isValid() || m_graph.function(n.callee).kind == Function::Kind::Global;
    return false;
}

std::string RelayPrinter::printModule()
{
    std::string out;
    if (m_options.versionHeader)
        out += "#[version = \"0.0.5\"]\n";
    for (const TypeDefinition &def : m_graph.typeDefinitions()) {
        out += def.isExtern ? "extern type " : "type ";
        out += def.name;
        if (!def.typeParams.empty()) {
            out += "[";
            for (std::size_t i = 0; i < def.typeParams.size(); ++i)
                out += (i ? ", " : "") + def.typeParams[i];
            out += "]";
        }
        if (def.isExtern) {
            out += "\n\n";
            continue;
        }
        out += " {\n";
        for (const auto &c : def.constructors) {
            out += "  " + c.name;
            if (!c.fields.empty()) {
                out += "(";
                for (std::size_t i = 0; i < c.fields.size(); ++i)
                    out += (i ? ", " : "") + c.fields[i].toRelay();
                out += ")";
            }
            out += ",\n";
        }
        out += "}\n\n";
    }
    std::vector<FunctionId> globals;
    for (std::size_t i = 0; i < m_graph.functionCount(); ++i) {
        if (m_graph.function(FunctionId(i)).kind == Function::Kind::Global)
            globals.emplace_back(i);
    }
    std::stable_sort(globals.begin(), globals.end(), [&](FunctionId a, FunctionId b) {
        const SourceLocation &la = m_graph.function(a).where;
        const SourceLocation &lb = m_graph.function(b).where;
        return std::pair(la.line, la.column) < std::pair(lb.line, lb.column);
    });
    for (std::size_t i = 0; i < globals.size(); ++i) {
        if (i)
            out += "\n";
        out += printDefinition(globals[i]);
    }
    if (m_options.metadata && !m_graph.metadata().empty())
        out += "\n#[metadata]\n" + m_graph.metadata()
            + (m_graph.metadata().back() == '\n' ? "" : "\n");
    return out;
}

std::string RelayPrinter::printDefinition(FunctionId f, bool asMain)
{
    const Function &fn = m_graph.function(f);
    std::string out = "def @" + (asMain ? std::string("main") : fn.name);
    printTypeParams(fn, out);
    printSignature(f, out);
    out += " {\n";
    printFunctionBody(f, 1, out);
    out += "}\n";
    return out;
}

void RelayPrinter::printSignature(FunctionId f, std::string &out)
{
    const Function &fn = m_graph.function(f);
    out += "(";
    bool first = true;
    for (NodeId p : fn.params) {
        const Node &param = m_graph.node(p);
        out += first ? "" : ", ";
        first = false;
        out += param.name;
        if (!param.outputType().isUnknown())
            out += ": " + param.outputType().toRelay();
        m_printed[p.value] = param.name;
    }
    for (const auto &[key, value] : fn.attrs.items()) {
        out += first ? "" : ", ";
        first = false;
        out += key + "=" + value.toRelay();
    }
    out += ")";
    if (fn.hasReturnType)
        out += " -> " + fn.returnType.toRelay();
}

void RelayPrinter::printLiteral(FunctionId f, int indent, std::string &out)
{
    const Function &fn = m_graph.function(f);
    out += "fn ";
    printTypeParams(fn, out);
    printSignature(f, out);
    out += " {\n";
    printFunctionBody(f, indent + 1, out);
    out += pad(indent) + "}";
}

std::string RelayPrinter::literalName(FunctionId f, int indent, std::string &out)
{
    auto lit = m_literals.find(f.value);
    if (lit == m_literals.end()) {
        // Bound right before its first use, as TVM prints `%3 = fn (...) {...}; %4 = %3(...)`.
        std::string body;
        printLiteral(f, indent, body);
        const std::string name = freshName();
        out += pad(indent) + name + " = " + body + ";\n";
        lit = m_literals.emplace(f.value, name).first;
    }
    return lit->second;
}

void RelayPrinter::printFunctionBody(FunctionId f, int indent, std::string &out)
{
    const Function &fn = m_graph.function(f);
    const NodeId result = fn.result;
    for (NodeId id : m_graph.topologicalOrder(f)) {
        const Node &n = m_graph.node(id);
        if (id == result || m_printed.contains(id.value))
            continue;
        if (isAtomic(n)) {
            atom(id, indent, out);
            continue;
        }
        const std::string expr = expression(id, indent, out);
        const std::string name = freshName();
        out.append(pad(indent)).append(name).append(" = ").append(expr).append(";\n");
        m_printed[id.value] = name;
    }
    if (!result.isValid())
        return;
    const Node &r = m_graph.node(result);
    if (m_printed.contains(result.value) || isAtomic(r)) {
        out += pad(indent) + atom(result, indent, out) + "\n";
        return;
    }
    if (!m_graph.uses(result).empty()) {
        // The result is also used inside the body: bind it, then return the name.
        const std::string expr = expression(result, indent, out);
        const std::string name = freshName();
        out += pad(indent) + name + " = " + expr + ";\n";
        m_printed[result.value] = name;
        out += pad(indent) + name + "\n";
        return;
    }
    out += pad(indent) + expression(result, indent, out) + "\n";
}

std::string RelayPrinter::atom(NodeId id, int indent, std::string &out)
{
    auto it = m_printed.find(id.value);
    if (it != m_printed.end())
        return it->second;
    const Node &n = m_graph.node(id);
    std::string text;
    switch (n.kind) {
    case NodeKind::Input:
        text = n.name;
        break;
    case NodeKind::Constant:
        if (std::string ref = n.metaRef(); !ref.empty())
            text = std::move(ref) + typeComment(n.outputType());
        else if (!n.value().isNull())
            text = n.value().toRelay() + typeComment(n.outputType());
        else
            text = "meta[relay.Constant][" + std::to_string(id.value) + "]"
                + typeComment(n.outputType());
        break;
    case NodeKind::FunctionValue:
        if (n.callee.isValid()) {
            const Function &f = m_graph.function(n.callee);
            if (f.kind == Function::Kind::Global) {
                text = "@" + f.name;
            } else {
                text = literalName(n.callee, indent, out);
            }
        } else {
            text = n.op;
        }
        break;
    default:
        // Non-atomic nodes are always bound before use; reaching here means a cross-scope use
        // of a node that was not printed yet, so print it in place.
        text = expression(id, indent, out);
        break;
    }
    m_printed[id.value] = text;
    return text;
}

std::string RelayPrinter::pattern(const Pattern &p)
{
    switch (p.kind) {
    case Pattern::Kind::Wildcard:
        return "_";
    case Pattern::Kind::Variable: {
        if (p.variable.isValid())
            m_printed[p.variable.value] = p.name;
        std::string s = p.name;
        if (!p.type.isUnknown())
            s += ": " + p.type.toRelay();
        return s;
    }
    case Pattern::Kind::Constructor:
    case Pattern::Kind::Tuple: {
        std::string s = p.kind == Pattern::Kind::Constructor ? p.name : std::string();
        if (p.kind == Pattern::Kind::Tuple || !p.children.empty()) {
            s += "(";
            for (std::size_t i = 0; i < p.children.size(); ++i)
                s += (i ? ", " : "") + pattern(p.children[i]);
            s += ")";
        }
        return s;
    }
    }
    return "_";
}

std::string RelayPrinter::expression(NodeId id, int indent, std::string &out)
{
    const Node &n = m_graph.node(id);
    auto args = [&](std::size_t first) {
        std::string s;
        for (std::size_t k = first; k < n.inputs.size(); ++k) {
            s += (k > first ? ", " : "") + atom(n.inputs[k].node, indent, out);
        }
        return s;
    };
    std::string e;
    switch (n.kind) {
    case NodeKind::OpCall: {
        e = n.op.str() + "(" + args(0);
        bool any = !n.inputs.empty();
        if (!n.attrsRef().empty()) {
            e += (any ? ", " : "") + n.attrsRef();
        } else {
            for (const auto &[key, value] : n.attrs.items()) {
                e += (any ? ", " : "") + key + "=" + value.toRelay();
                any = true;
            }
        }
        e += ")";
        break;
    }
    case NodeKind::FunctionCall: {
        const Function &f = m_graph.function(n.callee);
        std::string callee;
        if (f.kind == Function::Kind::Global) {
            callee = "@" + f.name;
        } else {
            callee = literalName(n.callee, indent, out);
        }
        e = callee + "(" + args(0) + ")";
        break;
    }
    case NodeKind::ClosureCall:
        e = atom(n.inputs[0].node, indent, out) + "(" + args(1) + ")";
        break;
    case NodeKind::ConstructorCall:
        e = n.inputs.empty() ? n.op.str() : n.op.str() + "(" + args(0) + ")";
        break;
    case NodeKind::Tuple:
        e = "(" + args(0) + (n.inputs.size() == 1 ? ",)" : ")");
        break;
    case NodeKind::TupleGetItem:
        e = atom(n.inputs[0].node, indent, out) + "." + std::to_string(n.index);
        break;
    case NodeKind::If: {
        e = "if (" + atom(n.inputs[0].node, indent, out) + ") {\n";
        printFunctionBody(n.scopes()[0], indent + 1, e);
        e += pad(indent) + "} else {\n";
        printFunctionBody(n.scopes()[1], indent + 1, e);
        e += pad(indent) + "}";
        return e;
    }
    case NodeKind::Match: {
        e = std::string(n.partialMatch() ? "match? (" : "match (")
            + atom(n.inputs[0].node, indent, out) + ") {\n";
        for (std::size_t k = 0; k < n.scopes().size(); ++k) {
            e += pad(indent + 1) + (k < n.patterns().size() ? pattern(n.patterns()[k]) : "_")
                + " => {\n";
            printFunctionBody(n.scopes()[k], indent + 2, e);
            e += pad(indent + 1) + "},\n";
        }
        e += pad(indent) + "}";
        return e;
    }
    case NodeKind::Input:
    case NodeKind::Constant:
    case NodeKind::FunctionValue:
        return atom(id, indent, out);
    }
    return e + typeComment(n.outputType());
}

std::string printRelay(const Graph &graph, RelayPrintOptions options)
{
    return RelayPrinter(graph, options).printModule();
}

} // namespace cleave
