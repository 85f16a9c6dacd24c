// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/FunctionView.h"

#include <algorithm>

namespace cleave {

bool isAssignableKind(NodeKind kind)
{
    switch (kind) {
    case NodeKind::OpCall:
    case NodeKind::FunctionCall:
    case NodeKind::ClosureCall:
    case NodeKind::ConstructorCall:
    case NodeKind::If:
    case NodeKind::Match:
    case NodeKind::Tuple:
    case NodeKind::TupleGetItem:
        return true;
    case NodeKind::Input:
    case NodeKind::Constant:
    case NodeKind::FunctionValue:
        return false;
    }
    return false;
}

std::string fusedName(const Graph &graph, FunctionId function)
{
    std::string name = "fused";
    for (NodeId n : graph.topologicalOrder(function)) {
        const Node &node = graph.node(n);
        if (node.kind != NodeKind::OpCall)
            continue;
        std::string op = node.op;
        std::replace(op.begin(), op.end(), '.', '_');
        name += "_" + op;
    }
    return name;
}

FunctionView::FunctionView(const Graph &graph, FunctionId function)
    : m_graph(&graph)
    , m_function(function.isValid() ? function : graph.mainFunction())
{
    const std::size_t n = graph.nodeCount();
    m_position.assign(n, -1);
    m_assignable.assign(n, 0);
    m_opKey.assign(n, -1);
    m_compositeKey.assign(n, -1);
    if (!m_function.isValid() || m_function.index() >= graph.functionCount()) {
        m_outOffsets.assign(n + 1, 0);
        m_inOffsets.assign(n + 1, 0);
        return;
    }
    indexNodes();
    findScopeOwners();
    collectEdges();
    buildEdgeIndex();
}

void FunctionView::indexNodes()
{
    const Graph &graph = *m_graph;
    m_order = graph.topologicalOrder(m_function);
    m_assignableNodes.reserve(
        static_cast<std::size_t>(std::count_if(m_order.begin(), m_order.end(), [&graph](NodeId id) {
            return isAssignableKind(graph.node(id).kind);
        })));
    auto intern = [this](const std::string &name) {
        return m_opNames.emplace(name, static_cast<std::int32_t>(m_opNames.size())).first->second;
    };
    for (std::size_t i = 0; i < m_order.size(); ++i) {
        const NodeId id = m_order[i];
        m_position[id.index()] = static_cast<std::int32_t>(i);
        const Node &node = graph.node(id);
        if (node.kind == NodeKind::OpCall) {
            m_opKey[id.index()] = intern(node.op);
        } else if (node.kind == NodeKind::FunctionCall && node.callee.isValid()
                   && node.callee.index() < graph.functionCount()) {
            const Function &callee = graph.function(node.callee);
            m_opKey[id.index()] = intern(callee.name);
            const std::string composite = callee.composite();
            if (!composite.empty())
                m_compositeKey[id.index()] = intern(composite);
            else if (callee.isPrimitive())
                m_compositeKey[id.index()] = intern(fusedName(graph, node.callee));
        }
        if (isAssignableKind(node.kind)) {
            m_assignable[id.index()] = 1;
            m_assignableNodes.push_back(id);
        } else if (node.kind == NodeKind::Constant) {
            m_constants.push_back(id);
        }
    }
    for (NodeId p : graph.function(m_function).params) {
        if (p.isValid() && p.index() < graph.nodeCount())
            m_inputs.push_back(p);
    }
}

// Nested scopes read values of their enclosing function; such reads count as reads by the
// node of this function that owns the scope (the If / Match, or the call of a literal).
void FunctionView::findScopeOwners()
{
    const Graph &graph = *m_graph;
    m_functionOwner.assign(graph.functionCount(), NodeId {});
    for (NodeId id : m_order) {
        const Node &node = graph.node(id);
        for (FunctionId s : node.scopes()) {
            if (s.isValid() && s.index() < m_functionOwner.size())
                m_functionOwner[s.index()] = id;
        }
        // A literal's body belongs to the call that runs it; a FunctionValue (the `%5 = fn`
        // binding) only owns it until that call is seen.
        if ((node.kind == NodeKind::FunctionCall || node.kind == NodeKind::FunctionValue)
            && node.callee.isValid() && node.callee.index() < m_functionOwner.size()) {
            const Function &callee = graph.function(node.callee);
            NodeId &owner = m_functionOwner[node.callee.index()];
            if (callee.kind != Function::Kind::Global && callee.parent == m_function
                && (!owner.isValid() || node.kind == NodeKind::FunctionCall))
                owner = id;
        }
    }
    // Deeper nesting: a function inherits the owner of its parent. Parents may come after
    // children in the store, so walk each chain (bounded by the function count).
    for (std::size_t f = 0; f < m_functionOwner.size(); ++f) {
        if (m_functionOwner[f].isValid() || f == m_function.index())
            continue;
        FunctionId p = graph.function(FunctionId(f)).parent;
        std::size_t guard = 0;
        while (p.isValid() && p != m_function && !m_functionOwner[p.index()].isValid()
               && guard++ < m_functionOwner.size())
            p = graph.function(p).parent;
        if (p.isValid() && p != m_function)
            m_functionOwner[f] = m_functionOwner[p.index()];
    }
}

void FunctionView::collectEdges()
{
    const Graph &graph = *m_graph;
    const std::size_t n = graph.nodeCount();
    auto forEachEdge = [&](auto &&visit) {
        for (std::size_t c = 0; c < n; ++c) {
            const NodeId user(c);
            const NodeId rep = representative(user);
            if (!rep.isValid())
                continue;
            const Node &node = graph.node(user);
            for (std::size_t i = 0; i < node.inputs.size(); ++i) {
                const TensorRef t = node.inputs[i];
                if (!t.node.isValid() || t.node.index() >= n || !contains(t.node) || t.node == rep)
                    continue;
                visit(FlowEdge { t, rep, user, static_cast<std::uint32_t>(i) });
            }
        }
    };
    // Counted first: the edge store lives as long as the view (a plan's, a level's), and
    // growing it by doubling left up to half of it unused.
    std::size_t count = 0;
    forEachEdge([&count](const FlowEdge &) { ++count; });
    m_edges.reserve(count);
    forEachEdge([this](const FlowEdge &e) { m_edges.push_back(e); });
    std::sort(m_edges.begin(), m_edges.end(), [this](const FlowEdge &a, const FlowEdge &b) {
        if (a.tensor.node != b.tensor.node)
            return a.tensor.node < b.tensor.node;
        const auto pa = m_position[a.consumer.index()];
        const auto pb = m_position[b.consumer.index()];
        if (pa != pb)
            return pa < pb;
        if (a.user != b.user)
            return a.user < b.user;
        return a.input < b.input;
    });
}

// Compressed rows: out-edges are m_edges grouped by producer; in-edges point into m_edges,
// grouped by consumer, direct reads before reads from nested scopes.
void FunctionView::buildEdgeIndex()
{
    const std::size_t n = m_graph->nodeCount();
    m_outOffsets.assign(n + 1, 0);
    m_inOffsets.assign(n + 1, 0);
    for (const FlowEdge &e : m_edges) {
        ++m_outOffsets[e.tensor.node.index() + 1];
        ++m_inOffsets[e.consumer.index() + 1];
    }
    for (std::size_t i = 0; i < n; ++i) {
        m_outOffsets[i + 1] += m_outOffsets[i];
        m_inOffsets[i + 1] += m_inOffsets[i];
    }
    m_inEdges.resize(m_edges.size());
    std::vector<std::uint32_t> fill(m_inOffsets.begin(), m_inOffsets.end() - 1);
    for (std::size_t e = 0; e < m_edges.size(); ++e)
        m_inEdges[fill[m_edges[e].consumer.index()]++] = static_cast<std::uint32_t>(e);
    for (std::size_t c = 0; c < n; ++c) {
        auto begin = m_inEdges.begin() + m_inOffsets[c];
        auto end = m_inEdges.begin() + m_inOffsets[c + 1];
        if (end - begin > 1) {
            std::sort(begin, end, [this](std::uint32_t ia, std::uint32_t ib) {
                const FlowEdge &a = m_edges[ia];
                const FlowEdge &b = m_edges[ib];
                const bool na = a.user != a.consumer;
                const bool nb = b.user != b.consumer;
                if (na != nb)
                    return !na;
                if (a.user != b.user)
                    return a.user < b.user;
                return a.input < b.input;
            });
        }
    }
}

std::span<const FlowEdge> FunctionView::outEdges(NodeId producer) const
{
    const std::size_t i = producer.index();
    return { m_edges.data() + m_outOffsets[i], m_outOffsets[i + 1] - m_outOffsets[i] };
}

InEdgeRange FunctionView::inEdges(NodeId consumer) const
{
    const std::size_t i = consumer.index();
    return { m_edges.data(),
             std::span<const std::uint32_t>(m_inEdges.data() + m_inOffsets[i],
                                            m_inOffsets[i + 1] - m_inOffsets[i]) };
}

std::int32_t FunctionView::findOpKey(const std::string &name) const
{
    std::string key = !name.empty() && name.front() == '@' ? name.substr(1) : name;
    if (const auto exact = m_opNames.find(key); exact != m_opNames.end())
        return exact->second; // graph.json kernels are named by their full func_name
    // Lowered names carry the module prefix (tvmgen_default_fused_...); Relay's fused
    // functions are named without it.
    const std::string prefix = "tvmgen_default_";
    if (key.rfind(prefix + "fused_", 0) == 0)
        key = key.substr(prefix.size());
    const auto it = m_opNames.find(key);
    return it == m_opNames.end() ? -1 : it->second;
}

NodeId FunctionView::representative(NodeId n) const
{
    if (!n.isValid() || n.index() >= m_position.size())
        return {};
    if (m_position[n.index()] >= 0)
        return n;
    const FunctionId f = m_graph->node(n).function;
    if (!f.isValid() || f.index() >= m_functionOwner.size())
        return {};
    return m_functionOwner[f.index()];
}

} // namespace cleave
