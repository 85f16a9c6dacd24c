// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/SceneBuilder.h"

#include "ui/scene/GraphItems.h"
#include "ui/scene/ItemTile.h"
#include "ui/scene/OpCategory.h"

#include <QGraphicsScene>
#include <QTimer>

#include <utility>

namespace cleave::ui {

namespace {

// The clock is read once per this many items (a node or an edge takes a few microseconds).
constexpr std::size_t itemsPerClockCheck = 64;

} // namespace

SceneBuilder::SceneBuilder(QGraphicsScene &scene, std::unordered_map<NodeId, NodeItem *> &nodeItems,
                           std::map<EdgeRef, EdgeItem *> &edgeItems, QObject *parent)
    : QObject(parent)
    , m_scene(&scene)
    , m_nodeItems(nodeItems)
    , m_edgeItems(edgeItems)
    , m_next(new QTimer(this))
{
    m_next->setSingleShot(true);
    m_next->setInterval(0);
    connect(m_next, &QTimer::timeout, this, &SceneBuilder::runSlice);
}

SceneBuilder::~SceneBuilder() = default;

void SceneBuilder::setScene(QGraphicsScene &scene)
{
    stop();
    m_scene = &scene;
}

void SceneBuilder::start(Request request)
{
    stop();
    m_request = std::move(request);
    const std::size_t nodes = m_request.layoutGraph->nodes.size();
    const std::size_t edges = m_request.layoutGraph->edges.size();
    m_nodeMade.assign(nodes, false);
    m_firstNode.assign(nodes, false);
    m_edgeMade.assign(edges, false);
    m_labelled.assign(edges, false);
    // The tiles first: their boxes come from the layout, before any item is made. Edge tiles
    // lie under node tiles, as edges lie under nodes.
    TilePlan tiles = planTiles(*m_request.layoutGraph, *m_request.layout);
    for (const QRectF &box : tiles.edgeTiles) {
        m_edgeTiles.push_back(new ItemTile(box, 1));
        m_scene->addItem(m_edgeTiles.back());
    }
    for (const QRectF &box : tiles.nodeTiles) {
        m_nodeTiles.push_back(new ItemTile(box, 2));
        m_scene->addItem(m_nodeTiles.back());
    }
    m_nodeTile = std::move(tiles.nodeTile);
    m_edgeTile = std::move(tiles.edgeTile);
    m_step = Step::FirstNodes;
    m_cursor = 0;
    m_building = true;
    runSlice();
}

void SceneBuilder::stop()
{
    m_next->stop();
    m_building = false;
    m_step = Step::Done;
    m_request = Request {};
    m_labelledTensors.clear();
    m_texts.clear();
    m_nodeTiles.clear(); // they stay in the scene
    m_edgeTiles.clear();
    m_nodeTile.clear();
    m_edgeTile.clear();
    m_nodeMade.clear();
    m_edgeMade.clear();
    m_labelled.clear();
    m_firstNode.clear();
}

void SceneBuilder::runSlice()
{
    QElapsedTimer clock;
    clock.start();
    // The whole scene is marked for repainting: Qt then skips its per-item pass over the items
    // marked dirty by addItem(), which otherwise keeps a map of painted view rects in every
    // new item (1.3 KB per item: a 100k-node scene held 300 MB more than built in one go).
    m_scene->update();
    while (m_step != Step::Done) {
        if (!runStep(clock)) {
            m_next->start(); // the rest after the events waiting meanwhile (paints, input)
            return;
        }
        m_step = static_cast<Step>(static_cast<int>(m_step) + 1);
        m_cursor = 0;
    }
    stop();
    emit built();
}

bool SceneBuilder::runStep(const QElapsedTimer &clock)
{
    const LayoutGraph &lg = *m_request.layoutGraph;
    const Layout &layout = *m_request.layout;
    const std::size_t count
        = m_step == Step::FirstNodes || m_step == Step::Nodes ? lg.nodes.size() : lg.edges.size();
    for (; m_cursor < count; ++m_cursor) {
        if (m_budget > 0 && m_cursor % itemsPerClockCheck == itemsPerClockCheck - 1
            && clock.elapsed() >= m_budget) {
            return false;
        }
        const std::size_t i = m_cursor;
        switch (m_step) {
        case Step::FirstNodes:
            if (const LayoutRect *r = layout.rect(lg.nodes[i].id); r != nullptr
                && m_request.first.intersects(QRectF(r->x, r->y, r->width, r->height))) {
                m_firstNode[i] = true;
                makeNode(i);
            }
            break;
        case Step::Labels: {
            // One shape label per tensor, on its first drawn edge in the layout graph's order.
            const LayoutGraph::Edge &e = lg.edges[i];
            const LayoutSpline *s = layout.spline(e.tensor, e.consumer);
            if (s != nullptr && !s->points.empty())
                m_labelled[i] = m_labelledTensors.insert(e.tensor).second;
            break;
        }
        case Step::FirstEdges:
            if (m_firstNode[lg.edges[i].from] || m_firstNode[lg.edges[i].to])
                makeEdge(i);
            break;
        case Step::Nodes:
            makeNode(i);
            break;
        case Step::Edges:
            makeEdge(i);
            break;
        case Step::Done:
            return true;
        }
    }
    return true;
}

void SceneBuilder::makeNode(std::size_t index)
{
    if (m_nodeMade[index])
        return;
    m_nodeMade[index] = true;
    const LayoutGraph::Node &n = m_request.layoutGraph->nodes[index];
    const LayoutRect *r = m_request.layout->rect(n.id);
    if (r == nullptr || m_nodeTile[index] == TilePlan::none)
        return;
    const Graph &graph = *m_request.graph;
    const NodeLabel label = nodeLabel(graph, n.id);
    // Op names and shapes repeat across thousands of nodes: each distinct text is held once
    // (QString shares it). Tooltips are made when asked for (CanvasToolTips).
    auto shared = [this](const std::string &text) {
        auto [it, added] = m_texts.try_emplace(text);
        if (added)
            it->second = QString::fromStdString(text);
        return it->second;
    };
    auto *item = new NodeItem(n.id, QRectF(r->x, r->y, r->width, r->height), n.role,
                              opCategory(graph, n.id), shared(label.title), shared(label.subtitle));
    if (m_request.marks != nullptr)
        if (auto mark = m_request.marks->find(n.id); mark != m_request.marks->end())
            item->setMark(mark->second);
    item->setParentItem(m_nodeTiles[m_nodeTile[index]]);
    m_nodeItems.emplace(n.id, item);
}

void SceneBuilder::makeEdge(std::size_t index)
{
    if (m_edgeMade[index])
        return;
    m_edgeMade[index] = true;
    const LayoutGraph::Edge &e = m_request.layoutGraph->edges[index];
    const LayoutSpline *s = m_request.layout->spline(e.tensor, e.consumer);
    if (s == nullptr || s->points.empty() || m_edgeTile[index] == TilePlan::none)
        return;
    const EdgeRef key { e.tensor, e.consumer };
    // The item points into the layout, which outlives the scene's items.
    auto *item = new EdgeItem(key, s, m_labelled[index] ? m_request.labels : nullptr);
    item->setParentItem(m_edgeTiles[m_edgeTile[index]]);
    m_edgeItems.emplace(key, item);
}

} // namespace cleave::ui
