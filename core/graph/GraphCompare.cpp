// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/GraphCompare.h"

#include <unordered_map>
#include <utility>
#include <vector>

namespace cleave {

namespace {

class Comparer
{
public:
    Comparer(const Graph &a, const Graph &b)
        : m_a(a)
        , m_b(b)
    {
    }

    std::optional<std::string> run()
    {
        std::size_t globalsA = 0;
        std::size_t globalsB = 0;
        for (std::size_t i = 0; i < m_b.functionCount(); ++i)
            globalsB += m_b.function(FunctionId(i)).kind == Function::Kind::Global ? 1 : 0;
        for (std::size_t i = 0; i < m_a.functionCount(); ++i) {
            const Function &fa = m_a.function(FunctionId(i));
            if (fa.kind != Function::Kind::Global)
                continue;
            ++globalsA;
            const FunctionId fb = m_b.findFunction(fa.name);
            if (!fb.isValid())
                return "function @" + fa.name + " is missing in the second graph";
            pairFunctions(FunctionId(i), fb);
        }
        if (globalsA != globalsB)
            return "the graphs have " + std::to_string(globalsA) + " and "
                + std::to_string(globalsB) + " global functions";
        while (!m_functionQueue.empty() && !m_difference) {
            const auto [fa, fb] = m_functionQueue.back();
            m_functionQueue.pop_back();
            compareFunction(fa, fb);
        }
        return m_difference;
    }

private:
    void differ(std::string message)
    {
        if (!m_difference)
            m_difference = std::move(message);
    }

    void pairFunctions(FunctionId fa, FunctionId fb)
    {
        auto it = m_functionPairs.find(fa.value);
        if (it != m_functionPairs.end()) {
            if (it->second != fb.value)
                differ("function " + m_a.function(fa).name + " is used in two different places");
            return;
        }
        m_functionPairs.emplace(fa.value, fb.value);
        m_functionQueue.emplace_back(fa, fb);
    }

    std::string where(NodeId n) const
    {
        const Node &node = m_a.node(n);
        std::string s = node.name;
        if (node.kind == NodeKind::OpCall)
            s += " (" + node.op.str() + ")";
        const Function &f = m_a.function(node.function);
        return s + " in " + (f.kind == Function::Kind::Global ? "@" : "") + f.name;
    }

    void pairNodes(NodeId na, NodeId nb)
    {
        auto it = m_nodePairs.find(na.value);
        if (it != m_nodePairs.end()) {
            if (it->second != nb.value)
                differ(where(na) + " is wired differently (its consumers differ)");
            return;
        }
        m_nodePairs.emplace(na.value, nb.value);
        m_nodeQueue.emplace_back(na, nb);
    }

    void compareFunction(FunctionId ia, FunctionId ib)
    {
        const Function &fa = m_a.function(ia);
        const Function &fb = m_b.function(ib);
        const std::string name = (fa.kind == Function::Kind::Global ? "@" : "") + fa.name;
        if (fa.attrs != fb.attrs)
            return differ("function " + name + ": attributes differ");
        if (fa.sourceText != fb.sourceText)
            return differ("function " + name + ": source text differs");
        if (fa.params.size() != fb.params.size())
            return differ("function " + name + ": " + std::to_string(fa.params.size()) + " vs "
                          + std::to_string(fb.params.size()) + " parameters");
        if (fa.hasReturnType != fb.hasReturnType
            || (fa.hasReturnType && fa.returnType != fb.returnType))
            return differ("function " + name + ": return types differ");
        if (fa.typeParams != fb.typeParams)
            return differ("function " + name + ": type parameters differ");
        for (std::size_t k = 0; k < fa.params.size(); ++k) {
            const Node &pa = m_a.node(fa.params[k]);
            const Node &pb = m_b.node(fb.params[k]);
            if (pa.name != pb.name)
                return differ("function " + name + ": parameter " + std::to_string(k) + " is "
                              + pa.name + " vs " + pb.name);
            pairNodes(fa.params[k], fb.params[k]);
        }
        if (fa.result.isValid() != fb.result.isValid())
            return differ("function " + name + ": one has no result");
        if (fa.result.isValid())
            pairNodes(fa.result, fb.result);
        while (!m_nodeQueue.empty() && !m_difference) {
            const auto [na, nb] = m_nodeQueue.back();
            m_nodeQueue.pop_back();
            compareNode(na, nb);
        }
        if (m_difference)
            return;
        std::size_t opsA = 0;
        std::size_t opsB = 0;
        for (NodeId n : fa.nodes)
            opsA += m_a.node(n).isOperator() ? 1 : 0;
        for (NodeId n : fb.nodes)
            opsB += m_b.node(n).isOperator() ? 1 : 0;
        if (opsA != opsB)
            differ("function " + name + ": " + std::to_string(opsA) + " vs " + std::to_string(opsB)
                   + " operator calls");
    }

    bool samePattern(const Pattern &pa, const Pattern &pb)
    {
        if (pa.kind != pb.kind || pa.children.size() != pb.children.size() || pa.type != pb.type)
            return false;
        if (pa.kind == Pattern::Kind::Constructor && pa.name != pb.name)
            return false;
        if (pa.kind == Pattern::Kind::Variable) {
            if (pa.name != pb.name)
                return false;
            pairNodes(pa.variable, pb.variable);
        }
        for (std::size_t i = 0; i < pa.children.size(); ++i) {
            if (!samePattern(pa.children[i], pb.children[i]))
                return false;
        }
        return true;
    }

    void compareNode(NodeId ia, NodeId ib)
    {
        const Node &a = m_a.node(ia);
        const Node &b = m_b.node(ib);
        if (a.kind != b.kind)
            return differ(where(ia) + ": a " + nodeKindName(a.kind) + " vs a "
                          + nodeKindName(b.kind));
        if (a.op != b.op)
            return differ(where(ia) + ": op " + a.op.str() + " vs " + b.op.str());
        if (a.kind == NodeKind::Input && a.name != b.name)
            return differ(where(ia) + ": input " + a.name + " vs " + b.name);
        if (a.attrs != b.attrs) {
            for (const auto &[key, value] : a.attrs.items()) {
                const AttrValue *other = b.attrs.find(key);
                if (!other)
                    return differ(where(ia) + ": attribute " + key
                                  + " is missing in the second graph");
                if (!(*other == value))
                    return differ(where(ia) + ": attribute " + key + " is " + value.toRelay()
                                  + " vs " + other->toRelay());
            }
            return differ(where(ia) + ": attributes differ (" + std::to_string(a.attrs.size())
                          + " vs " + std::to_string(b.attrs.size()) + ")");
        }
        if (a.attrsRef() != b.attrsRef() || a.metaRef() != b.metaRef() || !(a.value() == b.value())
            || a.index != b.index)
            return differ(where(ia) + ": value differs");
        // A tensor constant known only by its name (a graph.json param, `p3`): the name is the
        // key of its value in the params file, so it must match.
        if (a.kind == NodeKind::Constant && a.metaRef().empty() && a.value().isNull()
            && a.name != b.name)
            return differ(where(ia) + ": constant " + a.name + " vs " + b.name);
        if (a.outputTypes() != b.outputTypes())
            return differ(where(ia) + ": type " + a.outputType().toRelay() + " vs "
                          + b.outputType().toRelay());
        if (a.inputs.size() != b.inputs.size())
            return differ(where(ia) + ": " + std::to_string(a.inputs.size()) + " vs "
                          + std::to_string(b.inputs.size()) + " inputs");
        if (a.callee.isValid() != b.callee.isValid())
            return differ(where(ia) + ": callee differs");
        if (a.callee.isValid()) {
            const Function &ca = m_a.function(a.callee);
            const Function &cb = m_b.function(b.callee);
            if (ca.kind != cb.kind || (ca.kind == Function::Kind::Global && ca.name != cb.name))
                return differ(where(ia) + ": calls " + ca.name + " vs " + cb.name);
            pairFunctions(a.callee, b.callee);
        }
        if (a.scopes().size() != b.scopes().size() || a.patterns().size() != b.patterns().size()
            || a.partialMatch() != b.partialMatch())
            return differ(where(ia) + ": branches differ");
        for (std::size_t k = 0; k < a.patterns().size(); ++k) {
            if (!samePattern(a.patterns()[k], b.patterns()[k]))
                return differ(where(ia) + ": pattern " + std::to_string(k) + " differs");
        }
        for (std::size_t k = 0; k < a.scopes().size(); ++k)
            pairFunctions(a.scopes()[k], b.scopes()[k]);
        for (std::size_t k = 0; k < a.inputs.size(); ++k) {
            if (a.inputs[k].output != b.inputs[k].output)
                return differ(where(ia) + ": input " + std::to_string(k) + " reads another output");
            if (a.inputs[k].node.isValid() != b.inputs[k].node.isValid())
                return differ(where(ia) + ": input " + std::to_string(k)
                              + " is dangling in one graph");
            if (a.inputs[k].node.isValid())
                pairNodes(a.inputs[k].node, b.inputs[k].node);
        }
    }

    const Graph &m_a;
    const Graph &m_b;
    std::optional<std::string> m_difference;
    std::unordered_map<std::uint32_t, std::uint32_t> m_nodePairs;
    std::unordered_map<std::uint32_t, std::uint32_t> m_functionPairs;
    std::vector<std::pair<NodeId, NodeId>> m_nodeQueue;
    std::vector<std::pair<FunctionId, FunctionId>> m_functionQueue;
};

} // namespace

std::optional<std::string> firstDifference(const Graph &a, const Graph &b)
{
    return Comparer(a, b).run();
}

} // namespace cleave
