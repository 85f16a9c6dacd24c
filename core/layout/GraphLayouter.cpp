// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/GraphLayouter.h"

#include "core/layout/LayeredOrdering.h"
#include "core/layout/LayoutCache.h"
#include "core/layout/OrderedPlacement.h"
#include "core/support/SortedIndices.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

namespace cleave {

namespace {

// cgraph and the layout plugins keep global state: one layout at a time, process-wide.
std::mutex &graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

GVC_t *graphvizContext()
{
    // Created once (it loads the plugin configuration) and kept for the process' lifetime.
    static GVC_t *context = [] {
        agseterr(AGERR); // warnings would go to stderr; errors are reported by return values
        return gvContext();
    }();
    return context;
}

void appendNumber(std::string &out, double v)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", v);
    out += buffer;
}

// Parses "n123" / "s45" node names.
bool parseName(const char *name, char prefix, std::uint32_t &index)
{
    if (name == nullptr || name[0] != prefix)
        return false;
    char *end = nullptr;
    const unsigned long v = std::strtoul(name + 1, &end, 10);
    if (end == name + 1 || *end != '\0')
        return false;
    index = static_cast<std::uint32_t>(v);
    return true;
}

struct AgraphCloser
{
    GVC_t *gvc;
    Agraph_t *graph;
    bool laidOut = false;
    AgraphCloser(GVC_t *context, Agraph_t *g)
        : gvc(context)
        , graph(g)
    {
    }
    AgraphCloser(const AgraphCloser &) = delete;
    AgraphCloser &operator=(const AgraphCloser &) = delete;
    ~AgraphCloser() { close(); }
    void close()
    {
        if (graph == nullptr)
            return;
        if (laidOut)
            gvFreeLayout(gvc, graph);
        agclose(graph);
        graph = nullptr;
    }
};

LayoutRect rectFromCentre(double cx, double cy, double w, double h, double top)
{
    return { cx - w / 2, (top - cy) - h / 2, w, h };
}

// The drawn edge of Graphviz edge `e` (its index into lg.edges), or false when it has none.
bool drawnEdge(Agedge_t *e, const LayoutGraph &lg, std::uint32_t &index)
{
    char idName[] = "id";
    const char *id = agget(e, idName);
    return id != nullptr && parseName(id, 'e', index) && index < lg.edges.size();
}

// How many points a Graphviz route has once its pieces are joined (later pieces continue the
// first one: their duplicated start point is skipped).
std::size_t routePointCount(const splines *spl)
{
    std::size_t count = 0;
    for (int b = 0; spl != nullptr && b < spl->size; ++b)
        count += static_cast<std::size_t>(std::max(0, spl->list[b].size - (b == 0 ? 0 : 1)));
    return count;
}

// Graphviz hands nodes and edges over in its own order; they are written into the layout in id
// order without a sorted copy: a first pass keeps each node's rectangle and each edge's point
// count and arrowhead by index, then the edges are appended in id order and a second pass
// writes their points in place.
void readFullLayout(Agraph_t *g, const LayoutGraph &lg, Layout &layout)
{
    const boxf bb = GD_bb(g);
    const double top = bb.UR.y;
    layout.bbox = { 0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y };
    struct Drawn
    {
        std::uint32_t points = UINT32_MAX; // UINT32_MAX: not drawn
        LayoutPoint arrowTip;
        bool hasArrow = false;
    };
    std::vector<LayoutRect> rects(lg.nodes.size());
    std::vector<bool> placed(lg.nodes.size(), false);
    std::vector<Drawn> drawn(lg.edges.size());
    for (Agnode_t *n = agfstnode(g); n != nullptr; n = agnxtnode(g, n)) {
        std::uint32_t index = 0;
        if (parseName(agnameof(n), 'n', index) && index < lg.nodes.size()) {
            const pointf c = ND_coord(n);
            rects[index] = rectFromCentre(c.x - bb.LL.x, c.y, lg.nodes[index].width,
                                          lg.nodes[index].height, top);
            placed[index] = true;
        }
        for (Agedge_t *e = agfstout(g, n); e != nullptr; e = agnxtout(g, e)) {
            std::uint32_t edgeIndex = 0;
            if (!drawnEdge(e, lg, edgeIndex))
                continue;
            Drawn &d = drawn[edgeIndex];
            const splines *spl = ED_spl(e);
            d.points = static_cast<std::uint32_t>(routePointCount(spl));
            for (int b = 0; spl != nullptr && b < spl->size; ++b) {
                if (spl->list[b].eflag != 0) {
                    d.hasArrow = true;
                    d.arrowTip = { spl->list[b].ep.x - bb.LL.x, top - spl->list[b].ep.y };
                }
            }
        }
    }
    const std::vector<std::uint32_t> nodeOrder
        = sortedIndices(lg.nodes.size(), [&](std::uint32_t a, std::uint32_t b) {
              return lg.nodes[a].id < lg.nodes[b].id;
          });
    layout.nodes.reserve(lg.nodes.size());
    for (std::uint32_t i : nodeOrder)
        if (placed[i])
            layout.nodes.emplace(lg.nodes[i].id, rects[i]);
    auto keyOf = [&](std::uint32_t k) {
        return EdgeRef { lg.edges[k].tensor, lg.edges[k].consumer };
    };
    // position[k]: edge k's index in the layout once appended.
    std::vector<std::uint32_t> position = sortedIndices(
        lg.edges.size(), [&](std::uint32_t a, std::uint32_t b) { return keyOf(a) < keyOf(b); });
    std::size_t total = 0;
    std::size_t count = 0;
    for (const Drawn &d : drawn) {
        if (d.points != UINT32_MAX) {
            total += d.points;
            ++count;
        }
    }
    layout.edges.reserve(count, total);
    {
        std::vector<std::uint32_t> byKey;
        byKey.swap(position);
        position.assign(lg.edges.size(), UINT32_MAX);
        for (std::uint32_t k : byKey) {
            const Drawn &d = drawn[k];
            if (d.points != UINT32_MAX
                && layout.edges.append(keyOf(k), d.points, d.arrowTip, d.hasArrow,
                                       lg.edges[k].stub))
                position[k] = static_cast<std::uint32_t>(layout.edges.size() - 1);
        }
    }
    for (Agnode_t *n = agfstnode(g); n != nullptr; n = agnxtnode(g, n)) {
        for (Agedge_t *e = agfstout(g, n); e != nullptr; e = agnxtout(g, e)) {
            std::uint32_t edgeIndex = 0;
            if (!drawnEdge(e, lg, edgeIndex) || position[edgeIndex] == UINT32_MAX)
                continue;
            const splines *spl = ED_spl(e);
            const std::span<LayoutPoint> points = layout.edges.points(position[edgeIndex]);
            if (routePointCount(spl) != points.size())
                continue; // not the route counted for this id (Graphviz repeated it): left as
                          // counted
            std::size_t at = 0;
            for (int b = 0; spl != nullptr && b < spl->size; ++b) {
                const bezier &bz = spl->list[b];
                for (int i = (b == 0 ? 0 : 1); i < bz.size; ++i)
                    points[at++] = { bz.list[i].x - bb.LL.x, top - bz.list[i].y };
            }
        }
    }
}

double msSince(std::chrono::steady_clock::time_point started)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
        .count();
}

// Cleave's own ranking and ordering plus the linear placement: no Graphviz, any depth.
LayoutResult layoutWithoutGraphviz(const LayoutGraph &graph, const LayoutControl &control,
                                   std::chrono::steady_clock::time_point started)
{
    LayoutResult result;
    control.report(5, "rank and order");
    std::vector<int> rank;
    std::vector<int> order;
    rankAndOrder(graph, rank, order);
    if (control.isCancelled()) {
        result.status = LayoutResult::Status::Cancelled;
        result.message = "layout cancelled";
        return result;
    }
    control.report(60, "place");
    Layout layout;
    layout.engine = "cleave-order";
    placeOrderedLayout(graph, rank, order, layout);
    if (control.isCancelled()) {
        result.status = LayoutResult::Status::Cancelled;
        result.message = "layout cancelled";
        return result;
    }
    control.report(100, "done");
    result.layout = std::make_shared<const Layout>(std::move(layout));
    result.status = LayoutResult::Status::Ok;
    result.milliseconds = msSince(started);
    return result;
}

} // namespace

std::string chooseEngine(const LayoutGraph &graph, const LayoutSettings &settings)
{
    // Checked first and whatever is forced: Graphviz crashes on graphs this deep.
    if (graph.nodes.size() >= graphvizRankLimit && longestPathDepth(graph) >= graphvizRankLimit)
        return "cleave-order";
    if (!settings.engine.empty())
        return settings.engine;
    if (graph.nodes.size() > settings.graphvizNodeLimit
        || orderingPositions(graph) > settings.graphvizOrderingLimit)
        return "cleave-order";
    return graph.nodes.size() > settings.fullDotLimit ? "dot-order" : "dot";
}

std::string layoutGraphToDot(const LayoutGraph &graph, const std::string &engine,
                             const LayoutSettings &settings)
{
    const bool ordering = engine == "dot-order";
    std::string out;
    out.reserve(64 + graph.nodes.size() * 48 + graph.edges.size() * 32);
    out += "digraph cleave {\n  graph [rankdir=TB newrank=true nodesep=0.25 ranksep=0.4 "
           "splines=spline";
    if (ordering)
        out += " phase=2";
    if (graph.nodes.size() >= settings.tuneLimit) {
        // Past 10k nodes even crossing minimisation's first pass takes seconds (24k-node
        // unrolled LSTM: 15 s at mclimit=0.5, 5.7 s at 0.05): keep only that pass.
        out += graph.nodes.size() > 10000 ? " nslimit=0.01 nslimit1=0.01 mclimit=0.05"
                                          : " nslimit=0.01 nslimit1=0.01 mclimit=0.5";
    }
    out += "];\n  node [shape=box fixedsize=true label=\"\"];\n  edge [arrowsize=0.6];\n";
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        out += "  n";
        out += std::to_string(i);
        out += " [width=";
        appendNumber(out, graph.nodes[i].width / 72.0);
        out += " height=";
        appendNumber(out, graph.nodes[i].height / 72.0);
        out += "];\n";
    }
    for (std::size_t k = 0; k < graph.edges.size(); ++k) {
        const LayoutGraph::Edge &e = graph.edges[k];
        if (e.stub) {
            // Dropped from ordering (Cleave draws the stub); a local point node in full dot.
            if (ordering)
                continue;
            out += "  s" + std::to_string(k) + " [shape=point width=0.05 height=0.05];\n";
            out += "  s" + std::to_string(k);
        } else {
            out += "  n" + std::to_string(e.from);
        }
        out += " -> n" + std::to_string(e.to) + " [id=e" + std::to_string(k) + "];\n";
    }
    out += "}\n";
    return out;
}

LayoutResult computeLayout(const LayoutGraph &graph, const LayoutSettings &settings,
                           const LayoutControl &control)
{
    const auto started = std::chrono::steady_clock::now();
    LayoutResult result;
    auto cancelled = [&] {
        result.status = LayoutResult::Status::Cancelled;
        result.message = "layout cancelled";
        return result;
    };
    const std::string engine = chooseEngine(graph, settings);
    if (engine == "cleave-order")
        return layoutWithoutGraphviz(graph, control, started);
    control.report(2, "build graph");
    const std::string dot = layoutGraphToDot(graph, engine, settings);
    if (control.isCancelled())
        return cancelled();

    std::unique_lock lock(graphvizMutex());
    if (control.isCancelled())
        return cancelled();
    GVC_t *gvc = graphvizContext();
    if (gvc == nullptr) {
        result.message = "Graphviz could not be initialised";
        return result;
    }
    control.report(8, "build graph");
    AgraphCloser g(gvc, agmemread(dot.c_str()));
    if (g.graph == nullptr) {
        result.message = "Graphviz rejected the graph";
        return result;
    }
    if (control.isCancelled())
        return cancelled();
    control.report(15, "layout");
    if (gvLayout(gvc, g.graph, "dot") != 0) {
        result.message = "Graphviz dot layout failed";
        return result;
    }
    g.laidOut = true;
    if (control.isCancelled())
        return cancelled();
    control.report(85, "read back");
    Layout layout;
    layout.engine = engine;
    if (engine == "dot-order") {
        std::vector<int> rank(graph.nodes.size(), 0);
        std::vector<int> order(graph.nodes.size(), 0);
        char rankName[] = "rank";
        char orderName[] = "order";
        for (Agnode_t *n = agfstnode(g.graph); n != nullptr; n = agnxtnode(g.graph, n)) {
            std::uint32_t index = 0;
            if (!parseName(agnameof(n), 'n', index) || index >= graph.nodes.size())
                continue;
            const char *r = agget(n, rankName);
            const char *o = agget(n, orderName);
            rank[index] = r != nullptr ? std::atoi(r) : 0;
            order[index] = o != nullptr ? std::atoi(o) : 0;
        }
        g.close();
        lock.unlock(); // the placement is Cleave's own code: let the next layout start
        placeOrderedLayout(graph, rank, order, layout);
    } else {
        readFullLayout(g.graph, graph, layout);
    }
    if (control.isCancelled())
        return cancelled();
    control.report(100, "done");
    result.layout = std::make_shared<const Layout>(std::move(layout));
    result.status = LayoutResult::Status::Ok;
    result.milliseconds
        = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
    return result;
}

std::string layoutCacheKey(const std::string &modelKey, const LayoutGraph &graph,
                           const LayoutSettings &settings)
{
    // The engine and the settings are part of the key: the same graph drawn by another engine
    // or with other limits is another layout.
    return LayoutCache::keyFor(modelKey, graph) + "-" + chooseEngine(graph, settings) + "-"
        + std::to_string(settings.fullDotLimit) + "." + std::to_string(settings.tuneLimit) + "."
        + std::to_string(settings.graphvizNodeLimit) + "."
        + std::to_string(settings.graphvizOrderingLimit);
}

LayoutResult computeLayoutCached(LayoutCache *cache, const std::string &modelKey,
                                 const LayoutGraph &graph, const LayoutSettings &settings,
                                 const LayoutControl &control)
{
    const std::string key
        = cache != nullptr ? layoutCacheKey(modelKey, graph, settings) : std::string();
    if (cache != nullptr && !modelKey.empty()) {
        if (auto hit = cache->find(key)) {
            control.report(100, "done");
            LayoutResult result;
            result.status = LayoutResult::Status::Ok;
            result.layout = std::move(hit);
            result.fromCache = true;
            return result;
        }
    }
    LayoutResult result = computeLayout(graph, settings, control);
    if (result.isOk() && cache != nullptr && !modelKey.empty())
        cache->store(key, result.layout);
    return result;
}

} // namespace cleave
