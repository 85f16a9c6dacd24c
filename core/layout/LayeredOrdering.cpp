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
    // Nodes with no edge drawn (weights read so widely that every read is a stub) get a row of
    // their own above the drawing, packed about its centre: ordered among rank 0's sources they
    // kept no place of their own and were pushed out past the widest rank (rnnt's 35 LSTM
    // weights beside its inputs: 3,100 pt wider than its widest rank).
    const auto isolated
        = [&](std::size_t v) { return adj.preds[v].empty() && adj.succs[v].empty(); };
    std::size_t isolatedCount = 0;
    for (std::size_t v = 0; v < rank.size(); ++v)
        isolatedCount += isolated(v) ? 1 : 0;
    if (isolatedCount > 0 && isolatedCount < rank.size())
        for (std::size_t v = 0; v < rank.size(); ++v)
            rank[v] = isolated(v) ? 0 : rank[v] + 1;
    return rank;
}

// elementsOf's budget of virtual positions: 4 a node, and up to 28 more a node within 2e6 (plus 5e4
// for small graphs). A virtual position costs about 40 bytes while the ordering and placement run,
// so a model whose long edges would need millions of them (a hostile or pathological one: a
// chain read again thousands of ranks later at every step) costs at most some 80 MB more than
// under the old 4 a node.
std::size_t virtualBudget(std::size_t nodes)
{
    constexpr std::size_t perNode = 4;
    constexpr std::size_t extraPerNode = 28;
    constexpr std::size_t extraCap = 2000000;
    return perNode * nodes + std::min(extraPerNode * nodes, extraCap) + 50000;
}

// The elements ordered in each rank: the nodes, then one virtual element per rank crossed by a
// long edge (bounded: past the budget, long edges get no virtual positions; the placement
// threads them through gaps added at the ranks' right ends, out of the ordering's sight). A
// virtual element has one neighbour above and one below, kept in two flat arrays (virtualUp /
// virtualDown, indexed by element - n): a vector each, as the nodes have, cost 112 bytes per
// element where these take 8. rnnt's 24k nodes need 6.1e5 of them: under the old budget of
// 4n + 5e4 its 1,448 longest edges (an unrolled LSTM's per-step outputs read by the final
// concatenation, 324 ranks on average) went unordered, took other edges' gaps, and the drawing
// had 23,525 crossings where the ordering counted 1,746; with all of them it has 5,963, for
// 2 MB more at the editor's peak.
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
    std::size_t budget = virtualBudget(n);
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

// Crossing minimisation over the elements' layers: barycentre sweeps, keeping the ordering with
// the fewest crossings (counted exactly between each pair of neighbouring layers, as Barth,
// Juenger and Mutzel do: an inversion count over the edges in order, O(E log V) a sweep), then
// a transpose pass over that ordering. On rnnt the sweeps alternate between about 7,500 (down)
// and 2,000 (up) crossings and stop after eight; a transpose pass after every sweep found 1
// crossing fewer for 0.3 s more, so it runs once, at the end.
class Sweeper
{
public:
    Sweeper(const Elements &all, std::vector<std::vector<std::uint32_t>> &layers)
        : m_all(all)
        , m_layers(layers)
        , m_position(all.rank.size(), 0)
    {
        for (const auto &layer : m_layers)
            renumber(layer);
    }

    // Sweeps until `maxSweeps`, or `patience` sweeps in a row without fewer crossings, then
    // restores the best ordering seen and transposes it. Returns its crossings.
    std::size_t minimise(int maxSweeps, int patience)
    {
        std::size_t best = totalCrossings();
        std::vector<std::vector<std::uint32_t>> bestLayers = m_layers;
        int sinceBest = 0;
        for (int sweep = 0; sweep < maxSweeps && sinceBest < patience && best > 0; ++sweep) {
            const bool downwards = sweep % 2 == 0;
            const bool biasRight = sweep % 4 >= 2;
            const int count = static_cast<int>(m_layers.size());
            for (int step = 1; step < count; ++step)
                sortLayer(static_cast<std::size_t>(downwards ? step : count - 1 - step), downwards,
                          biasRight);
            const std::size_t crossings = totalCrossings();
            if (crossings < best) {
                best = crossings;
                bestLayers = m_layers;
                sinceBest = 0;
            } else {
                ++sinceBest;
            }
        }
        m_layers = std::move(bestLayers);
        for (const auto &layer : m_layers)
            renumber(layer);
        // Every swap lowers the crossings of the two layer pairs it touches, so this only
        // improves the best ordering.
        transposeAll();
        return totalCrossings();
    }

    [[nodiscard]] std::uint32_t position(std::uint32_t e) const { return m_position[e]; }

    // The crossings of the ordering: edges between neighbouring layers only (a long edge past
    // the virtual budget is not ordered).
    std::size_t totalCrossings()
    {
        std::size_t total = 0;
        for (std::size_t r = 0; r + 1 < m_layers.size(); ++r)
            total += crossingsBelow(r);
        return total;
    }

private:
    void renumber(const std::vector<std::uint32_t> &layer)
    {
        for (std::size_t i = 0; i < layer.size(); ++i)
            m_position[layer[i]] = static_cast<std::uint32_t>(i);
    }

    [[nodiscard]] bool adjacent(std::uint32_t a, std::uint32_t b) const
    {
        return std::abs(m_all.rank[a] - m_all.rank[b]) == 1;
    }

    // The positions of `e`'s neighbours in the layer above (up) or below, sorted. A virtual
    // element's one neighbour is always in the next layer.
    void neighbourPositions(std::uint32_t e, bool up, std::vector<std::uint32_t> &out) const
    {
        out.clear();
        if (e >= m_all.nodes) {
            const std::size_t i = e - m_all.nodes;
            out.push_back(m_position[up ? m_all.virtualUp[i] : m_all.virtualDown[i]]);
            return;
        }
        for (std::uint32_t m : up ? m_all.up[e] : m_all.down[e])
            if (adjacent(e, m))
                out.push_back(m_position[m]);
        if (out.size() > 1)
            std::sort(out.begin(), out.end());
    }

    std::size_t crossingsBelow(std::size_t r)
    {
        const std::size_t width = m_layers[r + 1].size();
        m_tree.assign(width + 1, 0);
        std::size_t crossings = 0;
        std::size_t inserted = 0;
        for (std::uint32_t e : m_layers[r]) {
            neighbourPositions(e, false, m_scratchA);
            for (std::uint32_t p : m_scratchA) {
                // Edges inserted so far that end right of p cross this one.
                std::size_t atOrLeft = 0;
                for (std::size_t i = p + 1; i > 0; i -= i & (~i + 1))
                    atOrLeft += m_tree[i];
                crossings += inserted - atOrLeft;
                for (std::size_t i = p + 1; i <= width; i += i & (~i + 1))
                    ++m_tree[i];
                ++inserted;
            }
        }
        return crossings;
    }

    void sortLayer(std::size_t r, bool downwards, bool biasRight)
    {
        auto &layer = m_layers[r];
        m_keyed.clear();
        for (std::uint32_t e : layer) {
            const std::span<const std::uint32_t> neighbours
                = downwards ? m_all.upOf(e) : m_all.downOf(e);
            double key = m_position[e];
            if (!neighbours.empty()) {
                double sum = 0;
                for (std::uint32_t m : neighbours)
                    sum += m_position[m];
                key = sum / static_cast<double>(neighbours.size());
            }
            m_keyed.push_back({ key, m_position[e], e });
        }
        // Ties keep their order, or reverse it on alternate sweeps (dagre's bias).
        std::sort(m_keyed.begin(), m_keyed.end(), [biasRight](const Keyed &a, const Keyed &b) {
            if (a.key != b.key)
                return a.key < b.key;
            return biasRight ? a.was > b.was : a.was < b.was;
        });
        for (std::size_t i = 0; i < m_keyed.size(); ++i)
            layer[i] = m_keyed[i].element;
        renumber(layer);
    }

    // Crossings among the edges of u and v (u left of v) to one neighbouring layer, from their
    // sorted neighbour positions: pairs with u's end right of v's.
    static std::size_t pairCrossings(const std::vector<std::uint32_t> &u,
                                     const std::vector<std::uint32_t> &v)
    {
        std::size_t crossings = 0;
        std::size_t j = 0;
        for (std::uint32_t a : u) {
            while (j < v.size() && v[j] < a)
                ++j;
            crossings += j;
        }
        return crossings;
    }

    // Adjacent swaps that lower the crossings with both neighbouring layers, until none does
    // (at most a few passes).
    void transposeAll()
    {
        constexpr int maxPasses = 4;
        for (int pass = 0; pass < maxPasses; ++pass) {
            bool improved = false;
            for (auto &layer : m_layers)
                improved = transposeLayer(layer) || improved;
            if (!improved)
                break;
        }
    }

    // One pass of adjacent swaps over a layer. The left element's neighbour positions are
    // carried from one pair to the next (it is either the pair's right element, or the left one
    // again after a swap).
    bool transposeLayer(std::vector<std::uint32_t> &layer)
    {
        if (layer.size() < 2)
            return false;
        bool improved = false;
        neighbourPositions(layer[0], true, m_leftUp);
        neighbourPositions(layer[0], false, m_leftDown);
        for (std::size_t i = 0; i + 1 < layer.size(); ++i) {
            const std::uint32_t u = layer[i];
            const std::uint32_t v = layer[i + 1];
            neighbourPositions(v, true, m_rightUp);
            neighbourPositions(v, false, m_rightDown);
            const std::size_t keep
                = pairCrossings(m_leftUp, m_rightUp) + pairCrossings(m_leftDown, m_rightDown);
            const std::size_t swapped
                = pairCrossings(m_rightUp, m_leftUp) + pairCrossings(m_rightDown, m_leftDown);
            if (swapped < keep) {
                layer[i] = v;
                layer[i + 1] = u;
                m_position[v] = static_cast<std::uint32_t>(i);
                m_position[u] = static_cast<std::uint32_t>(i + 1);
                improved = true;
            } else {
                m_leftUp.swap(m_rightUp);
                m_leftDown.swap(m_rightDown);
            }
        }
        return improved;
    }

    struct Keyed
    {
        double key;
        std::uint32_t was;
        std::uint32_t element;
    };

    const Elements &m_all;
    std::vector<std::vector<std::uint32_t>> &m_layers;
    std::vector<std::uint32_t> m_position;
    std::vector<std::uint32_t> m_tree;
    std::vector<std::uint32_t> m_scratchA;
    std::vector<std::uint32_t> m_leftUp;
    std::vector<std::uint32_t> m_leftDown;
    std::vector<std::uint32_t> m_rightUp;
    std::vector<std::uint32_t> m_rightDown;
    std::vector<Keyed> m_keyed;
};

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

    Sweeper sweeper(all, layers);
    sweeper.minimise(sweeps, sweepPatience);

    order.assign(n, 0);
    for (std::size_t v = 0; v < n; ++v)
        order[v] = static_cast<int>(sweeper.position(static_cast<std::uint32_t>(v)));
}

} // namespace cleave
