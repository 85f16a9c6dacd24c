// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/LayeredOrdering.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

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
std::vector<int> longestPathRanks(const Adjacency &a)
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
    return rank;
}

} // namespace

std::size_t longestPathDepth(const LayoutGraph &graph)
{
    if (graph.nodes.empty())
        return 0;
    const std::vector<int> rank = longestPathRanks(adjacencyOf(graph));
    return static_cast<std::size_t>(*std::max_element(rank.begin(), rank.end())) + 1;
}

void rankAndOrder(const LayoutGraph &graph, std::vector<int> &rank, std::vector<int> &order,
                  int sweeps)
{
    const std::size_t n = graph.nodes.size();
    const Adjacency adj = adjacencyOf(graph);
    rank = longestPathRanks(adj);
    // Inputs and other sources sit just above their first consumer, not all on rank 0 with
    // edges running down the whole drawing.
    for (std::size_t v = 0; v < n; ++v) {
        if (!adj.preds[v].empty() || adj.succs[v].empty())
            continue;
        int lowest = rank[adj.succs[v].front()];
        for (std::uint32_t s : adj.succs[v])
            lowest = std::min(lowest, rank[s]);
        rank[v] = std::max(0, lowest - 1);
    }

    // Elements: the nodes, then one virtual element per rank crossed by a long edge (bounded:
    // past the budget, long edges get no virtual positions and are routed beside the ranks).
    std::vector<int> elementRank(rank.begin(), rank.end());
    std::vector<std::vector<std::uint32_t>> up(n);
    std::vector<std::vector<std::uint32_t>> down(n);
    std::size_t budget = 4 * n + 50000;
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
                const auto dummy = static_cast<std::uint32_t>(elementRank.size());
                elementRank.push_back(r);
                up.push_back({ previous });
                down.emplace_back();
                down[previous].push_back(dummy);
                previous = dummy;
            }
        }
        down[previous].push_back(e.to);
        up[e.to].push_back(previous);
    }

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
            for (std::size_t i = down[e].size(); i-- > 0;)
                if (!placed[down[e][i]])
                    stack.push_back(down[e][i]);
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
                const auto &neighbours = downwards ? up[e] : down[e];
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
