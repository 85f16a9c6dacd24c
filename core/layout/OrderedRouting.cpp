// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The routes of placeOrderedLayout: where each edge enters its consumer, where long edges pass
// each rank, and the points of every route, written in place in the layout.
#include "core/layout/OrderedPlacer.h"
#include "core/support/SortedIndices.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

namespace cleave::placement {

namespace {

// The end of a route being made: how many points it has so far and where its last segment
// starts (its last point is where the next segment starts: routes are made end to end).
struct RouteTail
{
    double startX = 0;
    double startY = 0;
    std::uint32_t count = 0;
};

// Adds the cubic segment p-q to the route that `tail` ends (at p): counts its points and, unless
// `out` is null, writes them from `out` (the route's first point). The same calls count a
// route's points and then write them in place, so the arithmetic is in doubles (the tail, not
// the rounded points written) and both passes agree.
void addSegment(RouteTail &tail, Point p, Point q, LayoutPoint *out)
{
    auto put = [out](std::uint32_t i, double x, double y) {
        if (out != nullptr)
            out[i] = LayoutPoint(x, y);
    };
    if (tail.count == 0) {
        put(0, p.x, p.y);
        tail.count = 1;
    } else if (p.x == q.x && tail.count >= 4 && tail.startX == p.x) {
        // A straight vertical run continues: lengthen its last segment instead of adding one
        // (long edges pass thousands of ranks in a deep model; keep their routes short).
        const double half = (q.y - tail.startY) / 2;
        put(tail.count - 3, p.x, tail.startY + half);
        put(tail.count - 2, q.x, q.y - half);
        put(tail.count - 1, q.x, q.y);
        return;
    }
    const double dy = (q.y - p.y) / 2;
    put(tail.count, p.x, p.y + dy);
    put(tail.count + 1, q.x, q.y - dy);
    put(tail.count + 2, q.x, q.y);
    tail.startX = p.x;
    tail.startY = p.y;
    tail.count += 3;
}

} // namespace

// In-edges of each consumer enter its top side spread by their source's x.
std::vector<double> OrderedPlacer::arrowTips() const
{
    // The in-edges of node v are inEdges[inStart[v], inStart[v + 1]), in edge order.
    std::vector<std::uint32_t> inStart(m_n + 1, 0);
    for (const LayoutGraph::Edge &e : m_graph.edges)
        ++inStart[e.to + 1];
    for (std::size_t v = 1; v <= m_n; ++v)
        inStart[v] += inStart[v - 1];
    std::vector<std::uint32_t> inEdges(m_graph.edges.size());
    {
        std::vector<std::uint32_t> filled(inStart.begin(), inStart.end() - 1);
        for (std::size_t k = 0; k < m_graph.edges.size(); ++k)
            inEdges[filled[m_graph.edges[k].to]++] = static_cast<std::uint32_t>(k);
    }
    std::vector<double> tipX(m_graph.edges.size(), 0);
    for (std::size_t v = 0; v < m_n; ++v) {
        const std::span<std::uint32_t> list(inEdges.data() + inStart[v],
                                            inEdges.data() + inStart[v + 1]);
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

// True when a vertical line at x = `x` (layout coordinates) passes rank `rank` clear of its
// nodes and no node stands between it and slot `gap` (so the line passes every node on the same
// side as the gap). Slots are in x order and never overlap.
bool OrderedPlacer::laneFree(std::size_t rank, double x, std::size_t gap) const
{
    const std::vector<Slot> &slots = m_slots[rank];
    const auto next = std::lower_bound(slots.begin(), slots.end(), x + m_minX,
                                       [](const Slot &slot, double v) { return slot.x < v; });
    auto clear = [&](std::vector<Slot>::const_iterator it) {
        return it == slots.end() || it->node() < 0
            || std::abs(it->x - m_minX - x) > width(*it) / 2 + laneMargin;
    };
    if (!clear(next) || (next != slots.begin() && !clear(std::prev(next))))
        return false;
    const auto at = static_cast<std::size_t>(next - slots.begin());
    const std::size_t from = std::min(at, gap + 1);
    const std::size_t to = std::max(at, gap);
    for (std::size_t i = from; i < to; ++i)
        if (slots[i].node() >= 0)
            return false;
    return true;
}

// Where each long edge passes `rank` (layout x), left to right: its lane from the rank above
// when that is free and near its gap, else its gap. The gaps are in the edges' order; a kept
// lane that would meet or pass its left neighbour's route falls back to its gap, and so, when
// still needed, do the neighbours before it: the routes keep the order.
void OrderedPlacer::passRank(std::size_t rank, const std::vector<double> &laneX,
                             std::vector<Pass> &passes) const
{
    passes.clear();
    const std::vector<Slot> &slots = m_slots[rank];
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (slots[i].edge() < 0)
            continue;
        const auto k = static_cast<std::size_t>(slots[i].edge());
        const double gap = slots[i].x - m_minX;
        const double lane = laneX[k];
        const bool keep = std::abs(lane - gap) <= laneReach && laneFree(rank, lane, i);
        passes.push_back({ k, gap, keep ? lane : gap });
    }
    for (std::size_t i = 1; i < passes.size(); ++i) {
        if (passes[i].x > passes[i - 1].x + dummySeparation)
            continue;
        passes[i].x = passes[i].gap;
        for (std::size_t j = i; j > 0 && passes[j].x <= passes[j - 1].x + dummySeparation; --j)
            passes[j - 1].x = passes[j - 1].gap;
    }
}

// Where a route starts: its source's bottom centre (a stub starts just above its consumer
// instead: replayRoute).
Point OrderedPlacer::routeStart(std::size_t edge) const
{
    const Box &from = m_rects[m_graph.edges[edge].from];
    return { from.centerX(), from.bottom() };
}

// Walks every long edge rank by rank, top to bottom, as passRank says it passes each rank, and
// keeps what it decides as runs: ranks one edge passes in a row at one x (a kept lane is one run
// over many ranks), from which replayRoute makes the route edge by edge without the ranks'
// slots. Each rank's slots are released as soon as the walk has passed it (the slots are the
// bulk of a deep graph's placement: 7.7 MB of rnnt's operators).
void OrderedPlacer::findRuns()
{
    const std::size_t edgeCount = m_graph.edges.size();
    std::vector<double> laneX(edgeCount); // where each edge is, one rank up
    std::vector<std::uint32_t> lastRun(edgeCount, noRun);
    for (std::size_t k = 0; k < edgeCount; ++k)
        laneX[k] = routeStart(k).x;
    m_firstRun.assign(edgeCount, noRun);
    m_runs.clear();
    std::vector<Pass> passes;
    for (std::size_t r = 0; r < m_slots.size(); ++r) {
        if (r > 0)
            passRank(r, laneX, passes);
        std::vector<Slot>().swap(m_slots[r]);
        if (r == 0)
            continue;
        for (const Pass &pass : passes) {
            const std::size_t k = pass.edge;
            laneX[k] = pass.x;
            const std::uint32_t last = lastRun[k];
            if (last != noRun && m_runs[last].last + 1 == r && m_runs[last].x == pass.x) {
                m_runs[last].last = static_cast<std::uint32_t>(r);
                continue;
            }
            const auto run = static_cast<std::uint32_t>(m_runs.size());
            m_runs.push_back(
                { pass.x, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r), noRun });
            (last == noRun ? m_firstRun[k] : m_runs[last].next) = run;
            lastRun[k] = run;
        }
    }
}

// Makes route `edge` from its runs: it leaves its source's bottom centre, passes each rank of a
// run at the run's x, from the rank's top to its bottom, and ends at its arrow. Counts its points
// and, unless `out` is null, writes them from `out` (its first point).
std::uint32_t OrderedPlacer::replayRoute(std::size_t edge, double tipX, LayoutPoint *out) const
{
    RouteTail tail;
    Point current = routeStart(edge);
    const LayoutGraph::Edge &e = m_graph.edges[edge];
    if (!e.stub) {
        // A source shorter than its rank first drops to the rank's bottom: curving off sideways
        // from its own bottom, the route grazed the taller nodes beside it (rnnt: 4 segments
        // through nodes, counted from the drawing by tests/bench/svg_crossings.py).
        // The ranks are gone by now (releaseNodeSlots): the source's rank is the last one
        // that starts at or above its top.
        const auto above = std::upper_bound(m_rankTop.begin(), m_rankTop.end(), m_rects[e.from].y);
        const auto rank = static_cast<std::size_t>(
            std::max<std::ptrdiff_t>(0, (above - m_rankTop.begin()) - 1));
        const double bottom = m_rankTop[rank] + m_rankHeight[rank];
        if (current.y < bottom) {
            addSegment(tail, current, { current.x, bottom }, out);
            current.y = bottom;
        }
    }
    for (std::uint32_t i = m_firstRun[edge]; i != noRun; i = m_runs[i].next) {
        const Run &run = m_runs[i];
        const double top = m_rankTop[run.first];
        addSegment(tail, current, { run.x, top }, out);
        current = { run.x, top + m_rankHeight[run.first] };
        addSegment(tail, { run.x, top }, current, out);
        if (run.last > run.first) {
            // Further down the lane every piece is vertical at the same x: addSegment would
            // lengthen the last segment rank by rank, and its points depend only on where that
            // segment starts and ends, so one call to the run's last bottom makes the same
            // points.
            const Point end { run.x, m_rankTop[run.last] + m_rankHeight[run.last] };
            addSegment(tail, current, end, out);
            current = end;
        }
    }
    const Box &to = m_rects[e.to];
    addSegment(tail, e.stub ? Point { tipX, to.y - rankSeparation + 6 } : current,
               { tipX, to.y - arrowLength }, out);
    return tail.count;
}

// The routes are made in place in the layout's one array of points: findRuns decides every
// route, replayRoute counts each route's points, the edges are appended in id order with their
// counts, and replayRoute writes the points (no route grown one segment at a time, no copy of
// the routes to sort).
void OrderedPlacer::routeEdges(Layout &layout)
{
    const std::size_t edgeCount = m_graph.edges.size();
    findRuns();
    std::vector<std::vector<Slot>>().swap(m_slots);
    const std::vector<double> tipX = arrowTips();
    std::vector<std::uint32_t> counts(edgeCount);
    std::size_t total = 0;
    for (std::size_t k = 0; k < edgeCount; ++k) {
        counts[k] = replayRoute(k, tipX[k], nullptr);
        total += counts[k];
    }
    const std::vector<std::uint32_t> byKey = sortedIndices(
        edgeCount, [&](std::uint32_t a, std::uint32_t b) { return keyOf(a) < keyOf(b); });
    layout.edges.clear();
    layout.edges.reserve(edgeCount, total);
    for (std::uint32_t k : byKey) {
        const LayoutGraph::Edge &e = m_graph.edges[k];
        // A repeated id (never made by buildLayoutGraph) keeps its first route.
        if (layout.edges.append(keyOf(k), counts[k], { tipX[k], m_rects[e.to].y }, true, e.stub))
            replayRoute(k, tipX[k], layout.edges.points(layout.edges.size() - 1).data());
    }
}

} // namespace cleave::placement
