// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/TileMaterializer.h"

#include "ui/scene/CanvasTheme.h"
#include "ui/scene/GraphItems.h"
#include "ui/scene/ItemTile.h"
#include "ui/scene/LayoutRectF.h"
#include "ui/scene/OpCategory.h"

#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QPainter>

#include <algorithm>
#include <unordered_set>

namespace cleave::ui {

TileMaterializer::TileMaterializer(QGraphicsScene &scene)
    : m_scene(&scene)
{
}

TileMaterializer::~TileMaterializer() = default;

void TileMaterializer::clear()
{
    for (const Tile &tile : m_tiles)
        tile.item->setPlaceholder({}); // the tiles outlive this drawing in a scene disposed later
    m_request = Request {};
    m_graph.reset();
    m_layout.reset();
    m_rectAt.clear();
    m_splineAt.clear();
    m_edgeOfSpline.clear();
    m_nodeOrder.clear();
    m_nodeTile.clear();
    m_edgeTile.clear();
    m_labelled.clear();
    m_tiles.clear(); // their items stay in the scene
    m_texts.clear();
    m_states.reset(0, 0);
    m_made = 0;
}

void TileMaterializer::start(Request request)
{
    clear();
    m_request = std::move(request);
    m_graph = m_request.layoutGraph;
    m_layout = m_request.layout;
    const LayoutGraph &lg = *m_graph;
    const Layout &layout = *m_layout;
    m_rectAt.assign(lg.nodes.size(), notDrawn);
    m_splineAt.assign(lg.edges.size(), notDrawn);
    m_edgeOfSpline.assign(layout.edges.size(), notDrawn);
    m_labelled.assign(lg.edges.size(), false);
    m_states.reset(lg.nodes.size(), lg.edges.size());
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < lg.nodes.size(); ++i) {
        if (const auto it = layout.nodes.find(lg.nodes[i].id); it != layout.nodes.end()) {
            m_rectAt[i] = static_cast<std::uint32_t>(it - layout.nodes.begin());
            ++drawn;
        }
    }
    m_nodeOrder.reserve(drawn);
    for (std::size_t i = 0; i < lg.nodes.size(); ++i)
        if (m_rectAt[i] != notDrawn)
            m_nodeOrder.emplace_back(lg.nodes[i].id, static_cast<std::uint32_t>(i));
    std::sort(m_nodeOrder.begin(), m_nodeOrder.end());
    // One shape label per tensor, on its first drawn edge in the layout graph's order.
    std::unordered_set<TensorRef> labelledTensors;
    labelledTensors.reserve(lg.edges.size());
    for (std::size_t i = 0; i < lg.edges.size(); ++i) {
        const LayoutGraph::Edge &e = lg.edges[i];
        const std::size_t found = layout.edges.find(EdgeRef { e.tensor, e.consumer });
        if (found == LayoutRoutes::npos || layout.edges.spline(found).points().empty())
            continue;
        const auto at = static_cast<std::uint32_t>(found);
        m_splineAt[i] = at;
        if (m_edgeOfSpline[at] == notDrawn) // the first of equal edges answers edgeIndex()
            m_edgeOfSpline[at] = static_cast<std::uint32_t>(i);
        m_labelled[i] = labelledTensors.insert(e.tensor).second;
    }

    // The tiles, from the layout: edge tiles lie under node tiles, as edges lie under nodes.
    TilePlan plan = planTiles(lg, layout);
    const std::size_t edgeTiles = plan.edgeTiles.size();
    m_tiles.resize(edgeTiles + plan.nodeTiles.size());
    for (std::size_t t = 0; t < edgeTiles; ++t) {
        m_tiles[t].item = new ItemTile(plan.edgeTiles[t], 1);
        m_scene->addItem(m_tiles[t].item);
    }
    for (std::size_t t = 0; t < plan.nodeTiles.size(); ++t) {
        Tile &tile = m_tiles[edgeTiles + t];
        tile.nodes = true;
        tile.item = new ItemTile(plan.nodeTiles[t], 2);
        m_scene->addItem(tile.item);
    }
    m_nodeTile = std::move(plan.nodeTile);
    m_edgeTile = std::move(plan.edgeTile);
    for (std::uint32_t &t : m_nodeTile)
        if (t != TilePlan::none)
            t += static_cast<std::uint32_t>(edgeTiles);
    // Members in increasing index (madeItem() finds an item by its member's position), each
    // tile's list sized exactly.
    auto fillMembers
        = [this](const std::vector<std::uint32_t> &tileOf, const std::vector<std::uint32_t> &at) {
              std::vector<std::uint32_t> sizes(m_tiles.size(), 0);
              for (std::size_t i = 0; i < tileOf.size(); ++i)
                  if (tileOf[i] != TilePlan::none && at[i] != notDrawn)
                      ++sizes[tileOf[i]];
              for (std::size_t t = 0; t < m_tiles.size(); ++t)
                  if (sizes[t] > 0)
                      m_tiles[t].members.reserve(sizes[t]);
              for (std::size_t i = 0; i < tileOf.size(); ++i)
                  if (tileOf[i] != TilePlan::none && at[i] != notDrawn)
                      m_tiles[tileOf[i]].members.push_back(static_cast<std::uint32_t>(i));
          };
    fillMembers(m_nodeTile, m_rectAt);
    fillMembers(m_edgeTile, m_splineAt);
    // Until its items are made, a node tile that is painted shows its nodes as plain boxes
    // (the far picture is not there yet, or a pan outran the per-frame budget).
    for (Tile &tile : m_tiles)
        tile.item->setMade(false);
    for (std::size_t t = edgeTiles; t < m_tiles.size(); ++t) {
        m_tiles[t].item->setPlaceholder([this, t](QPainter *painter) {
            painter->setPen(Qt::NoPen);
            painter->setBrush(canvasColours().edge);
            for (std::uint32_t n : m_tiles[t].members)
                painter->drawRect(nodeRect(n));
        });
    }
}

std::size_t TileMaterializer::nodeIndex(NodeId node) const
{
    const auto it = std::lower_bound(m_nodeOrder.begin(), m_nodeOrder.end(),
                                     std::pair<NodeId, std::uint32_t>(node, 0));
    return it != m_nodeOrder.end() && it->first == node ? it->second : none;
}

std::size_t TileMaterializer::edgeIndex(const EdgeRef &edge) const
{
    if (!m_layout)
        return none;
    const std::size_t found = m_layout->edges.find(edge);
    if (found == LayoutRoutes::npos)
        return none;
    const std::uint32_t index = m_edgeOfSpline[found];
    return index != notDrawn ? index : none;
}

EdgeRef TileMaterializer::edgeRef(std::size_t edge) const
{
    const LayoutGraph::Edge &e = m_graph->edges[edge];
    return { e.tensor, e.consumer };
}

QRectF TileMaterializer::nodeRect(std::size_t node) const
{
    if (node >= m_rectAt.size() || m_rectAt[node] == notDrawn)
        return {};
    return toRectF((m_layout->nodes.begin() + m_rectAt[node])->second);
}

std::vector<std::size_t> TileMaterializer::nodesIn(const QRectF &area) const
{
    std::vector<std::size_t> out;
    for (const Tile &tile : m_tiles) {
        if (!tile.nodes || !tile.item->boundingRect().intersects(area))
            continue;
        for (std::uint32_t n : tile.members)
            if (nodeRect(n).intersects(area))
                out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::size_t TileMaterializer::nodeAt(const QPointF &point) const
{
    for (const Tile &tile : m_tiles) {
        if (!tile.nodes || !tile.item->boundingRect().contains(point))
            continue;
        for (std::uint32_t n : tile.members)
            if (nodeRect(n).contains(point))
                return n;
    }
    return none;
}

std::vector<std::size_t> TileMaterializer::edgesCrossing(const QPointF &a, const QPointF &b) const
{
    std::vector<std::size_t> out;
    const QRectF box = QRectF(a, b).normalized().adjusted(-1, -1, 1, 1);
    QPolygonF line;
    for (const Tile &tile : m_tiles) {
        if (tile.nodes || !tile.item->boundingRect().intersects(box))
            continue;
        for (std::size_t k = 0; k < tile.members.size(); ++k) {
            const std::uint32_t e = tile.members[k];
            if (tile.made) {
                if (static_cast<const EdgeItem *>(tile.items[k])->crosses(a, b))
                    out.push_back(e);
                continue;
            }
            const LayoutSpline route = spline(e);
            if (!edgeItemBounds(route, false).intersects(box))
                continue;
            splinePolyline(route, line);
            if (polylineCrosses(line, a, b))
                out.push_back(e);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

NodeItem *TileMaterializer::nodeItem(std::size_t node)
{
    if (node >= m_nodeTile.size() || m_rectAt[node] == notDrawn
        || m_nodeTile[node] == TilePlan::none)
        return nullptr;
    Tile &tile = m_tiles[m_nodeTile[node]];
    tile.used = ++m_clock;
    if (!tile.made)
        makeTile(m_nodeTile[node]);
    return madeNodeItem(node);
}

EdgeItem *TileMaterializer::edgeItem(std::size_t edge)
{
    if (edge >= m_edgeTile.size() || m_splineAt[edge] == notDrawn
        || m_edgeTile[edge] == TilePlan::none)
        return nullptr;
    Tile &tile = m_tiles[m_edgeTile[edge]];
    tile.used = ++m_clock;
    if (!tile.made)
        makeTile(m_edgeTile[edge]);
    return madeEdgeItem(edge);
}

void TileMaterializer::setProblem(std::size_t node, bool on)
{
    m_states.setProblem(node, on);
    if (NodeItem *item = madeNodeItem(node))
        item->setProblem(on);
}

void TileMaterializer::setHighlighted(std::size_t node, bool on)
{
    m_states.setHighlighted(node, on);
    if (NodeItem *item = madeNodeItem(node))
        item->setHighlighted(on);
}

void TileMaterializer::setEdgeHighlighted(std::size_t edge, bool on)
{
    m_states.setEdgeHighlighted(edge, on);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setHighlighted(on);
}

void TileMaterializer::setCutHover(std::size_t edge, bool on)
{
    m_states.setCutHover(edge, on);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setCutHover(on);
}

void TileMaterializer::setFlash(std::size_t edge, qreal strength)
{
    m_states.setFlash(edge, strength);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setFlash(strength);
}

void TileMaterializer::setBoundaryColour(std::size_t edge, const QColor &colour)
{
    m_states.setBoundaryColour(edge, colour);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setBoundaryColour(colour);
}

QGraphicsItem *TileMaterializer::madeItem(const std::vector<std::uint32_t> &tileOf,
                                          std::size_t index) const
{
    if (index >= tileOf.size() || tileOf[index] == TilePlan::none)
        return nullptr;
    const Tile &tile = m_tiles[tileOf[index]];
    if (!tile.made)
        return nullptr;
    const auto it = std::lower_bound(tile.members.begin(), tile.members.end(), index);
    if (it == tile.members.end() || *it != index)
        return nullptr;
    return tile.items[static_cast<std::size_t>(it - tile.members.begin())];
}

NodeItem *TileMaterializer::madeNodeItem(std::size_t node) const
{
    return static_cast<NodeItem *>(madeItem(m_nodeTile, node));
}

EdgeItem *TileMaterializer::madeEdgeItem(std::size_t edge) const
{
    return static_cast<EdgeItem *>(madeItem(m_edgeTile, edge));
}

bool TileMaterializer::makeArea(const QRectF &area, int budgetMs)
{
    QElapsedTimer clock;
    clock.start();
    const std::uint64_t now = ++m_clock;
    bool done = true;
    // Node tiles first: a frame cut short shows the boxes, and their edges on the next turn.
    for (const bool nodes : { true, false }) {
        for (std::size_t t = 0; t < m_tiles.size(); ++t) {
            Tile &tile = m_tiles[t];
            if (tile.nodes != nodes || !tile.item->boundingRect().intersects(area))
                continue;
            tile.used = now;
            if (tile.made)
                continue;
            if (budgetMs > 0 && clock.elapsed() >= budgetMs) {
                done = false;
                continue;
            }
            makeTile(t);
        }
    }
    return done;
}

void TileMaterializer::makeAll()
{
    for (std::size_t t = 0; t < m_tiles.size(); ++t)
        if (!m_tiles[t].made)
            makeTile(t);
}

bool TileMaterializer::trim(const QRectF &keep, int budgetMs)
{
    if (m_made <= m_cap)
        return true;
    QElapsedTimer clock;
    clock.start();
    std::vector<std::size_t> candidates;
    for (std::size_t t = 0; t < m_tiles.size(); ++t)
        if (m_tiles[t].made && !m_tiles[t].item->boundingRect().intersects(keep))
            candidates.push_back(t);
    std::sort(candidates.begin(), candidates.end(),
              [this](std::size_t a, std::size_t b) { return m_tiles[a].used < m_tiles[b].used; });
    for (std::size_t t : candidates) {
        if (m_made <= m_cap)
            break;
        if (budgetMs > 0 && clock.elapsed() >= budgetMs)
            return false;
        dropTile(t);
    }
    return true;
}

std::size_t TileMaterializer::madeTiles() const
{
    return static_cast<std::size_t>(
        std::count_if(m_tiles.begin(), m_tiles.end(), [](const Tile &t) { return t.made; }));
}

std::size_t TileMaterializer::tileOfNode(std::size_t node) const
{
    return node < m_nodeTile.size() && m_nodeTile[node] != TilePlan::none ? m_nodeTile[node] : none;
}

void TileMaterializer::makeTile(std::size_t index)
{
    Tile &tile = m_tiles[index];
    tile.made = true;
    tile.item->setMade(true);
    tile.items.resize(tile.members.size());
    for (std::size_t k = 0; k < tile.members.size(); ++k) {
        if (tile.nodes)
            tile.items[k] = makeNode(tile.members[k]);
        else
            tile.items[k] = makeEdge(tile.members[k]);
    }
    // The tile paints its children (they have no contents for Qt): its box is painted again.
    tile.item->update();
}

void TileMaterializer::dropTile(std::size_t index)
{
    Tile &tile = m_tiles[index];
    for (QGraphicsItem *item : tile.items) {
        delete item; // leaves its parent and the scene as it goes
        --m_made;
    }
    tile.items = {};
    tile.made = false;
    tile.item->setMade(false);
}

const QString &TileMaterializer::shared(const std::string &text)
{
    // Op names and shapes repeat across thousands of nodes: each distinct text is held once
    // (QString shares it).
    auto [it, added] = m_texts.try_emplace(text);
    if (added)
        it->second = QString::fromStdString(text);
    return it->second;
}

NodeItem *TileMaterializer::makeNode(std::uint32_t index)
{
    const LayoutGraph::Node &n = m_graph->nodes[index];
    const Graph &graph = *m_request.graph;
    const NodeLabel label = nodeLabel(graph, n.id);
    auto *item = new NodeItem(n.id, nodeRect(index), n.role, opCategory(graph, n.id),
                              shared(label.title), shared(label.subtitle));
    if (m_request.marks != nullptr)
        if (auto mark = m_request.marks->find(n.id); mark != m_request.marks->end())
            item->setMark(mark->second);
    m_states.apply(*item, index);
    m_tiles[m_nodeTile[index]].item->adopt(item);
    ++m_made;
    return item;
}

EdgeItem *TileMaterializer::makeEdge(std::uint32_t index)
{
    const EdgeRef key = edgeRef(index);
    // The item's route is a view into the layout, which outlives the scene's items.
    auto *item = new EdgeItem(key, spline(index), m_labelled[index] ? m_request.labels : nullptr);
    m_states.apply(*item, index);
    m_tiles[m_edgeTile[index]].item->adopt(item);
    ++m_made;
    return item;
}

} // namespace cleave::ui
