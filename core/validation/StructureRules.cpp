// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Rules on the shape of partitions: cycles between them, convexity, connectedness.
#include "core/partition/Reachability.h"
#include "core/validation/RuleSupport.h"
#include "core/validation/Validation.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace cleave {

using namespace rules;

namespace {

/// The partition dependency graph: for each partition (plan index), the partitions it feeds,
/// each with one witness node edge.
struct QuotientEdge
{
    int to = 0;
    NodeId from;
    NodeId into;
};

struct Quotient
{
    std::vector<std::vector<QuotientEdge>> adj;
    std::vector<int> component; // strongly connected component per partition
    std::vector<int> componentSize;
};

Quotient buildQuotient(const PartitionPlan &plan, const BoundaryTable &boundary)
{
    const std::size_t n = plan.partitionCount();
    Quotient q;
    q.adj.resize(n);
    std::unordered_map<std::uint64_t, bool> seen;
    for (const BoundaryTensor &b : boundary.tensors) {
        const int from = plan.indexOf(b.producerPartition);
        for (const BoundaryConsumer &c : b.consumers) {
            const int to = plan.indexOf(c.partition);
            if (from < 0 || to < 0 || c.nodes.empty())
                continue;
            const std::uint64_t key
                = static_cast<std::uint64_t>(from) * n + static_cast<std::uint64_t>(to);
            if (seen.emplace(key, true).second)
                q.adj[static_cast<std::size_t>(from)].push_back(
                    { to, b.tensor.node, c.nodes.front() });
        }
    }
    // Tarjan's algorithm, iterative: a hostile plan may hold one partition per node, and a
    // recursion as deep as a chain of 100k partitions would overflow the stack.
    q.component.assign(n, -1);
    std::vector<int> index(n, -1);
    std::vector<int> low(n, 0);
    std::vector<int> stack;
    std::vector<char> onStack(n, 0);
    struct Frame
    {
        int v;
        std::size_t next; // the next edge of v to follow
    };
    std::vector<Frame> calls;
    int counter = 0;
    int components = 0;
    auto enter = [&](int v) {
        index[static_cast<std::size_t>(v)] = low[static_cast<std::size_t>(v)] = counter++;
        stack.push_back(v);
        onStack[static_cast<std::size_t>(v)] = 1;
        calls.push_back({ v, 0 });
    };
    for (std::size_t root = 0; root < n; ++root) {
        if (index[root] >= 0)
            continue;
        enter(static_cast<int>(root));
        while (!calls.empty()) {
            const int v = calls.back().v;
            const auto vi = static_cast<std::size_t>(v);
            if (calls.back().next < q.adj[vi].size()) {
                const auto w = static_cast<std::size_t>(q.adj[vi][calls.back().next++].to);
                if (index[w] < 0)
                    enter(static_cast<int>(w));
                else if (onStack[w])
                    low[vi] = std::min(low[vi], index[w]);
                continue;
            }
            calls.pop_back();
            if (!calls.empty()) {
                const auto parent = static_cast<std::size_t>(calls.back().v);
                low[parent] = std::min(low[parent], low[vi]);
            }
            if (low[vi] != index[vi])
                continue;
            int size = 0;
            int w = -1;
            do {
                w = stack.back();
                stack.pop_back();
                onStack[static_cast<std::size_t>(w)] = 0;
                q.component[static_cast<std::size_t>(w)] = components;
                ++size;
            } while (w != v);
            q.componentSize.push_back(size);
            ++components;
        }
    }
    return q;
}

bool onCycle(const Quotient &q, std::size_t partitionIndex)
{
    return q.componentSize[static_cast<std::size_t>(q.component[partitionIndex])] > 1;
}

} // namespace

std::vector<Diagnostic> checkPartitionCycles(const PartitionPlan &plan,
                                             const BoundaryTable &boundary)
{
    std::vector<Diagnostic> out;
    const Graph &g = plan.graph();
    const Quotient q = buildQuotient(plan, boundary);
    const std::size_t n = plan.partitionCount();
    std::vector<char> reported(q.componentSize.size(), 0);
    for (std::size_t s = 0; s < n; ++s) {
        const auto comp = static_cast<std::size_t>(q.component[s]);
        if (!onCycle(q, s) || reported[comp])
            continue;
        reported[comp] = 1;
        // Breadth-first search inside the component for the shortest way back to s.
        std::vector<int> parent(n, -1);
        std::vector<const QuotientEdge *> via(n, nullptr);
        std::vector<int> queue { static_cast<int>(s) };
        const QuotientEdge *closing = nullptr;
        int last = -1;
        for (std::size_t head = 0; head < queue.size() && !closing; ++head) {
            const int v = queue[head];
            for (const QuotientEdge &e : q.adj[static_cast<std::size_t>(v)]) {
                if (q.component[static_cast<std::size_t>(e.to)] != q.component[s])
                    continue;
                if (e.to == static_cast<int>(s)) {
                    closing = &e;
                    last = v;
                    break;
                }
                if (parent[static_cast<std::size_t>(e.to)] < 0 && e.to != static_cast<int>(s)) {
                    parent[static_cast<std::size_t>(e.to)] = v;
                    via[static_cast<std::size_t>(e.to)] = &e;
                    queue.push_back(e.to);
                }
            }
        }
        if (!closing)
            continue;
        std::vector<const QuotientEdge *> edges { closing };
        std::vector<int> partitions { static_cast<int>(s), last };
        for (int v = last; v != static_cast<int>(s); v = parent[static_cast<std::size_t>(v)]) {
            edges.push_back(via[static_cast<std::size_t>(v)]);
            partitions.push_back(parent[static_cast<std::size_t>(v)]);
        }
        std::reverse(edges.begin(), edges.end());
        std::reverse(partitions.begin(), partitions.end());
        std::string cycle;
        std::string witnesses;
        std::vector<NodeId> nodes;
        for (std::size_t i = 0; i < partitions.size(); ++i) {
            if (i)
                cycle += " -> ";
            cycle += plan.partitions()[static_cast<std::size_t>(partitions[i])].name;
        }
        for (const QuotientEdge *e : edges) {
            if (!witnesses.empty())
                witnesses += ", ";
            witnesses += g.key(e->from) + " -> " + g.key(e->into);
            nodes.push_back(e->from);
            nodes.push_back(e->into);
        }
        out.push_back(make(Severity::Error, "partition.cycle",
                           std::string("partitions form a cycle: ")
                               .append(cycle)
                               .append(" (through ")
                               .append(witnesses)
                               .append(")"),
                           nodes, plan.partitions()[s].id));
    }
    // Without a cycle the plan order must still be a topological order of the partitions.
    for (std::size_t from = 0; from < n; ++from) {
        for (const QuotientEdge &e : q.adj[from]) {
            if (static_cast<std::size_t>(e.to) >= from
                || q.component[from] == q.component[static_cast<std::size_t>(e.to)])
                continue;
            const Partition &a = plan.partitions()[from];
            const Partition &b = plan.partitions()[static_cast<std::size_t>(e.to)];
            out.push_back(make(Severity::Error, "partition.order",
                               a.name + " feeds " + b.name + " (" + g.key(e.from) + " -> "
                                   + g.key(e.into) + ") but comes after it in the plan order",
                               { e.from, e.into }, a.id));
        }
    }
    return out;
}

std::vector<Diagnostic> checkConvexity(const PartitionPlan &plan, const BoundaryTable &boundary)
{
    std::vector<Diagnostic> out;
    const Quotient q = buildQuotient(plan, boundary);
    for (std::size_t i = 0; i < plan.partitionCount(); ++i) {
        if (!onCycle(q, i))
            continue;
        const PartitionId id = plan.partitions()[i].id;
        const std::vector<NodeId> members = plan.nodesOf(id);
        const std::vector<NodeId> path = reentryWitness(
            plan.view(), members, [&](NodeId n) { return plan.partitionOf(n) == id; });
        if (path.empty())
            continue;
        out.push_back(make(Severity::Error, "partition.nonconvex",
                           "partition " + plan.partitions()[i].name + " is not convex: the path "
                               + pathText(plan.graph(), path)
                               + " leaves it and comes back (its convex closure fixes it)",
                           path, id));
    }
    return out;
}

std::vector<Diagnostic> checkConnectivity(const PartitionPlan &plan)
{
    const FunctionView &view = plan.view();
    // Scratch reused across calls: validation runs after every edit on graphs of 100k nodes,
    // and fresh multi-hundred-kilobyte buffers would cost more in page faults than the pass.
    thread_local std::vector<std::uint32_t> parent;
    thread_local std::vector<char> seenRoot;
    parent.resize(plan.graph().nodeCount());
    seenRoot.assign(plan.graph().nodeCount(), 0);
    auto find = [&](std::uint32_t x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    };
    for (NodeId n : view.assignableNodes())
        parent[n.index()] = n.value;
    for (NodeId n : view.assignableNodes()) {
        const PartitionId p = plan.partitionOf(n);
        for (const FlowEdge &e : view.outEdges(n)) {
            if (!view.isAssignable(e.consumer) || plan.partitionOf(e.consumer) != p)
                continue;
            const std::uint32_t a = find(n.value);
            const std::uint32_t b = find(e.consumer.value);
            if (a != b)
                parent[std::max(a, b)] = std::min(a, b);
        }
    }
    // The first node (program order) of each piece, per partition.
    std::vector<std::vector<NodeId>> pieces(plan.partitionCount());
    for (NodeId n : view.assignableNodes()) {
        const int i = plan.indexOf(plan.partitionOf(n));
        if (i < 0)
            continue;
        const std::uint32_t r = find(n.value);
        if (!seenRoot[r]) {
            seenRoot[r] = 1;
            pieces[static_cast<std::size_t>(i)].push_back(n);
        }
    }
    std::vector<Diagnostic> out;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (pieces[i].size() < 2)
            continue;
        const Partition &p = plan.partitions()[i];
        out.push_back(make(Severity::Warning, "partition.disconnected",
                           "partition " + p.name + " falls into " + std::to_string(pieces[i].size())
                               + " unconnected pieces (starting at "
                               + keyList(plan.graph(), pieces[i]) + ")",
                           pieces[i], p.id));
    }
    return out;
}

} // namespace cleave
