// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/OrderedPlacement.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

namespace cleave {

namespace {

constexpr double nodeSeparation = 18;
constexpr double dummyWidth = 8;
constexpr double dummySeparation = 4;
constexpr double rankSeparation = 30;
constexpr double arrowLength = 7;
constexpr int sweeps = 6;
// A long edge keeps its vertical lane while it stays this clear of nodes and this close to the
// straight line between its ends.
constexpr double laneMargin = 4;
constexpr double maxDrift = 150;

struct Slot
{
    int node = -1; // index into LayoutGraph::nodes, -1 for a gap left for a long edge
    double width = dummyWidth;
    double x = 0; // centre
    bool used = false;
};

// The average of a left- and a right-justified packing towards `desired`: both keep the order
// and the minimum gaps, so their average does too.
void placeRank(std::vector<Slot> &slots, const std::vector<double> &desired,
               std::vector<double> &left, std::vector<double> &right)
{
    const std::size_t n = slots.size();
    if (n == 0)
        return;
    auto gap = [&](std::size_t i) {
        const bool dummy = slots[i - 1].node < 0 || slots[i].node < 0;
        return (slots[i - 1].width + slots[i].width) / 2
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

void addSegment(LayoutSpline &s, LayoutPoint p, LayoutPoint q)
{
    if (s.points.empty())
        s.points.push_back(p);
    const std::size_t m = s.points.size();
    if (p.x == q.x && m >= 4 && s.points[m - 4].x == p.x && s.points[m - 1] == p) {
        // A straight vertical run continues: lengthen its last segment instead of adding one
        // (long edges pass thousands of ranks in a deep model; keep their routes short).
        const LayoutPoint start = s.points[m - 4];
        const double half = (q.y - start.y) / 2;
        s.points[m - 3] = { p.x, start.y + half };
        s.points[m - 2] = { q.x, q.y - half };
        s.points[m - 1] = q;
        return;
    }
    const double dy = (q.y - p.y) / 2;
    s.points.push_back({ p.x, p.y + dy });
    s.points.push_back({ q.x, q.y - dy });
    s.points.push_back(q);
}

/// The state of one placement: ranks, the slots of each rank (nodes and the gaps dot left for
/// long edges) and, once placed, node rectangles; each step of placeOrderedLayout is a method.
class OrderedPlacer
{
public:
    OrderedPlacer(const LayoutGraph &graph, const std::vector<int> &rank,
                  const std::vector<int> &order)
        : m_graph(graph)
        , m_order(order)
        , m_n(graph.nodes.size())
    {
        compressRanks(rank);
    }

    void buildSlots();
    void sweepMedians();
    void placeVertically();
    void writeNodes(Layout &layout);
    void routeEdges(Layout &layout);

private:
    void compressRanks(const std::vector<int> &rank);
    [[nodiscard]] std::vector<int> passingEdgeCounts() const;
    [[nodiscard]] double xOf(std::size_t node) const
    {
        return m_slots[static_cast<std::size_t>(m_rankOf[node])][m_slotOf[node]].x;
    }
    void sweepRank(std::vector<Slot> &rankSlots, bool down);
    [[nodiscard]] std::vector<double> arrowTips() const;
    void routeLongEdge(const LayoutGraph::Edge &e, LayoutSpline &s, LayoutPoint &current);
    [[nodiscard]] std::size_t nearestFreeGap(std::size_t rank, double target) const;
    [[nodiscard]] bool laneFree(std::size_t rank, double x) const;

    const LayoutGraph &m_graph;
    const std::vector<int> &m_order;
    const std::size_t m_n;
    std::size_t m_rankCount = 0;
    std::vector<int> m_rankOf; // per node, its rank compressed to 0..R-1
    std::vector<std::vector<Slot>> m_slots; // per rank, in x order
    std::vector<std::size_t> m_slotOf; // per node, its slot in its rank
    std::vector<std::vector<int>> m_preds;
    std::vector<std::vector<int>> m_succs;
    std::vector<double> m_desired; // scratch buffers of the sweeps
    std::vector<double> m_left;
    std::vector<double> m_right;
    std::vector<double> m_values;
    std::vector<double> m_rankTop;
    std::vector<double> m_rankHeight;
    double m_height = 0;
    double m_minX = 0;
    double m_maxX = 0;
    std::vector<LayoutRect> m_rects; // per node
    std::vector<std::vector<std::size_t>> m_gaps; // per rank, its gap slots in x order
};

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
        std::vector<Slot> &slots = m_slots[r];
        int previous = -1;
        for (int node : members) {
            const int o = m_order[static_cast<std::size_t>(node)];
            for (int k = previous + 1; k < o; ++k)
                slots.push_back(Slot {});
            previous = std::max(previous, o);
            m_slotOf[static_cast<std::size_t>(node)] = slots.size();
            slots.push_back(
                Slot { node, m_graph.nodes[static_cast<std::size_t>(node)].width, 0, false });
        }
        const auto gapsSoFar = static_cast<int>(slots.size() - members.size());
        for (int k = gapsSoFar; k < passing[r]; ++k)
            slots.push_back(Slot {});
        double x = 0;
        for (std::size_t i = 0; i < slots.size(); ++i) {
            if (i > 0)
                x += (slots[i - 1].width + slots[i].width) / 2 + nodeSeparation;
            slots[i].x = x;
        }
        for (Slot &s : slots)
            s.x -= x / 2; // centre every rank on 0
    }
}

// Median sweeps, alternately down (towards predecessors) and up (towards successors).
void OrderedPlacer::sweepMedians()
{
    m_preds.assign(m_n, {});
    m_succs.assign(m_n, {});
    for (const LayoutGraph::Edge &e : m_graph.edges) {
        if (e.stub)
            continue;
        m_preds[e.to].push_back(static_cast<int>(e.from));
        m_succs[e.from].push_back(static_cast<int>(e.to));
    }
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        const bool down = sweep % 2 == 0;
        const std::size_t count = m_slots.size();
        for (std::size_t step = 0; step < count; ++step)
            sweepRank(m_slots[down ? step : count - 1 - step], down);
    }
}

void OrderedPlacer::sweepRank(std::vector<Slot> &rankSlots, bool down)
{
    std::vector<double> &desired = m_desired;
    desired.assign(rankSlots.size(), 0);
    for (std::size_t i = 0; i < rankSlots.size(); ++i) {
        desired[i] = rankSlots[i].x;
        if (rankSlots[i].node < 0)
            continue;
        const auto node = static_cast<std::size_t>(rankSlots[i].node);
        const auto &neighbours = down ? m_preds[node] : m_succs[node];
        m_values.clear();
        for (int m : neighbours)
            m_values.push_back(xOf(static_cast<std::size_t>(m)));
        if (m_values.empty())
            continue;
        std::sort(m_values.begin(), m_values.end());
        const std::size_t mid = m_values.size() / 2;
        desired[i]
            = m_values.size() % 2 == 1 ? m_values[mid] : (m_values[mid - 1] + m_values[mid]) / 2;
    }
    // Gaps for long edges carry no wish of their own: they pack against the node on
    // their left (or, before the first node, on their right), so long edges run
    // close beside the nodes they pass instead of at stale far-away positions.
    auto gapAt = [&](std::size_t i) {
        const bool dummy = rankSlots[i - 1].node < 0 || rankSlots[i].node < 0;
        return (rankSlots[i - 1].width + rankSlots[i].width) / 2
            + (dummy ? dummySeparation : nodeSeparation);
    };
    const auto real = std::find_if(rankSlots.begin(), rankSlots.end(),
                                   [](const Slot &slot) { return slot.node >= 0; });
    if (real != rankSlots.end()) {
        const auto firstReal = static_cast<std::size_t>(real - rankSlots.begin());
        for (std::size_t i = firstReal + 1; i < rankSlots.size(); ++i)
            if (rankSlots[i].node < 0)
                desired[i] = desired[i - 1] + gapAt(i);
        for (std::size_t i = firstReal; i-- > 0;)
            desired[i] = desired[i + 1] - gapAt(i + 1);
    }
    placeRank(rankSlots, desired, m_left, m_right);
}

// Every rank is as tall as its tallest node; the horizontal extent covers every slot.
void OrderedPlacer::placeVertically()
{
    m_rankTop.assign(m_slots.size(), 0);
    m_rankHeight.assign(m_slots.size(), 10);
    double y = 0;
    for (std::size_t r = 0; r < m_slots.size(); ++r) {
        for (const Slot &s : m_slots[r])
            if (s.node >= 0)
                m_rankHeight[r] = std::max(m_rankHeight[r],
                                           m_graph.nodes[static_cast<std::size_t>(s.node)].height);
        m_rankTop[r] = y;
        y += m_rankHeight[r] + rankSeparation;
    }
    m_height = std::max(0.0, y - rankSeparation);
    bool first = true;
    for (const auto &rankSlots : m_slots) {
        for (const Slot &s : rankSlots) {
            if (first || s.x - s.width / 2 < m_minX)
                m_minX = s.x - s.width / 2;
            if (first || s.x + s.width / 2 > m_maxX)
                m_maxX = s.x + s.width / 2;
            first = false;
        }
    }
}

void OrderedPlacer::writeNodes(Layout &layout)
{
    m_rects.resize(m_n);
    for (std::size_t i = 0; i < m_n; ++i) {
        const auto r = static_cast<std::size_t>(m_rankOf[i]);
        const LayoutGraph::Node &node = m_graph.nodes[i];
        m_rects[i]
            = { xOf(i) - m_minX - node.width / 2,
                m_rankTop[r] + (m_rankHeight[r] - node.height) / 2, node.width, node.height };
        layout.nodes[node.id] = m_rects[i];
    }
    layout.bbox = { 0, 0, m_maxX - m_minX, m_height };
}

// In-edges of each consumer enter its top side spread by their source's x.
std::vector<double> OrderedPlacer::arrowTips() const
{
    std::vector<std::vector<std::size_t>> inEdges(m_n);
    for (std::size_t k = 0; k < m_graph.edges.size(); ++k)
        inEdges[m_graph.edges[k].to].push_back(k);
    std::vector<double> tipX(m_graph.edges.size(), 0);
    for (std::size_t v = 0; v < m_n; ++v) {
        auto &list = inEdges[v];
        std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
            const LayoutGraph::Edge &ea = m_graph.edges[a];
            const LayoutGraph::Edge &eb = m_graph.edges[b];
            const double xa = ea.stub ? -1e18 : m_rects[ea.from].centerX();
            const double xb = eb.stub ? -1e18 : m_rects[eb.from].centerX();
            return xa < xb;
        });
        for (std::size_t i = 0; i < list.size(); ++i)
            tipX[list[i]] = m_rects[v].x
                + m_rects[v].width * static_cast<double>(i + 1)
                    / static_cast<double>(list.size() + 1);
    }
    return tipX;
}

// The nearest free gap slot of a rank to x = `target` (layout coordinates), searched outwards
// from the closest one; the rank's gap count when none is free nearby.
std::size_t OrderedPlacer::nearestFreeGap(std::size_t rank, double target) const
{
    const std::vector<std::size_t> &rankGaps = m_gaps[rank];
    const std::vector<Slot> &slots = m_slots[rank];
    std::size_t best = rankGaps.size();
    double bestDistance = 0;
    auto lower
        = std::lower_bound(rankGaps.begin(), rankGaps.end(), target - m_minX,
                           [&](std::size_t slot, double x) { return slots[slot].x - m_minX < x; });
    const auto centre = static_cast<std::size_t>(lower - rankGaps.begin());
    for (std::size_t probe = 0; probe < 64 && best == rankGaps.size(); ++probe) {
        for (std::size_t candidate : { centre + probe, centre - probe - 1 }) {
            if (candidate >= rankGaps.size() || slots[rankGaps[candidate]].used)
                continue;
            const double d = std::abs(slots[rankGaps[candidate]].x - m_minX - target);
            if (best == rankGaps.size() || d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
    }
    return best;
}

// True when a vertical line at x = `x` (layout coordinates) passes rank `rank` clear of its
// nodes. Slots are in x order and never overlap: only the two around x can hold it.
bool OrderedPlacer::laneFree(std::size_t rank, double x) const
{
    const std::vector<Slot> &slots = m_slots[rank];
    const auto next = std::lower_bound(slots.begin(), slots.end(), x + m_minX,
                                       [](const Slot &slot, double v) { return slot.x < v; });
    auto clear = [&](std::vector<Slot>::const_iterator it) {
        return it == slots.end() || it->node < 0
            || std::abs(it->x - m_minX - x) > it->width / 2 + laneMargin;
    };
    return clear(next) && (next == slots.begin() || clear(std::prev(next)));
}

// A long edge passes each rank between its ends through the free gap nearest to the straight
// line between its ends (taking it), or straight through when none is free. Once in a lane it
// keeps it while the lane is clear of the rank's nodes and drifts no more than `maxDrift` further
// from that line than it was when taken (a gap far aside stays far aside): the
// route is then one vertical segment over many ranks instead of two curves per rank (a 24k-node
// unrolled LSTM: 3.7 million route points before, and as many bytes x 16 in the cache).
void OrderedPlacer::routeLongEdge(const LayoutGraph::Edge &e, LayoutSpline &s, LayoutPoint &current)
{
    const LayoutRect &from = m_rects[e.from];
    const LayoutRect &to = m_rects[e.to];
    const int ru = m_rankOf[e.from];
    const int rv = m_rankOf[e.to];
    bool inLane = false;
    double laneOffset = 0; // how far from the line the lane was when taken
    for (int r = ru + 1; r < rv; ++r) {
        const auto rr = static_cast<std::size_t>(r);
        const double t = static_cast<double>(r - ru) / static_cast<double>(rv - ru);
        double target = from.centerX() + (to.centerX() - from.centerX()) * t;
        if (inLane && std::abs(current.x - target) <= laneOffset + maxDrift
            && laneFree(rr, current.x)) {
            target = current.x;
        } else {
            const std::size_t best = nearestFreeGap(rr, target);
            if (best < m_gaps[rr].size()) {
                Slot &gap = m_slots[rr][m_gaps[rr][best]];
                gap.used = true;
                laneOffset = std::abs(gap.x - m_minX - target);
                target = gap.x - m_minX;
                inLane = true;
            } else {
                inLane = false;
            }
        }
        addSegment(s, current, { target, m_rankTop[rr] });
        current = { target, m_rankTop[rr] + m_rankHeight[rr] };
        addSegment(s, { target, m_rankTop[rr] }, current);
    }
}

void OrderedPlacer::routeEdges(Layout &layout)
{
    // Dummy slots per rank, sorted by x, for routing long edges.
    m_gaps.assign(m_slots.size(), {});
    for (std::size_t r = 0; r < m_slots.size(); ++r)
        for (std::size_t i = 0; i < m_slots[r].size(); ++i)
            if (m_slots[r][i].node < 0)
                m_gaps[r].push_back(i);

    const std::vector<double> tipX = arrowTips();
    for (std::size_t k = 0; k < m_graph.edges.size(); ++k) {
        const LayoutGraph::Edge &e = m_graph.edges[k];
        const LayoutRect &to = m_rects[e.to];
        LayoutSpline s;
        s.stub = e.stub;
        s.hasArrow = true;
        s.arrowTip = { tipX[k], to.y };
        const LayoutPoint end { tipX[k], to.y - arrowLength };
        if (e.stub) {
            addSegment(s, { tipX[k], to.y - rankSeparation + 6 }, end);
        } else {
            const LayoutRect &from = m_rects[e.from];
            LayoutPoint current { from.centerX(), from.bottom() };
            routeLongEdge(e, s, current);
            addSegment(s, current, end);
        }
        layout.edges[EdgeRef { e.tensor, e.consumer }] = std::move(s);
    }
}

} // namespace

void placeOrderedLayout(const LayoutGraph &graph, const std::vector<int> &rank,
                        const std::vector<int> &order, Layout &layout)
{
    OrderedPlacer placer(graph, rank, order);
    placer.buildSlots();
    placer.sweepMedians();
    placer.placeVertically();
    placer.writeNodes(layout);
    placer.routeEdges(layout);
}

} // namespace cleave
