// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/LayeredOrdering.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>

namespace cleave {

namespace {

struct Adjacency
{
    std::vector<std::vector<std::uint32_t>> preds;
    std::vector<std::vector<std::uint32_t>> succs;
};

Adjacency adjacencyOf(const LayoutGraph &graph)
{
    Adjacency a;
    a.preds.resize(graph.nodes.size());
    a.succs.resize(graph.nodes.size());
    for (const LayoutGraph::Edge &e : graph.edges) {
        if (e.stub || e.from == e.to)
            continue;
        a.preds[e.to].push_back(e.from);
        a.succs[e.from].push_back(e.to);
    }
    return a;
}

// Longest-path ranks in topological order (Kahn); nodes on a cycle (never in a dataflow graph,
// but the input is not trusted) are ranked after their ranked predecessors, in index order.
std::vector<int> longestPathRanks(const Adjacency &a, std::vector<std::uint32_t> *topoOut = nullptr)
{
    const std::size_t n = a.preds.size();
    std::vector<int> rank(n, 0);
    std::vector<std::uint32_t> indegree(n, 0);
    for (std::size_t v = 0; v < n; ++v)
        indegree[v] = static_cast<std::uint32_t>(a.preds[v].size());
    std::vector<std::uint32_t> queue;
    queue.reserve(n);
    for (std::size_t v = 0; v < n; ++v)
        if (indegree[v] == 0)
            queue.push_back(static_cast<std::uint32_t>(v));
    std::vector<bool> done(n, false);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t u = queue[head];
        done[u] = true;
        for (std::uint32_t v : a.succs[u]) {
            rank[v] = std::max(rank[v], rank[u] + 1);
            if (--indegree[v] == 0)
                queue.push_back(v);
        }
    }
    for (std::size_t v = 0; v < n; ++v) {
        if (done[v])
            continue;
        for (std::uint32_t u : a.preds[v])
            if (done[u])
                rank[v] = std::max(rank[v], rank[u] + 1);
        done[v] = true;
    }
    if (topoOut != nullptr)
        *topoOut = std::move(queue);
    return rank;
}

// The lowest rank a node with successors may take: just above its first successor.
int lowestFeasible(const std::vector<std::uint32_t> &succs, const std::vector<int> &rank)
{
    int lowest = rank[succs.front()];
    for (std::uint32_t s : succs)
        lowest = std::min(lowest, rank[s]);
    return lowest - 1;
}

// Network simplex's single-node moves, greedily, in linear time per pass. Moving a node down
// one rank shortens its out-edges and lengthens its in-edges by one: a node with more out- than
// in-edges moves down to just above its first successor; one with as many moves down too when
// that gains more than one rank, so a chain computed early and read thousands of ranks later
// (an unrolled LSTM's per-step results, read by the final concatenation) slides down next to its
// reader instead of dragging long edges across the drawing. Then a node with more in- than
// out-edges moves up to just below its last predecessor. Ranks stay a valid layering.
void balanceRanks(const Adjacency &a, const std::vector<std::uint32_t> &topo,
                  std::vector<int> &rank)
{
    constexpr int maxPasses = 8;
    for (int pass = 0; pass < maxPasses; ++pass) {
        bool moved = false;
        for (std::size_t i = topo.size(); i-- > 0;) {
            const std::uint32_t v = topo[i];
            const auto &succs = a.succs[v];
            const std::size_t ins = a.preds[v].size();
            if (succs.empty() || succs.size() < ins)
                continue;
            const int slack = succs.size() == ins ? 1 : 0;
            const int lowest = lowestFeasible(succs, rank);
            if (lowest > rank[v] + slack) {
                rank[v] = lowest;
                moved = true;
            }
        }
        for (const std::uint32_t v : topo) {
            const auto &preds = a.preds[v];
            if (preds.empty() || preds.size() <= a.succs[v].size())
                continue;
            int highest = rank[preds.front()];
            for (std::uint32_t p : preds)
                highest = std::max(highest, rank[p]);
            if (highest + 1 < rank[v]) {
                rank[v] = highest + 1;
                moved = true;
            }
        }
        if (!moved)
            break;
    }
}

// Cleave's ranking: longest path, sources just above their first consumer, then balanced.
std::vector<int> layeredRanks(const Adjacency &adj)
{
    std::vector<std::uint32_t> topo;
    std::vector<int> rank = longestPathRanks(adj, &topo);
    // Inputs and other sources sit just above their first consumer, not all on rank 0 with
    // edges running down the whole drawing.
    for (std::size_t v = 0; v < rank.size(); ++v) {
        if (!adj.preds[v].empty() || adj.succs[v].empty())
            continue;
        rank[v] = std::max(0, lowestFeasible(adj.succs[v], rank));
    }
    balanceRanks(adj, topo, rank);
    return rank;
}

// The elements ordered in each rank: the nodes, then one virtual element per rank crossed by a
// long edge (bounded: past the budget, long edges get no virtual positions and are routed beside
// the ranks). A virtual element has one neighbour above and one below, kept in two flat arrays
// (virtualUp / virtualDown, indexed by element - n): a vector each, as the nodes have, cost 112
// bytes per element where these take 8 (rnnt's 24k nodes fill the budget: 1.5e5 of them).
struct Elements
{
    std::size_t nodes = 0;
    std::vector<int> rank; // per element
    std::vector<std::vector<std::uint32_t>> up; // per node
    std::vector<std::vector<std::uint32_t>> down; // per node
    std::vector<std::uint32_t> virtualUp;
    std::vector<std::uint32_t> virtualDown;

    [[nodiscard]] std::span<const std::uint32_t> upOf(std::uint32_t e) const
    {
        return e < nodes ? std::span<const std::uint32_t>(up[e])
                         : std::span<const std::uint32_t>(&virtualUp[e - nodes], 1);
    }
    [[nodiscard]] std::span<const std::uint32_t> downOf(std::uint32_t e) const
    {
        return e < nodes ? std::span<const std::uint32_t>(down[e])
                         : std::span<const std::uint32_t>(&virtualDown[e - nodes], 1);
    }
};

Elements elementsOf(const LayoutGraph &graph, const std::vector<int> &rank)
{
    const std::size_t n = graph.nodes.size();
    Elements out;
    out.nodes = n;
    out.rank.assign(rank.begin(), rank.end());
    out.up.resize(n);
    out.down.resize(n);
    std::size_t budget = 4 * n + 50000;
    std::size_t virtualCount = 0;
    for (const LayoutGraph::Edge &e : graph.edges) {
        const int span = e.stub || e.from == e.to ? 0 : rank[e.to] - rank[e.from];
        if (span > 1 && static_cast<std::size_t>(span - 1) <= budget - virtualCount)
            virtualCount += static_cast<std::size_t>(span - 1);
    }
    out.rank.reserve(n + virtualCount);
    out.virtualUp.reserve(virtualCount);
    out.virtualDown.reserve(virtualCount);
    auto addDown = [&](std::uint32_t element, std::uint32_t next) {
        if (element < n)
            out.down[element].push_back(next);
        else
            out.virtualDown[element - n] = next;
    };
    for (const LayoutGraph::Edge &e : graph.edges) {
        if (e.stub || e.from == e.to)
            continue;
        const int span = rank[e.to] - rank[e.from];
        if (span < 1)
            continue;
        std::uint32_t previous = e.from;
        if (static_cast<std::size_t>(span - 1) <= budget) {
            budget -= static_cast<std::size_t>(span - 1);
            for (int r = rank[e.from] + 1; r < rank[e.to]; ++r) {
                const auto dummy = static_cast<std::uint32_t>(out.rank.size());
                out.rank.push_back(r);
                out.virtualUp.push_back(previous);
                out.virtualDown.push_back(0);
                addDown(previous, dummy);
                previous = dummy;
            }
        }
        addDown(previous, e.to);
        out.up[e.to].push_back(previous);
    }
    return out;
}

} // namespace

std::size_t longestPathDepth(const LayoutGraph &graph)
{
    if (graph.nodes.empty())
        return 0;
    const std::vector<int> rank = longestPathRanks(adjacencyOf(graph));
    return static_cast<std::size_t>(*std::max_element(rank.begin(), rank.end())) + 1;
}

std::size_t orderingPositions(const LayoutGraph &graph)
{
    const std::vector<int> rank = layeredRanks(adjacencyOf(graph));
    std::size_t positions = graph.nodes.size();
    for (const LayoutGraph::Edge &e : graph.edges) {
        const int span = e.stub ? 0 : rank[e.to] - rank[e.from];
        if (span > 1)
            positions += static_cast<std::size_t>(span - 1);
    }
    return positions;
}

void rankAndOrder(const LayoutGraph &graph, std::vector<int> &rank, std::vector<int> &order,
                  int sweeps)
{
    const std::size_t n = graph.nodes.size();
    rank = layeredRanks(adjacencyOf(graph)); // the adjacency goes once the ranks are made
    const Elements all = elementsOf(graph, rank);
    const std::vector<int> &elementRank = all.rank;
    auto upOf = [&](std::uint32_t e) { return all.upOf(e); };
    auto downOf = [&](std::uint32_t e) { return all.downOf(e); };
    const auto &up = all.up;

    // Initial order: depth first from the sources in program order (iterative: chains are
    // tens of thousands deep), so a chain's elements take neighbouring positions.
    const std::size_t elements = elementRank.size();
    const int rankCount
        = elements == 0 ? 0 : *std::max_element(elementRank.begin(), elementRank.end()) + 1;
    std::vector<std::vector<std::uint32_t>> layers(static_cast<std::size_t>(rankCount));
    std::vector<bool> placed(elements, false);
    std::vector<std::uint32_t> stack;
    auto visitFrom = [&](std::uint32_t start) {
        stack.push_back(start);
        while (!stack.empty()) {
            const std::uint32_t e = stack.back();
            stack.pop_back();
            if (placed[e])
                continue;
            placed[e] = true;
            layers[static_cast<std::size_t>(elementRank[e])].push_back(e);
            const std::span<const std::uint32_t> below = downOf(e);
            for (std::size_t i = below.size(); i-- > 0;)
                if (!placed[below[i]])
                    stack.push_back(below[i]);
        }
    };
    for (std::size_t v = 0; v < n; ++v)
        if (up[v].empty())
            visitFrom(static_cast<std::uint32_t>(v));
    for (std::size_t e = 0; e < elements; ++e)
        visitFrom(static_cast<std::uint32_t>(e));

    std::vector<double> position(elements, 0);
    for (const auto &layer : layers)
        for (std::size_t i = 0; i < layer.size(); ++i)
            position[layer[i]] = static_cast<double>(i);

    // Barycentre sweeps: each layer sorted by the mean position of its neighbours in the layer
    // just fixed (stable: elements without neighbours keep their place).
    std::vector<std::pair<double, std::uint32_t>> keyed;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        const bool downwards = sweep % 2 == 0;
        for (int step = 1; step < rankCount; ++step) {
            const int r = downwards ? step : rankCount - 1 - step;
            auto &layer = layers[static_cast<std::size_t>(r)];
            keyed.clear();
            for (std::uint32_t e : layer) {
                const std::span<const std::uint32_t> neighbours = downwards ? upOf(e) : downOf(e);
                double key = position[e];
                if (!neighbours.empty()) {
                    double sum = 0;
                    for (std::uint32_t m : neighbours)
                        sum += position[m];
                    key = sum / static_cast<double>(neighbours.size());
                }
                keyed.emplace_back(key, e);
            }
            std::stable_sort(keyed.begin(), keyed.end(),
                             [](const auto &a, const auto &b) { return a.first < b.first; });
            for (std::size_t i = 0; i < keyed.size(); ++i) {
                layer[i] = keyed[i].second;
                position[keyed[i].second] = static_cast<double>(i);
            }
        }
    }

    order.assign(n, 0);
    for (std::size_t v = 0; v < n; ++v)
        order[v] = static_cast<int>(position[v]);
}

} // namespace cleave
