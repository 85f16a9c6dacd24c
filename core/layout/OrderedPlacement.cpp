// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/OrderedPlacement.h"

#include "core/layout/OrderedPlacer.h"
#include "core/support/SortedIndices.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <span>
#include <type_traits>
#include <utility>

namespace cleave::placement {

namespace {

// The average of a left- and a right-justified packing towards `desired`: both keep the order
// and the minimum gaps, so their average does too.
template <typename Width>
void placeRank(std::vector<Slot> &slots, const std::vector<double> &desired,
               std::vector<double> &left, std::vector<double> &right, Width width)
{
    const std::size_t n = slots.size();
    if (n == 0)
        return;
    auto gap = [&](std::size_t i) {
        const bool dummy = slots[i - 1].node() < 0 || slots[i].node() < 0;
        return (width(slots[i - 1]) + width(slots[i])) / 2
            + (dummy ? dummySeparation : nodeSeparation);
    };
    left.resize(n);
    right.resize(n);
    left[0] = desired[0];
    for (std::size_t i = 1; i < n; ++i)
        left[i] = std::max(desired[i], left[i - 1] + gap(i));
    right[n - 1] = desired[n - 1];
    for (std::size_t i = n - 1; i-- > 0;)
        right[i] = std::min(desired[i], right[i + 1] - gap(i + 1));
    for (std::size_t i = 0; i < n; ++i)
        slots[i].x = (left[i] + right[i]) / 2;
}

} // namespace

// Compress ranks to 0..R-1.
void OrderedPlacer::compressRanks(const std::vector<int> &rank)
{
    std::vector<int> ranks(rank.begin(), rank.end());
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    m_rankCount = ranks.size();
    m_rankOf.resize(m_n);
    for (std::size_t i = 0; i < m_n; ++i)
        m_rankOf[i] = static_cast<int>(std::lower_bound(ranks.begin(), ranks.end(), rank[i])
                                       - ranks.begin());
}

// Long edges pass each rank between their ends through one of dot's virtual nodes; the
// positions of those not followed by a real node are invisible in `order`, so count them.
std::vector<int> OrderedPlacer::passingEdgeCounts() const
{
    std::vector<int> passing(m_rankCount + 1, 0);
    for (const LayoutGraph::Edge &e : m_graph.edges) {
        const int ru = m_rankOf[e.from];
        const int rv = m_rankOf[e.to];
        if (e.stub || rv - ru < 2)
            continue;
        ++passing[static_cast<std::size_t>(ru) + 1];
        --passing[static_cast<std::size_t>(rv)];
    }
    for (std::size_t r = 1; r < passing.size(); ++r)
        passing[r] += passing[r - 1];
    return passing;
}

// Each rank holds its nodes in dot's order with a gap for every position dot gave a virtual
// node, packed tightly and centred on 0.
void OrderedPlacer::buildSlots()
{
    const std::vector<int> passing = passingEdgeCounts();
    std::vector<std::vector<int>> byRank(m_rankCount);
    for (std::size_t i = 0; i < m_n; ++i)
        byRank[static_cast<std::size_t>(m_rankOf[i])].push_back(static_cast<int>(i));
    m_slots.resize(m_rankCount);
    m_slotOf.assign(m_n, 0);
    for (std::size_t r = 0; r < byRank.size(); ++r) {
        auto &members = byRank[r];
        std::sort(members.begin(), members.end(), [&](int a, int b) {
            return m_order[static_cast<std::size_t>(a)] < m_order[static_cast<std::size_t>(b)];
        });
        // Sized exactly first: grown by push_back, the ranks of a deep graph held up to twice
        // their slots at the peak (of 32 bytes then: 11.8 MB for rnnt's fused blocks, 29 MB
        // for its operators).
        int gapsBefore = 0;
        int previous = -1;
        for (int node : members) {
            const int o = m_order[static_cast<std::size_t>(node)];
            gapsBefore += std::max(0, o - previous - 1);
            previous = std::max(previous, o);
        }
        std::vector<Slot> &slots = m_slots[r];
        slots.reserve(members.size() + static_cast<std::size_t>(std::max(gapsBefore, passing[r])));
        previous = -1;
        for (int node : members) {
            const int o = m_order[static_cast<std::size_t>(node)];
            for (int k = previous + 1; k < o; ++k)
                slots.push_back(Slot {});
            previous = std::max(previous, o);
            m_slotOf[static_cast<std::size_t>(node)] = static_cast<std::uint32_t>(slots.size());
            slots.push_back(Slot::ofNode(node));
        }
        const auto gapsSoFar = static_cast<int>(slots.size() - members.size());
        for (int k = gapsSoFar; k < passing[r]; ++k)
            slots.push_back(Slot {});
        double x = 0;
        for (std::size_t i = 0; i < slots.size(); ++i) {
            if (i > 0)
                x += (width(slots[i - 1]) + width(slots[i])) / 2 + nodeSeparation;
            slots[i].x = x;
        }
        for (Slot &s : slots)
            s.x -= x / 2; // centre every rank on 0
    }
}

// Each node's neighbours above and below: the nodes at the other end of its edges. (Not the
// gaps of its long edges: a node drawn toward its long edge's lane pulls a straight chain of
// nodes out of line.)
void OrderedPlacer::collectNeighbours()
{
    // One array for all nodes (node i's are [m_neighbourStart[i], m_neighbourStart[i + 1])):
    // a vector per node cost a heap block and 24 bytes more per node.
    m_neighbourStart.assign(m_n + 1, 0);
    for (const LayoutGraph::Edge &e : m_graph.edges) {
        if (e.stub)
            continue;
        ++m_neighbourStart[e.to + 1];
        ++m_neighbourStart[e.from + 1];
    }
    for (std::size_t i = 1; i <= m_n; ++i)
        m_neighbourStart[i] += m_neighbourStart[i - 1];
    m_neighbours.resize(m_neighbourStart[m_n]);
    std::vector<std::uint32_t> filled(m_neighbourStart.begin(), m_neighbourStart.end() - 1);
    for (const LayoutGraph::Edge &e : m_graph.edges) {
        if (e.stub)
            continue;
        m_neighbours[filled[e.to]++] = nodeSlot(e.from);
        m_neighbours[filled[e.from]++] = nodeSlot(e.to);
    }
}

// Median sweeps, alternately top-down and bottom-up, each node towards its neighbours.
void OrderedPlacer::sweepMedians()
{
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        const bool down = sweep % 2 == 0;
        const std::size_t count = m_slots.size();
        for (std::size_t step = 0; step < count; ++step)
            sweepRank(down ? step : count - 1 - step);
    }
}

void OrderedPlacer::sweepRank(std::size_t rank)
{
    std::vector<Slot> &rankSlots = m_slots[rank];
    std::vector<double> &desired = m_desired;
    desired.assign(rankSlots.size(), 0);
    // Where the next long edge's gaps are looked for in the ranks above and below (see gapOf).
    std::size_t up = 0;
    std::size_t down = 0;
    for (std::size_t i = 0; i < rankSlots.size(); ++i) {
        const Slot &slot = rankSlots[i];
        desired[i] = slot.x;
        m_values.clear();
        if (slot.node() >= 0) {
            // The median of every neighbour, above and below: of the predecessors alone (down)
            // or the successors alone (up), each sweep leans toward one side of a module that
            // fans out and joins again (an Inception module: four branches into a concat), and
            // the lean adds up module after module into a staircase (an Inception-shaped 3k
            // graph 3,940 pt wide, against dot's 618; 389 with both).
            const auto node = static_cast<std::size_t>(slot.node());
            for (std::uint32_t j = m_neighbourStart[node]; j < m_neighbourStart[node + 1]; ++j)
                m_values.push_back(xAt(m_neighbours[j]));
        } else if (slot.edge() >= 0) {
            // A long edge's gap lines up with where the edge passes the ranks above and below
            // (or with its ends), so the edge runs straight.
            const auto k = static_cast<std::size_t>(slot.edge());
            const LayoutGraph::Edge &e = m_graph.edges[k];
            double x = 0;
            if (static_cast<int>(rank) - 1 == m_rankOf[e.from])
                m_values.push_back(xOf(e.from));
            else if (gapOf(m_slots[rank - 1], k, up, x))
                m_values.push_back(x);
            if (static_cast<int>(rank) + 1 == m_rankOf[e.to])
                m_values.push_back(xOf(e.to));
            else if (gapOf(m_slots[rank + 1], k, down, x))
                m_values.push_back(x);
        }
        if (m_values.empty())
            continue;
        std::sort(m_values.begin(), m_values.end());
        const std::size_t mid = m_values.size() / 2;
        desired[i]
            = m_values.size() % 2 == 1 ? m_values[mid] : (m_values[mid - 1] + m_values[mid]) / 2;
    }
    // Gaps no long edge holds (yet) carry no wish of their own: they pack against the node on
    // their left (or, before the first node, on their right), so long edges run close beside
    // the nodes they pass instead of at stale far-away positions. A held gap keeps its wish
    // but yields to the nodes beside it: without that, placeRank would split the conflict and
    // a long edge would push the chain of nodes it runs beside out of line.
    auto gapAt = [&](std::size_t i) {
        const bool dummy = rankSlots[i - 1].node() < 0 || rankSlots[i].node() < 0;
        return (width(rankSlots[i - 1]) + width(rankSlots[i])) / 2
            + (dummy ? dummySeparation : nodeSeparation);
    };
    const auto real = std::find_if(rankSlots.begin(), rankSlots.end(),
                                   [](const Slot &slot) { return slot.node() >= 0; });
    if (real != rankSlots.end()) {
        const auto firstReal = static_cast<std::size_t>(real - rankSlots.begin());
        for (std::size_t i = firstReal + 1; i < rankSlots.size(); ++i) {
            if (rankSlots[i].node() >= 0)
                continue;
            desired[i] = rankSlots[i].edge() < 0 ? desired[i - 1] + gapAt(i)
                                                 : std::max(desired[i], desired[i - 1] + gapAt(i));
        }
        for (std::size_t i = rankSlots.size() - 1; i-- > 0;) {
            if (rankSlots[i].node() >= 0)
                continue;
            if (i < firstReal && rankSlots[i].edge() < 0)
                desired[i] = desired[i + 1] - gapAt(i + 1);
            else if (rankSlots[i].edge() >= 0)
                desired[i] = std::min(desired[i], desired[i + 1] - gapAt(i + 1));
        }
    }
    placeRank(rankSlots, desired, m_left, m_right,
              [this](const Slot &slot) { return width(slot); });
}

// The x of long edge k's gap among `slots` (a rank next to one it passes), searched from slot
// `from`, which then moves past it. Long edges never cross: those passing two neighbouring
// ranks hold gaps in the same left-to-right order in both (threadLongEdges gives each rank's
// gaps out in the order of the rank above), so a rank's sweep finds its edges' gaps above and
// below by two forward scans, in linear time and without a table of every edge's gap in every
// rank (4 bytes a rank passed: 2.5 MB of rnnt's operators). The whole rank is searched again
// should the order not hold; false when k holds no gap there.
bool OrderedPlacer::gapOf(const std::vector<Slot> &slots, std::size_t k, std::size_t &from,
                          double &x)
{
    const auto edge = static_cast<std::int32_t>(k);
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t i = pass == 0 ? from : 0; i < slots.size(); ++i) {
            if (slots[i].edge() == edge) {
                x = slots[i].x;
                from = i + 1;
                return true;
            }
        }
    }
    return false;
}

// Long edges take the gaps rank by rank, top to bottom: those passing a rank, sorted by where
// they pass the rank above (new ones by their source), take its gaps (the positions dot's
// ordering gave their virtual nodes) in the same left-to-right order, each the gap nearest the
// straight line between its ends among those the order leaves it. Two long edges then never
// cross each other, and each passes the rank's nodes on the side dot chose for it.
void OrderedPlacer::threadLongEdges()
{
    const std::size_t edgeCount = m_graph.edges.size();
    // The long edges by top rank, in edge order: rank r's are starting[startAt[r], startAt[r+1])
    // (one array, not a vector per rank).
    std::vector<std::uint32_t> startAt(m_slots.size() + 1, 0);
    for (std::size_t k = 0; k < edgeCount; ++k) {
        const LayoutGraph::Edge &e = m_graph.edges[k];
        if (!isLong(e))
            continue;
        ++startAt[static_cast<std::size_t>(m_rankOf[e.from]) + 1];
    }
    for (std::size_t r = 1; r < startAt.size(); ++r)
        startAt[r] += startAt[r - 1];
    std::vector<std::uint32_t> starting(startAt.back());
    {
        std::vector<std::uint32_t> filled(startAt.begin(), startAt.end() - 1);
        for (std::size_t k = 0; k < edgeCount; ++k)
            if (isLong(m_graph.edges[k]))
                starting[filled[static_cast<std::size_t>(m_rankOf[m_graph.edges[k].from])]++]
                    = static_cast<std::uint32_t>(k);
    }
    // The edges passing the rank, each with where it is one rank up (kept beside the edge
    // rather than in a table over all edges).
    struct Passing
    {
        double above = 0;
        std::uint32_t edge = 0;
    };
    std::vector<Passing> passing;
    std::vector<Passing> next;
    std::vector<std::uint32_t> rankGaps;
    for (std::size_t r = 1; r < m_slots.size(); ++r) {
        next.clear();
        for (const Passing &p : passing)
            if (static_cast<std::size_t>(m_rankOf[m_graph.edges[p.edge].to]) > r)
                next.push_back(p);
        for (std::uint32_t i = startAt[r - 1]; i < startAt[r]; ++i)
            next.push_back({ xOf(m_graph.edges[starting[i]].from), starting[i] });
        passing.swap(next);
        if (passing.empty())
            continue;
        std::sort(passing.begin(), passing.end(), [&](const Passing &a, const Passing &b) {
            if (a.above != b.above)
                return a.above < b.above;
            const double ta = xOf(m_graph.edges[a.edge].to);
            const double tb = xOf(m_graph.edges[b.edge].to);
            return ta != tb ? ta < tb : a.edge < b.edge;
        });
        // The rank's gaps, collected when needed (kept for every rank they were a second copy
        // of the slots, 8 bytes per gap).
        rankGaps.clear();
        for (std::size_t i = 0; i < m_slots[r].size(); ++i)
            if (m_slots[r][i].node() < 0)
                rankGaps.push_back(static_cast<std::uint32_t>(i));
        auto gapX = [&](std::size_t g) { return m_slots[r][rankGaps[g]].x; };
        std::size_t nextGap = 0;
        for (std::size_t i = 0; i < passing.size(); ++i) {
            const std::uint32_t k = passing[i].edge;
            const LayoutGraph::Edge &e = m_graph.edges[k];
            const int ru = m_rankOf[e.from];
            const double t = static_cast<double>(static_cast<int>(r) - ru)
                / static_cast<double>(m_rankOf[e.to] - ru);
            const double line = xOf(e.from) + (xOf(e.to) - xOf(e.from)) * t;
            // buildSlots leaves every rank a gap per passing edge; should it not, the last
            // gaps are shared rather than an edge left without a route.
            const std::size_t remaining = passing.size() - i;
            const std::size_t last
                = rankGaps.size() >= remaining ? rankGaps.size() - remaining : rankGaps.size() - 1;
            std::size_t g = std::min(nextGap, last);
            while (g < last && gapX(g + 1) <= line)
                ++g;
            if (g < last && std::abs(gapX(g + 1) - line) < std::abs(gapX(g) - line))
                ++g;
            m_slots[r][rankGaps[g]].setEdge(static_cast<std::int32_t>(k));
            passing[i].above = gapX(g);
            nextGap = g + 1;
        }
    }
}

// Every rank is as tall as its tallest node; the horizontal extent covers every slot.
void OrderedPlacer::placeVertically()
{
    m_rankTop.assign(m_slots.size(), 0);
    m_rankHeight.assign(m_slots.size(), 10);
    double y = 0;
    for (std::size_t r = 0; r < m_slots.size(); ++r) {
        for (const Slot &s : m_slots[r])
            if (s.node() >= 0)
                m_rankHeight[r]
                    = std::max(m_rankHeight[r],
                               double(m_graph.nodes[static_cast<std::size_t>(s.node())].height));
        m_rankTop[r] = y;
        y += m_rankHeight[r] + rankSeparation;
    }
    m_height = std::max(0.0, y - rankSeparation);
    bool first = true;
    for (const auto &rankSlots : m_slots) {
        for (const Slot &s : rankSlots) {
            const double w = width(s);
            if (first || s.x - w / 2 < m_minX)
                m_minX = s.x - w / 2;
            if (first || s.x + w / 2 > m_maxX)
                m_maxX = s.x + w / 2;
            first = false;
        }
    }
}

void OrderedPlacer::placeNodes()
{
    m_rects.resize(m_n);
    for (std::size_t i = 0; i < m_n; ++i) {
        const auto r = static_cast<std::size_t>(m_rankOf[i]);
        const LayoutGraph::Node &node = m_graph.nodes[i];
        m_rects[i]
            = { xOf(i) - m_minX - node.width / 2,
                m_rankTop[r] + (m_rankHeight[r] - node.height) / 2, node.width, node.height };
    }
}

// Written last, once the slots are gone (the placement's peak is where the routes are decided).
void OrderedPlacer::writeNodes(Layout &layout)
{
    // Appended in id order (4 bytes a node to sort, not a copy of the rectangles).
    const std::vector<std::uint32_t> byId
        = sortedIndices(m_n, [&](std::uint32_t a, std::uint32_t b) {
              return m_graph.nodes[a].id < m_graph.nodes[b].id;
          });
    layout.nodes.clear();
    layout.nodes.reserve(m_n);
    for (std::uint32_t i : byId) {
        const Box &b = m_rects[i];
        layout.nodes.emplace(m_graph.nodes[i].id, LayoutRect(b.x, b.y, b.width, b.height));
    }
    layout.bbox = { 0, 0, m_maxX - m_minX, m_height };
}

// The rank and slot of each node are read last by placeNodes.
void OrderedPlacer::releaseNodeSlots()
{
    std::vector<int>().swap(m_rankOf);
    std::vector<std::uint32_t>().swap(m_slotOf);
}

// What only the sweeps and the threading need goes before the routes are made (the peak of a
// deep graph's placement).
void OrderedPlacer::releaseSweepState()
{
    // Swapped with empty vectors: assigning `{}` would keep the capacity.
    auto release = [](auto &v) { std::remove_reference_t<decltype(v)>().swap(v); };
    release(m_neighbourStart);
    release(m_neighbours);
    release(m_desired);
    release(m_left);
    release(m_right);
    release(m_values);
}

} // namespace cleave::placement

namespace cleave {

void placeOrderedLayout(const LayoutGraph &graph, const std::vector<int> &rank,
                        const std::vector<int> &order, Layout &layout)
{
    placement::OrderedPlacer placer(graph, rank, order);
    placer.buildSlots();
    placer.collectNeighbours();
    placer.sweepMedians();
    placer.threadLongEdges();
    placer.sweepMedians();
    placer.releaseSweepState();
    placer.placeVertically();
    placer.placeNodes();
    placer.releaseNodeSlots();
    placer.routeEdges(layout);
    placer.writeNodes(layout);
}

} // namespace cleave
