// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/TargetRegions.h"

#include "core/analysis/Cost.h"
#include "core/analysis/LatencyTable.h"
#include "core/graph/FunctionView.h"

#include <queue>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

namespace {

/// The name an op-support list knows a node by: the op, or a composite function's name.
std::string supportName(const Graph &g, const Node &n)
{
    if (n.kind == NodeKind::OpCall)
        return n.op.str();
    if (n.kind == NodeKind::FunctionCall && n.callee.isValid())
        return g.function(n.callee).composite();
    return {};
}

/// Relax modules are grouped as TVM's MergeCompositeFunctions groups them; Relay modules as
/// MergeCompilerRegions does.
bool usesCompositeRule(const Graph &g)
{
    return g.format() == "relax";
}

/// Target index per node (lists by priority; `fallback` = options.targets.size()).
std::vector<std::size_t> offerTargets(const FunctionView &view, const RegionOptions &options,
                                      const std::vector<std::uint8_t> &demoted)
{
    const Graph &g = view.graph();
    const bool composite = usesCompositeRule(g);
    const std::size_t fallback = options.targets.size();
    std::vector<std::size_t> target(g.nodeCount(), fallback);
    for (NodeId id : view.assignableNodes()) {
        const Node &n = g.node(id);
        std::size_t t = fallback;
        if ((n.kind == NodeKind::Tuple || n.kind == NodeKind::TupleGetItem) && composite) {
            // MergeCompositeFunctions groups composite calls only: tuples stay in main.
        } else if (n.kind == NodeKind::Tuple || n.kind == NodeKind::TupleGetItem) {
            // Structural nodes follow their producers when those agree.
            std::optional<std::size_t> agreed;
            bool agree = true;
            for (const FlowEdge *e : view.inEdges(id)) {
                if (!view.isAssignable(e->tensor.node))
                    continue;
                const std::size_t pt = target[e->tensor.node.index()];
                agree = agree && (!agreed || *agreed == pt);
                agreed = pt;
            }
            if (agree && agreed)
                t = *agreed;
        } else if (!demoted[id.index()]) {
            const std::string name = supportName(g, n);
            for (std::size_t k = 0; k < options.targets.size() && !name.empty(); ++k) {
                if (options.targets[k].ops.contains(name)) {
                    t = k;
                    break;
                }
            }
        }
        target[id.index()] = t;
    }
    return target;
}

/// Union-find of regions with the member list of every root.
class RegionSets
{
public:
    RegionSets(const FunctionView &view)
        : m_view(view)
        , m_parent(view.graph().nodeCount())
        , m_members(view.graph().nodeCount())
        , m_mark(view.graph().nodeCount(), 0)
    {
        std::iota(m_parent.begin(), m_parent.end(), 0U);
        for (NodeId n : view.assignableNodes())
            m_members[n.index()] = { n };
    }

    std::uint32_t find(std::uint32_t x)
    {
        while (m_parent[x] != x)
            x = m_parent[x] = m_parent[m_parent[x]];
        return x;
    }

    const std::vector<NodeId> &members(std::uint32_t root) const { return m_members[root]; }

    /// Puts b's region into a's without a convexity check (the caller knows the union is one).
    void join(std::uint32_t a, std::uint32_t b)
    {
        a = find(a);
        b = find(b);
        if (a == b)
            return;
        if (m_members[a].size() < m_members[b].size())
            std::swap(a, b);
        m_parent[b] = a;
        m_members[a].insert(m_members[a].end(), m_members[b].begin(), m_members[b].end());
        m_members[b].clear();
    }

    /// Merges the regions of a and b when their union stays convex.
    bool tryMerge(std::uint32_t a, std::uint32_t b)
    {
        a = find(a);
        b = find(b);
        if (a == b)
            return false;
        if (!unionIsConvex(a, b))
            return false;
        if (m_members[a].size() < m_members[b].size())
            std::swap(a, b);
        m_parent[b] = a;
        m_members[a].insert(m_members[a].end(), m_members[b].begin(), m_members[b].end());
        m_members[b].clear();
        return true;
    }

private:
    /// No path leaves the union and comes back into it (paths only run forward in program
    /// order, so the search stops at the union's last position).
    bool unionIsConvex(std::uint32_t a, std::uint32_t b)
    {
        ++m_epoch;
        std::int32_t last = -1;
        for (std::uint32_t r : { a, b }) {
            for (NodeId n : m_members[r]) {
                m_mark[n.index()] = m_epoch * 2;
                last = std::max(last, m_view.position(n));
            }
        }
        std::vector<NodeId> queue;
        for (std::uint32_t r : { a, b }) {
            for (NodeId n : m_members[r]) {
                for (const FlowEdge &e : m_view.outEdges(n))
                    visit(e.consumer, last, queue);
            }
        }
        for (std::size_t q = 0; q < queue.size(); ++q) {
            for (const FlowEdge &e : m_view.outEdges(queue[q])) {
                if (m_mark[e.consumer.index()] == m_epoch * 2)
                    return false;
                visit(e.consumer, last, queue);
            }
        }
        return true;
    }

    void visit(NodeId n, std::int32_t last, std::vector<NodeId> &queue)
    {
        const std::uint32_t mark = m_mark[n.index()];
        if (mark == m_epoch * 2 || mark == m_epoch * 2 + 1 || m_view.position(n) >= last)
            return;
        m_mark[n.index()] = m_epoch * 2 + 1;
        queue.push_back(n);
    }

    const FunctionView &m_view;
    std::vector<std::uint32_t> m_parent;
    std::vector<std::vector<NodeId>> m_members;
    std::vector<std::uint32_t> m_mark;
    std::uint32_t m_epoch = 0;
};

/// TVM's MergeCompositeFunctions grouping of the offloaded nodes, in program order: a node joins
/// the groups of those of its arguments that go to the same target, except a group another
/// argument's group depends on (directly or through other groups: joining it would make a
/// cycle); it starts a group of its own when no argument group can take it. Returns each
/// offloaded node's group (a node id); fallback nodes are singletons. Dependencies are kept as
/// the offloaded groups each group depends on, transitively, as TVM keeps them.
std::vector<std::uint32_t> compositeGroups(const FunctionView &view,
                                           const std::vector<std::size_t> &target,
                                           std::size_t fallback)
{
    const Graph &g = view.graph();
    std::vector<std::uint32_t> parent(g.nodeCount());
    std::iota(parent.begin(), parent.end(), 0U);
    const auto find = [&parent](std::uint32_t x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    const auto offloaded
        = [&](NodeId n) { return view.isAssignable(n) && target[n.index()] != fallback; };
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> deps; // root -> group ids
    const auto depsOf = [&](std::uint32_t root) {
        std::unordered_set<std::uint32_t> roots;
        if (auto it = deps.find(root); it != deps.end()) {
            for (std::uint32_t d : it->second)
                roots.insert(find(d));
        }
        return roots;
    };
    for (NodeId v : view.order()) {
        if (!view.isAssignable(v))
            continue;
        const auto self = static_cast<std::uint32_t>(v.index());
        std::vector<std::uint32_t> args;
        for (const FlowEdge *e : view.inEdges(v))
            args.push_back(static_cast<std::uint32_t>(e->tensor.node.index()));
        std::vector<std::uint32_t> join;
        if (offloaded(v) && g.node(v).isOperator()) {
            std::unordered_set<std::uint32_t> parentDeps;
            for (std::uint32_t a : args) {
                for (std::uint32_t d : depsOf(find(a)))
                    parentDeps.insert(d);
            }
            for (std::uint32_t a : args) {
                const std::uint32_t root = find(a);
                if (offloaded(NodeId(a)) && target[a] == target[v.index()]
                    && !parentDeps.contains(root)
                    && std::find(join.begin(), join.end(), root) == join.end())
                    join.push_back(root);
            }
        }
        std::uint32_t group = self;
        if (!join.empty()) {
            group = join.front();
            parent[self] = group;
            for (std::size_t i = 1; i < join.size(); ++i) {
                parent[join[i]] = group;
                auto &into = deps[group];
                if (auto it = deps.find(join[i]); it != deps.end()) {
                    into.insert(into.end(), it->second.begin(), it->second.end());
                    deps.erase(it);
                }
            }
        }
        const std::uint32_t root = find(group);
        std::vector<std::uint32_t> added;
        for (std::uint32_t a : args) {
            const std::uint32_t ra = find(a);
            if (ra == root)
                continue;
            if (offloaded(NodeId(ra)))
                added.push_back(ra);
            for (std::uint32_t d : depsOf(ra))
                added.push_back(d);
        }
        if (!added.empty()) {
            auto &into = deps[root];
            into.insert(into.end(), added.begin(), added.end());
            std::sort(into.begin(), into.end());
            into.erase(std::unique(into.begin(), into.end()), into.end());
        }
    }
    for (std::uint32_t i = 0; i < parent.size(); ++i)
        parent[i] = find(i);
    return parent;
}

/// Regions of one target assignment, in a topological order of the region graph.
std::vector<Region> formRegions(const FunctionView &view, const std::vector<std::size_t> &target,
                                const RegionOptions &options)
{
    const Graph &g = view.graph();
    RegionSets sets(view);
    const std::size_t fallback = options.targets.size();
    const bool composite = usesCompositeRule(g);
    if (composite) {
        // Offloaded groups as TVM forms them, joined in program order (each prefix of a
        // cycle-free group stays convex); then fallback nodes merge as below.
        const std::vector<std::uint32_t> groups = compositeGroups(view, target, fallback);
        for (NodeId v : view.order()) {
            if (view.isAssignable(v) && target[v.index()] != fallback)
                sets.join(groups[v.index()], static_cast<std::uint32_t>(v.index()));
        }
    }
    for (NodeId v : view.assignableNodes()) {
        for (const FlowEdge *e : view.inEdges(v)) {
            const NodeId u = e->tensor.node;
            if (view.isAssignable(u) && target[u.index()] == target[v.index()]
                && (!composite || target[v.index()] == fallback))
                sets.tryMerge(static_cast<std::uint32_t>(u.index()),
                              static_cast<std::uint32_t>(v.index()));
        }
    }
    // Quotient graph, then Kahn by first program position.
    std::vector<std::uint32_t> roots;
    std::vector<std::int32_t> regionOf(g.nodeCount(), -1);
    for (NodeId n : view.assignableNodes()) {
        const std::uint32_t r = sets.find(static_cast<std::uint32_t>(n.index()));
        if (regionOf[r] < 0) {
            regionOf[r] = static_cast<std::int32_t>(roots.size());
            roots.push_back(r);
        }
        regionOf[n.index()] = regionOf[r];
    }
    const std::size_t regionCount = roots.size();
    std::vector<std::vector<std::size_t>> succ(regionCount);
    std::vector<std::size_t> indegree(regionCount, 0);
    for (NodeId n : view.assignableNodes()) {
        for (const FlowEdge &e : view.outEdges(n)) {
            if (!view.isAssignable(e.consumer))
                continue;
            const auto from = static_cast<std::size_t>(regionOf[n.index()]);
            const auto to = static_cast<std::size_t>(regionOf[e.consumer.index()]);
            if (from != to) {
                succ[from].push_back(to);
                ++indegree[to];
            }
        }
    }
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t r = 0; r < regionCount; ++r) {
        if (indegree[r] == 0)
            ready.push(r); // region indices follow first program position
    }
    std::vector<Region> out;
    while (!ready.empty()) {
        const std::size_t r = ready.top();
        ready.pop();
        Region region;
        region.nodes = sets.members(roots[r]);
        std::sort(region.nodes.begin(), region.nodes.end(),
                  [&](NodeId a, NodeId b) { return view.position(a) < view.position(b); });
        const std::size_t t = target[region.nodes.front().index()];
        region.target = t < options.targets.size() ? options.targets[t].target : options.fallback;
        for (NodeId n : region.nodes)
            region.ops += g.node(n).isOperator() ? 1 : 0;
        out.push_back(std::move(region));
        for (std::size_t s : succ[r]) {
            if (--indegree[s] == 0)
                ready.push(s);
        }
    }
    return out;
}

double fallbackTime(const Graph &g, NodeId n, const RegionOptions &options)
{
    const auto table = options.latency.find(options.fallback);
    if (table != options.latency.end() && table->second) {
        if (const auto us = table->second->latency(g, n))
            return *us;
    }
    return static_cast<double>(nodeFlops(g, n)) / (options.fallbackGflops * 1e3);
}

/// Why a region should go back to the fallback, or empty when it stays.
std::string demotionReason(const FunctionView &view, const Region &region,
                           const std::vector<std::int32_t> &regionOf, std::size_t index,
                           const RegionOptions &options)
{
    if (region.ops < options.minRegionOps)
        return "has " + std::to_string(region.ops) + " op(s), fewer than --min-region "
            + std::to_string(options.minRegionOps);
    const auto table = options.latency.find(region.target);
    if (table == options.latency.end() || !table->second)
        return {};
    const Graph &g = view.graph();
    double gain = 0;
    for (NodeId n : region.nodes) {
        const auto us = table->second->latency(g, n);
        if (!us)
            return {}; // not measured: nothing to weigh
        gain += fallbackTime(g, n, options) - *us;
    }
    double transfer = 0;
    std::vector<TensorRef> counted;
    for (NodeId n : region.nodes) {
        for (const FlowEdge *e : view.inEdges(n)) {
            const NodeId p = e->tensor.node;
            if (view.isAssignable(p) && regionOf[p.index()] != static_cast<std::int32_t>(index)
                && std::find(counted.begin(), counted.end(), e->tensor) == counted.end()) {
                counted.push_back(e->tensor);
                transfer += options.link.transferUs(g.tensorType(e->tensor).byteSize().value_or(0));
            }
        }
        for (const FlowEdge &e : view.outEdges(n)) {
            if (view.isAssignable(e.consumer)
                && regionOf[e.consumer.index()] != static_cast<std::int32_t>(index)
                && std::find(counted.begin(), counted.end(), e.tensor) == counted.end()) {
                counted.push_back(e.tensor);
                transfer += options.link.transferUs(g.tensorType(e.tensor).byteSize().value_or(0));
            }
        }
    }
    if (transfer <= gain)
        return {};
    char text[160];
    std::snprintf(text, sizeof text, "moves data for %.1f us but gains only %.1f us", transfer,
                  gain);
    return text;
}

} // namespace

RegionResult findTargetRegions(const FunctionView &view, const RegionOptions &options)
{
    const Graph &g = view.graph();
    std::vector<std::uint8_t> demoted(g.nodeCount(), 0);
    RegionResult result;
    for (std::size_t round = 0; round <= view.assignableNodes().size(); ++round) {
        const std::vector<std::size_t> target = offerTargets(view, options, demoted);
        result.regions = formRegions(view, target, options);
        std::vector<std::int32_t> regionOf(g.nodeCount(), -1);
        for (std::size_t r = 0; r < result.regions.size(); ++r) {
            for (NodeId n : result.regions[r].nodes)
                regionOf[n.index()] = static_cast<std::int32_t>(r);
        }
        bool changed = false;
        for (std::size_t r = 0; r < result.regions.size(); ++r) {
            const Region &region = result.regions[r];
            if (region.target == options.fallback)
                continue;
            const std::string why = demotionReason(view, region, regionOf, r, options);
            if (why.empty())
                continue;
            result.notes.push_back("a " + region.target + " region of " + std::to_string(region.ops)
                                   + " op(s) starting at " + g.key(region.nodes.front())
                                   + " stays on " + options.fallback + ": it " + why);
            for (NodeId n : region.nodes)
                demoted[n.index()] = 1;
            changed = true;
        }
        if (!changed)
            break;
    }
    return result;
}

PartitionPlan planFromRegions(const std::shared_ptr<const FunctionView> &view,
                              const RegionResult &regions)
{
    PartitionPlan plan(view, false);
    for (std::size_t r = 0; r < regions.regions.size(); ++r) {
        const Region &region = regions.regions[r];
        plan.appendPartition(region.target + "_" + std::to_string(r), region.target);
        plan.assignToPartition(region.nodes, plan.partitions().back().id);
    }
    return plan;
}

} // namespace cleave
