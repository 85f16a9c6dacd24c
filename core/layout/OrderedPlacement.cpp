// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/OrderedPlacement.h"

#include <algorithm>
#include <map>

namespace cleave {

namespace {

constexpr double nodeSeparation = 18;
constexpr double dummyWidth = 8;
constexpr double dummySeparation = 4;
constexpr double rankSeparation = 30;
constexpr double arrowLength = 7;
constexpr int sweeps = 6;

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

} // namespace

void placeOrderedLayout(const LayoutGraph &graph, const std::vector<int> &rank,
                        const std::vector<int> &order, Layout &layout)
{
    const std::size_t n = graph.nodes.size();
    // Compress ranks to 0..R-1.
    std::vector<int> ranks(rank.begin(), rank.end());
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::vector<int> rankOf(n);
    for (std::size_t i = 0; i < n; ++i)
        rankOf[i] = static_cast<int>(std::lower_bound(ranks.begin(), ranks.end(), rank[i])
                                     - ranks.begin());

    // Long edges pass each rank between their ends through one of dot's virtual nodes; the
    // positions of those not followed by a real node are invisible in `order`, so count them.
    std::vector<int> passing(ranks.size() + 1, 0);
    for (const LayoutGraph::Edge &e : graph.edges) {
        const int ru = rankOf[e.from];
        const int rv = rankOf[e.to];
        if (e.stub || rv - ru < 2)
            continue;
        ++passing[static_cast<std::size_t>(ru + 1)];
        --passing[static_cast<std::size_t>(rv)];
    }
    for (std::size_t r = 1; r < passing.size(); ++r)
        passing[r] += passing[r - 1];

    std::vector<std::vector<int>> byRank(ranks.size());
    for (std::size_t i = 0; i < n; ++i)
        byRank[static_cast<std::size_t>(rankOf[i])].push_back(static_cast<int>(i));
    std::vector<std::vector<Slot>> slots(ranks.size());
    std::vector<std::size_t> slotOf(n, 0);
    for (std::size_t r = 0; r < byRank.size(); ++r) {
        auto &members = byRank[r];
        std::sort(members.begin(), members.end(), [&](int a, int b) {
            return order[static_cast<std::size_t>(a)] < order[static_cast<std::size_t>(b)];
        });
        int previous = -1;
        for (int node : members) {
            const int o = order[static_cast<std::size_t>(node)];
            for (int k = previous + 1; k < o; ++k)
                slots[r].push_back(Slot {});
            previous = std::max(previous, o);
            slotOf[static_cast<std::size_t>(node)] = slots[r].size();
            slots[r].push_back(
                Slot { node, graph.nodes[static_cast<std::size_t>(node)].width, 0, false });
        }
        const auto gapsSoFar = static_cast<int>(slots[r].size() - members.size());
        for (int k = gapsSoFar; k < passing[r]; ++k)
            slots[r].push_back(Slot {});
        double x = 0;
        for (std::size_t i = 0; i < slots[r].size(); ++i) {
            if (i > 0)
                x += (slots[r][i - 1].width + slots[r][i].width) / 2 + nodeSeparation;
            slots[r][i].x = x;
        }
        for (Slot &s : slots[r])
            s.x -= x / 2; // centre every rank on 0
    }

    std::vector<std::vector<int>> preds(n);
    std::vector<std::vector<int>> succs(n);
    for (const LayoutGraph::Edge &e : graph.edges) {
        if (e.stub)
            continue;
        preds[e.to].push_back(static_cast<int>(e.from));
        succs[e.from].push_back(static_cast<int>(e.to));
    }
    auto xOf = [&](int node) {
        const auto i = static_cast<std::size_t>(node);
        return slots[static_cast<std::size_t>(rankOf[i])][slotOf[i]].x;
    };

    std::vector<double> desired;
    std::vector<double> left;
    std::vector<double> right;
    std::vector<double> values;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        const bool down = sweep % 2 == 0;
        const std::size_t count = slots.size();
        for (std::size_t step = 0; step < count; ++step) {
            const std::size_t r = down ? step : count - 1 - step;
            auto &rankSlots = slots[r];
            desired.assign(rankSlots.size(), 0);
            for (std::size_t i = 0; i < rankSlots.size(); ++i) {
                desired[i] = rankSlots[i].x;
                if (rankSlots[i].node < 0)
                    continue;
                const auto &neighbours = down ? preds[static_cast<std::size_t>(rankSlots[i].node)]
                                              : succs[static_cast<std::size_t>(rankSlots[i].node)];
                values.clear();
                for (int m : neighbours)
                    values.push_back(xOf(m));
                if (values.empty())
                    continue;
                std::sort(values.begin(), values.end());
                const std::size_t mid = values.size() / 2;
                desired[i]
                    = values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
            }
            // Gaps for long edges carry no wish of their own: they pack against the node on
            // their left (or, before the first node, on their right), so long edges run
            // close beside the nodes they pass instead of at stale far-away positions.
            auto gapAt = [&](std::size_t i) {
                const bool dummy = rankSlots[i - 1].node < 0 || rankSlots[i].node < 0;
                return (rankSlots[i - 1].width + rankSlots[i].width) / 2
                    + (dummy ? dummySeparation : nodeSeparation);
            };
            std::size_t firstReal = rankSlots.size();
            for (std::size_t i = 0; i < rankSlots.size() && firstReal == rankSlots.size(); ++i)
                if (rankSlots[i].node >= 0)
                    firstReal = i;
            if (firstReal < rankSlots.size()) {
                for (std::size_t i = firstReal + 1; i < rankSlots.size(); ++i)
                    if (rankSlots[i].node < 0)
                        desired[i] = desired[i - 1] + gapAt(i);
                for (std::size_t i = firstReal; i-- > 0;)
                    desired[i] = desired[i + 1] - gapAt(i + 1);
            }
            placeRank(rankSlots, desired, left, right);
        }
    }

    // Vertical placement: every rank is as tall as its tallest node.
    std::vector<double> rankTop(slots.size(), 0);
    std::vector<double> rankHeight(slots.size(), 10);
    double y = 0;
    for (std::size_t r = 0; r < slots.size(); ++r) {
        for (const Slot &s : slots[r])
            if (s.node >= 0)
                rankHeight[r]
                    = std::max(rankHeight[r], graph.nodes[static_cast<std::size_t>(s.node)].height);
        rankTop[r] = y;
        y += rankHeight[r] + rankSeparation;
    }
    double minX = 0;
    double maxX = 0;
    bool first = true;
    for (const auto &rankSlots : slots) {
        for (const Slot &s : rankSlots) {
            if (first || s.x - s.width / 2 < minX)
                minX = s.x - s.width / 2;
            if (first || s.x + s.width / 2 > maxX)
                maxX = s.x + s.width / 2;
            first = false;
        }
    }
    std::vector<LayoutRect> rects(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto r = static_cast<std::size_t>(rankOf[i]);
        const LayoutGraph::Node &node = graph.nodes[i];
        rects[i] = { xOf(static_cast<int>(i)) - minX - node.width / 2,
                     rankTop[r] + (rankHeight[r] - node.height) / 2, node.width, node.height };
        layout.nodes[node.id] = rects[i];
    }
    layout.bbox = { 0, 0, maxX - minX, std::max(0.0, y - rankSeparation) };

    // Dummy slots per rank, sorted by x, for routing long edges.
    std::vector<std::vector<std::size_t>> gaps(slots.size());
    for (std::size_t r = 0; r < slots.size(); ++r)
        for (std::size_t i = 0; i < slots[r].size(); ++i)
            if (slots[r][i].node < 0)
                gaps[r].push_back(i);

    // In-edges of each consumer enter its top side spread by their source's x.
    std::vector<std::vector<std::size_t>> inEdges(n);
    for (std::size_t k = 0; k < graph.edges.size(); ++k)
        inEdges[graph.edges[k].to].push_back(k);
    std::vector<double> tipX(graph.edges.size(), 0);
    for (std::size_t v = 0; v < n; ++v) {
        auto &list = inEdges[v];
        std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
            const LayoutGraph::Edge &ea = graph.edges[a];
            const LayoutGraph::Edge &eb = graph.edges[b];
            const double xa = ea.stub ? -1e18 : rects[ea.from].centerX();
            const double xb = eb.stub ? -1e18 : rects[eb.from].centerX();
            return xa < xb;
        });
        for (std::size_t i = 0; i < list.size(); ++i)
            tipX[list[i]] = rects[v].x
                + rects[v].width * static_cast<double>(i + 1)
                    / static_cast<double>(list.size() + 1);
    }

    for (std::size_t k = 0; k < graph.edges.size(); ++k) {
        const LayoutGraph::Edge &e = graph.edges[k];
        const LayoutRect &to = rects[e.to];
        LayoutSpline s;
        s.stub = e.stub;
        s.hasArrow = true;
        s.arrowTip = { tipX[k], to.y };
        const LayoutPoint end { tipX[k], to.y - arrowLength };
        if (e.stub) {
            addSegment(s, { tipX[k], to.y - rankSeparation + 6 }, end);
            layout.edges[EdgeRef { e.tensor, e.consumer }] = std::move(s);
            continue;
        }
        const LayoutRect &from = rects[e.from];
        LayoutPoint current { from.centerX(), from.bottom() };
        const int ru = rankOf[e.from];
        const int rv = rankOf[e.to];
        for (int r = ru + 1; r < rv; ++r) {
            const auto rr = static_cast<std::size_t>(r);
            const double t = static_cast<double>(r - ru) / static_cast<double>(rv - ru);
            double target = from.centerX() + (to.centerX() - from.centerX()) * t;
            // The nearest free gap of this rank (slots are in x order).
            auto &rankGaps = gaps[rr];
            std::size_t best = rankGaps.size();
            double bestDistance = 0;
            auto lower = std::lower_bound(
                rankGaps.begin(), rankGaps.end(), target - minX,
                [&](std::size_t slot, double x) { return slots[rr][slot].x - minX < x; });
            const auto centre = static_cast<std::size_t>(lower - rankGaps.begin());
            for (std::size_t probe = 0; probe < 64 && best == rankGaps.size(); ++probe) {
                for (std::size_t candidate : { centre + probe, centre - probe - 1 }) {
                    if (candidate >= rankGaps.size() || slots[rr][rankGaps[candidate]].used)
                        continue;
                    const double d = std::abs(slots[rr][rankGaps[candidate]].x - minX - target);
                    if (best == rankGaps.size() || d < bestDistance) {
                        best = candidate;
                        bestDistance = d;
                    }
                }
            }
            if (best < rankGaps.size()) {
                slots[rr][rankGaps[best]].used = true;
                target = slots[rr][rankGaps[best]].x - minX;
            }
            addSegment(s, current, { target, rankTop[rr] });
            current = { target, rankTop[rr] + rankHeight[rr] };
            addSegment(s, { target, rankTop[rr] }, current);
        }
        addSegment(s, current, end);
        layout.edges[EdgeRef { e.tensor, e.consumer }] = std::move(s);
    }
}

} // namespace cleave
