// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// FusionGrouper: the forward graph, post-dominator tree and fusion phases of TVM's FuseOps. The
// groups become FusedBlocks in FusionAnalysis.cpp.
#include "core/analysis/FusionGrouper.h"

#include <algorithm>
#include <array>
#include <functional>
#include <utility>

namespace cleave {

namespace {

int rank(OpPatternKind k)
{
    return static_cast<int>(k);
}

OpPatternKind combine(OpPatternKind a, OpPatternKind b)
{
    return rank(a) >= rank(b) ? a : b;
}

bool sameShape(const Type &a, const Type &b)
{
    return a.isTensor() && b.isTensor() && a.shape == b.shape;
}

bool isSimpleScalar(const Node &n)
{
    const Type &t = n.outputType(0);
    if (!n.value().isNull())
        return true;
    static const std::array<std::string_view, 5> simple
        = { "int32", "int64", "float32", "float64", "bool" };
    return t.isTensor() && t.shape.empty()
        && std::find(simple.begin(), simple.end(), t.dtype) != simple.end();
}

} // namespace

OpPatternKind FusionGrouper::opPattern(const Node &n) const
{
    if (n.op == stopFusionOp && m_options.transparentStopFusion)
        return OpPatternKind::ElemWise;
    if (n.op == batchNormOp && m_options.foldBatchNorm)
        return OpPatternKind::Broadcast;
    return m_patterns.pattern(n.op);
}

OpPatternKind FusionGrouper::nodePattern(const Node &n) const
{
    switch (n.kind) {
    case NodeKind::Constant:
        return isSimpleScalar(n) ? OpPatternKind::ElemWise : OpPatternKind::Opaque;
    case NodeKind::OpCall:
        return opPattern(n);
    case NodeKind::Tuple:
        return OpPatternKind::Tuple;
    case NodeKind::TupleGetItem: {
        if (n.inputs.empty())
            return OpPatternKind::Opaque;
        const Type &tuple = m_graph.tensorType(n.inputs[0]);
        const bool allTensors = tuple.isTuple()
            && std::all_of(tuple.fields.begin(), tuple.fields.end(),
                           [](const Type &t) { return t.isTensor(); });
        if (!allTensors)
            return OpPatternKind::Opaque;
        const Node &producer = m_graph.node(n.inputs[0].node);
        if (m_options.foldBatchNorm && n.index == 0 && producer.kind == NodeKind::OpCall
            && producer.op == batchNormOp)
            return OpPatternKind::ElemWise;
        return OpPatternKind::Injective;
    }
    default:
        return OpPatternKind::Opaque;
    }
}

void FusionGrouper::buildOrder()
{
    const Function &fn = m_graph.function(m_function);
    m_index.assign(m_graph.nodeCount(), none);
    std::vector<std::uint8_t> state(m_graph.nodeCount(), 0);
    for (NodeId n : fn.nodes)
        state[n.index()] = 1; // member, not visited
    m_order.reserve(fn.nodes.size());
    std::vector<std::pair<NodeId, std::size_t>> stack;
    auto walk = [&](NodeId start) {
        if (!start.isValid() || state[start.index()] != 1)
            return;
        state[start.index()] = 2;
        stack.emplace_back(start, 0);
        while (!stack.empty()) {
            auto &[node, next] = stack.back();
            const auto &inputs = m_graph.node(node).inputs;
            if (next < inputs.size()) {
                const NodeId p = inputs[next++].node;
                if (p.isValid() && p.index() < state.size() && state[p.index()] == 1) {
                    state[p.index()] = 2;
                    stack.emplace_back(p, 0);
                }
                continue;
            }
            m_index[node.index()] = static_cast<std::uint32_t>(m_order.size());
            m_order.push_back(node);
            stack.pop_back();
        }
    };
    walk(fn.result);
    for (NodeId n : fn.nodes)
        walk(n);
}

void FusionGrouper::buildForwardGraph()
{
    const std::size_t count = m_order.size();
    m_pattern.resize(count);
    m_extern.assign(count, false);
    m_outputs.assign(count, {});
    const NodeId result = m_graph.function(m_function).result;
    for (std::uint32_t i = 0; i < count; ++i) {
        const NodeId id = m_order[i];
        const Node &n = m_graph.node(id);
        m_pattern[i] = nodePattern(n);
        if (id == result)
            m_extern[i] = true;
        for (const Use &u : m_graph.uses(id)) {
            if (m_graph.node(u.consumer).function != m_function)
                m_extern[i] = true; // captured by a nested scope or closure
        }
        const Type &outType = n.outputType(0);
        for (const TensorRef &in : n.inputs) {
            if (!in.node.isValid() || in.node.index() >= m_index.size()
                || m_index[in.node.index()] == none)
                continue;
            const std::uint32_t p = m_index[in.node.index()];
            switch (n.kind) {
            case NodeKind::OpCall: {
                OpPatternKind edge = m_pattern[i];
                if (edge == OpPatternKind::Broadcast) {
                    const Type &argType = m_graph.tensorType(in);
                    const bool foldedBn = m_options.foldBatchNorm && n.op == batchNormOp;
                    const Type &compareTo = foldedBn ? outType.field(0) : outType;
                    if (sameShape(argType, compareTo))
                        edge = OpPatternKind::ElemWise;
                }
                m_outputs[p].push_back({ i, edge });
                break;
            }
            case NodeKind::Tuple:
                if (m_graph.tensorType(in).isTensor())
                    m_outputs[p].push_back({ i, OpPatternKind::Injective });
                else
                    m_extern[p] = true;
                break;
            case NodeKind::TupleGetItem:
                if (m_pattern[i] == OpPatternKind::Opaque)
                    m_extern[p] = true;
                else
                    m_outputs[p].push_back({ i, m_pattern[i] });
                break;
            case NodeKind::FunctionCall:
            case NodeKind::ClosureCall:
            case NodeKind::ConstructorCall:
                m_outputs[p].push_back({ i, OpPatternKind::Opaque });
                break;
            default:
                m_extern[p] = true; // if/match conditions and anything else: a fusion barrier
                break;
            }
        }
    }
}

std::uint32_t FusionGrouper::leastCommonAncestor(std::uint32_t a, std::uint32_t b,
                                                 OpPatternKind &pattern) const
{
    while (a != b) {
        if (a == none || b == none)
            return none;
        if (m_domDepth[a] < m_domDepth[b]) {
            pattern = combine(pattern, m_domPattern[b]);
            b = m_domParent[b];
        } else if (m_domDepth[b] < m_domDepth[a]) {
            pattern = combine(pattern, m_domPattern[a]);
            a = m_domParent[a];
        } else {
            pattern = combine(pattern, m_domPattern[a]);
            pattern = combine(pattern, m_domPattern[b]);
            a = m_domParent[a];
            b = m_domParent[b];
        }
    }
    return a;
}

void FusionGrouper::buildPostDominators()
{
    const std::size_t count = m_order.size();
    m_domParent.assign(count, none);
    m_domDepth.assign(count, 1);
    m_domPattern.assign(count, OpPatternKind::ElemWise);
    for (std::size_t i = count; i-- > 0;) {
        if (m_extern[i]) {
            m_domPattern[i] = OpPatternKind::Opaque;
            continue;
        }
        const auto &outs = m_outputs[i];
        if (outs.empty())
            continue;
        OpPatternKind pattern = combine(OpPatternKind::ElemWise, outs[0].pattern);
        std::uint32_t parent = outs[0].node;
        for (std::size_t k = 1; k < outs.size(); ++k) {
            parent = leastCommonAncestor(parent, outs[k].node, pattern);
            pattern = combine(pattern, outs[k].pattern);
        }
        m_domParent[i] = parent;
        m_domDepth[i] = parent == none ? 1 : m_domDepth[parent] + 1;
        m_domPattern[i] = pattern;
    }
}

std::uint32_t FusionGrouper::findRoot(std::uint32_t g)
{
    std::uint32_t root = g;
    while (m_groups[root].parent != none)
        root = m_groups[root].parent;
    while (m_groups[g].parent != none) { // path compression
        const std::uint32_t next = m_groups[g].parent;
        m_groups[g].parent = root;
        g = next;
    }
    return root;
}

void FusionGrouper::mergeFromTo(std::uint32_t child, std::uint32_t parent)
{
    child = findRoot(child);
    parent = findRoot(parent);
    if (child == parent)
        return;
    m_groups[parent].numNodes += m_groups[child].numNodes;
    m_groups[child].parent = parent;
    if (m_groups[child].anchor) {
        m_groups[parent].anchor = true;
        m_groups[parent].pattern = combine(m_groups[child].pattern, m_groups[parent].pattern);
    }
}

template <typename Cond>
bool FusionGrouper::checkPath(std::uint32_t src, std::uint32_t sink, Cond cond)
{
    // Every node on a path from src to its post-dominator sink must satisfy cond.
    nextVisit();
    m_stack.clear();
    for (const Edge &e : m_outputs[src])
        m_stack.push_back(e.node);
    while (!m_stack.empty()) {
        const std::uint32_t n = m_stack.back();
        m_stack.pop_back();
        if (m_visited[n] == m_epoch)
            continue;
        m_visited[n] = m_epoch;
        if (!cond(m_groups[findRoot(n)].pattern, n == sink))
            return false;
        if (n == sink)
            continue;
        for (const Edge &e : m_outputs[n])
            m_stack.push_back(e.node);
    }
    return true;
}

void FusionGrouper::commitFuse(std::uint32_t src, std::uint32_t sink)
{
    nextVisit();
    m_stack.assign(1, src);
    while (!m_stack.empty()) {
        const std::uint32_t n = m_stack.back();
        m_stack.pop_back();
        if (n == sink || m_visited[n] == m_epoch)
            continue;
        m_visited[n] = m_epoch;
        mergeFromTo(n, sink);
        for (const Edge &e : m_outputs[n])
            m_stack.push_back(e.node);
    }
}

bool FusionGrouper::fitsMaxDepth(std::uint32_t child, std::uint32_t domParent)
{
    // TVM's CountFusedNodesWithNewChild() <= max depth, stopping as soon as the sum is over:
    // the walk to a far post-dominator can be long, the answer is known early.
    std::size_t sum = m_groups[findRoot(domParent)].numNodes;
    nextVisit();
    m_stack.assign(1, child);
    while (!m_stack.empty()) {
        const std::uint32_t n = m_stack.back();
        m_stack.pop_back();
        if (n == domParent || m_visited[n] == m_epoch)
            continue;
        m_visited[n] = m_epoch;
        sum += m_groups[n].numNodes;
        if (sum > m_options.maxDepth)
            return false;
        for (const Edge &e : m_outputs[n])
            m_stack.push_back(e.node);
    }
    return true;
}

void FusionGrouper::runFuse(int phase)
{
    const auto atMostInjective
        = [](OpPatternKind k, bool) { return rank(k) <= rank(OpPatternKind::Injective); };
    for (std::uint32_t nid = 0; nid < m_order.size(); ++nid) {
        const Group &group = m_groups[nid];
        if (group.pattern == OpPatternKind::Opaque)
            continue;
        const std::uint32_t dom = m_domParent[nid];
        if (dom == none)
            continue;
        // TVM checks the depth first; checking it only where a fusion could follow gives the
        // same groups and saves walking long paths for nodes that never fuse.
        const auto withinDepth = [&] { return fitsMaxDepth(nid, dom); };
        if (phase == 2) {
            // Injective ops into intermediate tuples already fused into a following injective op.
            if (rank(group.pattern) > rank(OpPatternKind::Injective))
                continue;
            const std::uint32_t domRoot = findRoot(dom);
            if (m_groups[domRoot].pattern == OpPatternKind::Tuple)
                continue;
            if (m_groups[dom].pattern == OpPatternKind::Tuple
                && rank(m_groups[domRoot].pattern) <= rank(OpPatternKind::Injective)
                && withinDepth() && checkPath(nid, dom, atMostInjective))
                commitFuse(nid, dom);
            continue;
        }
        if (findRoot(nid) == findRoot(dom))
            continue;
        if (m_groups[dom].pattern == OpPatternKind::Tuple)
            continue;
        if (group.pattern == OpPatternKind::OutEWiseFusable) {
            if (phase != 0)
                continue;
            if (m_domPattern[nid] == OpPatternKind::ElemWise && withinDepth()
                && checkPath(nid, dom, [](OpPatternKind k, bool) {
                       return rank(k) <= rank(OpPatternKind::Broadcast);
                   }))
                commitFuse(nid, dom);
        } else if (rank(group.pattern) <= rank(OpPatternKind::Broadcast)) {
            const OpPatternKind dp = m_domPattern[nid];
            if (rank(dp) <= rank(OpPatternKind::Injective) || dp == OpPatternKind::CommReduce) {
                const auto cond = [](OpPatternKind k, bool isSink) {
                    if (!isSink)
                        return rank(k) <= rank(OpPatternKind::Injective);
                    return rank(k) <= rank(OpPatternKind::Broadcast)
                        || k == OpPatternKind::CommReduce || k == OpPatternKind::Injective
                        || k == OpPatternKind::OutEWiseFusable;
                };
                if (withinDepth() && checkPath(nid, dom, cond))
                    commitFuse(nid, dom);
            }
        } else if (group.pattern == OpPatternKind::Injective
                   || group.pattern == OpPatternKind::Tuple) {
            if (phase != 1)
                continue;
            if (withinDepth() && checkPath(nid, dom, atMostInjective))
                commitFuse(nid, dom);
        }
    }
}

std::vector<FusedBlock> FusionGrouper::run()
{
    buildOrder();
    buildForwardGraph();
    buildPostDominators();
    m_groups.resize(m_order.size());
    for (std::size_t i = 0; i < m_order.size(); ++i) {
        m_groups[i].pattern = m_pattern[i];
        m_groups[i].anchor = m_pattern[i] == OpPatternKind::OutEWiseFusable;
    }
    m_visited.assign(m_order.size(), 0);
    for (int phase = 0; phase < 3; ++phase)
        runFuse(phase);
    return collectBlocks();
}

} // namespace cleave
