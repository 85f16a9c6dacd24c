// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/FusionAnalysis.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace cleave {

namespace {

constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
constexpr std::string_view stopFusionOp = "annotation.stop_fusion";
constexpr std::string_view batchNormOp = "nn.batch_norm";
constexpr std::size_t maxNameLength = 80;

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

/// Post-order of `members` from `root` along inputs inside the set (`inSet(node)`), then any
/// member the walk did not reach, in the given order.
template <typename InSet>
std::vector<NodeId> postOrderFrom(const Graph &graph, NodeId root,
                                  const std::vector<NodeId> &members, InSet inSet)
{
    std::vector<NodeId> order;
    order.reserve(members.size());
    std::vector<std::pair<NodeId, std::size_t>> stack;
    std::unordered_set<NodeId> seen;
    auto isSeen = [&](NodeId n) { return seen.contains(n); };
    auto walk = [&](NodeId start) {
        if (isSeen(start))
            return;
        seen.insert(start);
        stack.emplace_back(start, 0);
        while (!stack.empty()) {
            auto &[node, next] = stack.back();
            const auto &inputs = graph.node(node).inputs;
            if (next < inputs.size()) {
                const NodeId p = inputs[next++].node;
                if (inSet(p) && !isSeen(p)) {
                    seen.insert(p);
                    stack.emplace_back(p, 0);
                }
                continue;
            }
            order.push_back(node);
            stack.pop_back();
        }
    };
    if (root.isValid())
        walk(root);
    for (NodeId m : members)
        walk(m);
    return order;
}

/// Groups the operators of one function into fused kernels as TVM's FuseOps does
/// (IndexedForwardGraph + DominatorTree + GraphPartitioner).
class FusionGrouper
{
public:
    FusionGrouper(const Graph &graph, FunctionId f, const FusionOptions &options)
        : m_graph(graph)
        , m_function(f)
        , m_options(options)
        , m_patterns(options.patterns ? *options.patterns : OpPatternTable::builtin())
    {
    }

    std::vector<FusedBlock> run();

private:
    struct Edge
    {
        std::uint32_t node;
        OpPatternKind pattern;
    };
    struct Group
    {
        std::uint32_t parent = none;
        OpPatternKind pattern = OpPatternKind::Opaque;
        bool anchor = false;
        std::size_t numNodes = 1;
    };

    OpPatternKind opPattern(const Node &n) const;
    OpPatternKind nodePattern(const Node &n) const;
    void buildOrder();
    void buildForwardGraph();
    void buildPostDominators();
    std::uint32_t leastCommonAncestor(std::uint32_t a, std::uint32_t b,
                                      OpPatternKind &pattern) const;
    std::uint32_t findRoot(std::uint32_t g);
    void mergeFromTo(std::uint32_t child, std::uint32_t parent);
    template <typename Cond>
    bool checkPath(std::uint32_t src, std::uint32_t sink, Cond cond);
    void commitFuse(std::uint32_t src, std::uint32_t sink);
    bool fitsMaxDepth(std::uint32_t child, std::uint32_t domParent);
    void runFuse(int phase);
    std::vector<FusedBlock> collectBlocks();
    void nextVisit()
    {
        if (++m_epoch == 0) {
            std::fill(m_visited.begin(), m_visited.end(), 0);
            m_epoch = 1;
        }
    }

    const Graph &m_graph;
    FunctionId m_function;
    const FusionOptions &m_options;
    const OpPatternTable &m_patterns;

    std::vector<NodeId> m_order; // post-DFS order of the function's nodes
    std::vector<std::uint32_t> m_index; // NodeId → position in m_order, or none
    std::vector<OpPatternKind> m_pattern;
    std::vector<bool> m_extern;
    std::vector<std::vector<Edge>> m_outputs;
    std::vector<std::uint32_t> m_domParent;
    std::vector<std::uint32_t> m_domDepth;
    std::vector<OpPatternKind> m_domPattern;
    std::vector<Group> m_groups;
    std::vector<std::uint32_t> m_visited;
    std::uint32_t m_epoch = 0;
    std::vector<std::uint32_t> m_stack;
};

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

/// Op names of `nodes` (a post-order) as they go into a fused function name.
std::vector<std::string> callNames(const Graph &graph, const std::vector<NodeId> &nodes)
{
    std::vector<std::string> ops;
    for (NodeId id : nodes) {
        const Node &n = graph.node(id);
        if (n.kind == NodeKind::OpCall || n.kind == NodeKind::ConstructorCall)
            ops.push_back(n.op);
    }
    return ops;
}

std::string fusedName(std::vector<std::string> ops, bool foldBatchNorm)
{
    if (ops.size() > 1)
        std::erase(ops, std::string(stopFusionOp));
    std::string name = "fused";
    for (std::string op : ops) {
        if (foldBatchNorm && op == batchNormOp)
            op = "add";
        std::replace(op.begin(), op.end(), '.', '_');
        name += "_" + op;
    }
    return name;
}

/// A structural fingerprint of a member list: ops, attributes, types and internal wiring.
std::size_t signatureOf(const Graph &graph, const std::vector<NodeId> &nodes)
{
    std::string text;
    std::map<NodeId, std::size_t> position;
    std::map<TensorRef, std::size_t> params;
    for (NodeId id : nodes) {
        const Node &n = graph.node(id);
        position[id] = position.size();
        text += nodeKindName(n.kind);
        text += ' ' + n.op.str() + '(';
        for (const TensorRef &in : n.inputs) {
            if (const auto it = position.find(in.node); it != position.end()) {
                text += '#' + std::to_string(it->second) + '.' + std::to_string(in.output);
            } else {
                const auto [pit, added] = params.emplace(in, params.size());
                text += '$' + std::to_string(pit->second) + ':' + graph.tensorType(in).toRelay();
            }
            text += ',';
        }
        text += ')';
        for (const auto &[key, value] : n.attrs.items())
            text += key + '=' + value.toRelay() + ';';
        text += std::to_string(n.index) + "->";
        for (const Type &t : n.outputTypes())
            text += t.toRelay() + '|';
        text += '\n';
    }
    return std::hash<std::string> {}(text);
}

std::string hex(std::size_t v)
{
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4U)
        out[static_cast<std::size_t>(i)] = digits[v & 0xFU];
    return out;
}

/// The body of a function in post-order from its result (its parameters left out).
std::vector<NodeId> functionBody(const Graph &graph, FunctionId f)
{
    const Function &fn = graph.function(f);
    std::vector<NodeId> members;
    for (NodeId n : fn.nodes) {
        if (graph.node(n).kind != NodeKind::Input)
            members.push_back(n);
    }
    return postOrderFrom(graph, fn.result, members, [&](NodeId p) {
        return p.isValid() && graph.node(p).function == f && graph.node(p).kind != NodeKind::Input;
    });
}

std::vector<FusedBlock> FusionGrouper::collectBlocks()
{
    const std::size_t count = m_order.size();
    std::vector<std::uint32_t> blockOf(m_graph.nodeCount(), none);
    std::vector<std::uint32_t> blockOfRoot(count, none);
    std::vector<std::vector<NodeId>> members;
    std::vector<std::uint32_t> roots;
    // Roots in post-order give the order TVM calls the fused functions in.
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t r = findRoot(i);
        const Node &n = m_graph.node(m_order[i]);
        if (n.kind == NodeKind::Input || n.kind == NodeKind::Constant)
            continue;
        if (blockOfRoot[r] == none) {
            blockOfRoot[r] = static_cast<std::uint32_t>(members.size());
            members.emplace_back();
            roots.push_back(r);
        }
        members[blockOfRoot[r]].push_back(m_order[i]);
    }
    std::vector<std::size_t> byRoot(members.size());
    for (std::size_t b = 0; b < byRoot.size(); ++b)
        byRoot[b] = b;
    std::sort(byRoot.begin(), byRoot.end(),
              [&](std::size_t a, std::size_t b) { return roots[a] < roots[b]; });

    const std::vector<TensorRef> returned = m_graph.outputs(m_function);
    std::map<std::string, std::vector<std::size_t>> signatures; // base name → distinct bodies
    // At most one block per group: reserved, then trimmed to the blocks made, since the
    // document keeps them for the model's lifetime (grown by doubling, up to half of the store
    // went unused).
    std::vector<FusedBlock> blocks;
    blocks.reserve(byRoot.size());
    for (std::size_t b : byRoot) {
        const std::vector<NodeId> &group = members[b];
        if (std::none_of(group.begin(), group.end(),
                         [&](NodeId id) { return m_graph.node(id).isOperator(); }))
            continue; // tuples and projections no block consumes stay structural
        FusedBlock block;
        block.root = m_order[roots[b]];
        block.pattern = m_groups[roots[b]].pattern;
        const auto index = static_cast<std::uint32_t>(blocks.size());
        for (NodeId id : group)
            blockOf[id.index()] = index;
        block.nodes = postOrderFrom(m_graph, block.root, group, [&](NodeId p) {
            return p.isValid() && blockOf[p.index()] == index;
        });
        for (NodeId id : block.nodes) {
            for (const TensorRef &in : m_graph.node(id).inputs) {
                if (blockOf[in.node.index()] != index
                    && std::find(block.inputs.begin(), block.inputs.end(), in)
                        == block.inputs.end())
                    block.inputs.push_back(in);
            }
        }
        for (NodeId id : block.nodes) {
            const Node &n = m_graph.node(id);
            for (std::uint32_t o = 0; o < std::max<std::size_t>(1, n.outputCount()); ++o) {
                const TensorRef t { id, o };
                bool outside = std::find(returned.begin(), returned.end(), t) != returned.end();
                for (const Use &u : m_graph.uses(id)) {
                    if (outside)
                        break;
                    outside = m_graph.node(u.consumer).inputs[u.input].output == o
                        && blockOf[u.consumer.index()] != index;
                }
                if (outside)
                    block.outputs.push_back(t);
            }
        }

        const Node &rootNode = m_graph.node(block.root);
        std::string base;
        std::size_t signature = 0;
        bool uniquify = true;
        if (block.nodes.size() == 1 && rootNode.kind == NodeKind::FunctionCall
            && rootNode.callee.isValid()) {
            block.callee = rootNode.callee;
            const Function &callee = m_graph.function(rootNode.callee);
            if (!callee.composite().empty()) {
                base = callee.composite();
                uniquify = false;
            } else if (callee.kind == Function::Kind::Global) {
                base = callee.name;
                uniquify = false;
            } else {
                const std::vector<NodeId> body = functionBody(m_graph, rootNode.callee);
                base = fusedName(callNames(m_graph, body), m_options.foldBatchNorm);
                signature = signatureOf(m_graph, body);
            }
        } else if (rootNode.kind == NodeKind::If || rootNode.kind == NodeKind::Match
                   || rootNode.kind == NodeKind::ClosureCall
                   || rootNode.kind == NodeKind::FunctionCall) {
            base = nodeKindName(rootNode.kind);
            std::replace(base.begin(), base.end(), ' ', '_');
            uniquify = false;
        } else if (m_graph.format() == "graph.json" && rootNode.kind == NodeKind::OpCall) {
            base = rootNode.op; // already a compiled kernel: its func_name is its name
            uniquify = false;
        } else {
            base = fusedName(callNames(m_graph, block.nodes), m_options.foldBatchNorm);
            signature = signatureOf(m_graph, block.nodes);
        }
        if (uniquify && base.size() > maxNameLength)
            base = base.substr(0, maxNameLength) + "_" + hex(signature) + "_";
        std::string name = base;
        if (uniquify) {
            auto &seen = signatures[base];
            auto it = std::find(seen.begin(), seen.end(), signature);
            if (it == seen.end())
                it = seen.insert(seen.end(), signature);
            if (const auto k = static_cast<std::size_t>(it - seen.begin()); k > 0)
                name += "_" + std::to_string(k);
        }
        block.name = InternedString(name);
        blocks.push_back(std::move(block));
    }
    blocks.shrink_to_fit();
    return blocks;
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

} // namespace

std::vector<FusedBlock> fuseOps(const Graph &graph, FunctionId f, const FusionOptions &options)
{
    if (!f.isValid() || f.index() >= graph.functionCount())
        return {};
    FusionGrouper partitioner(graph, f, options);
    return partitioner.run();
}

std::vector<std::string> blockOps(const Graph &graph, const FusedBlock &block)
{
    if (!block.isExisting())
        return callNames(graph, block.nodes);
    // The calls of the function body, composite and other nested calls expanded in place.
    std::vector<std::string> ops;
    std::function<void(FunctionId, int)> expand = [&](FunctionId f, int depth) {
        for (NodeId id : functionBody(graph, f)) {
            const Node &n = graph.node(id);
            if (n.kind == NodeKind::OpCall)
                ops.push_back(n.op);
            else if (n.kind == NodeKind::FunctionCall && n.callee.isValid() && depth < 16)
                expand(n.callee, depth + 1);
        }
    };
    expand(block.callee, 0);
    return ops;
}

} // namespace cleave
