// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/TileMaterializer.h"

#include "ui/canvas/items/EdgePainter.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/NodePainter.h"
#include "ui/geometry/LayoutRectF.h"
#include "ui/support/OpCategory.h"

#include <QGraphicsScene>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

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
    // The tiles outlive this drawing in a scene disposed later.
    for (const Tile &tile : m_tiles)
        tile.item->setContent(nullptr, 0);
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
    for (std::size_t t = 0; t < m_tiles.size(); ++t)
        m_tiles[t].item->setContent(this, t);
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

bool TileMaterializer::setSelected(std::size_t node, bool on)
{
    if (!m_states.setSelected(node, on))
        return false;
    if (NodeItem *item = madeNodeItem(node))
        item->setInSelection(on);
    repaintNode(node);
    return true;
}

void TileMaterializer::setProblem(std::size_t node, bool on)
{
    if (m_states.hasProblem(node) == on)
        return;
    m_states.setProblem(node, on);
    if (NodeItem *item = madeNodeItem(node))
        item->setProblem(on);
    repaintNode(node);
}

void TileMaterializer::setHighlighted(std::size_t node, bool on)
{
    if (m_states.isHighlighted(node) == on)
        return;
    m_states.setHighlighted(node, on);
    if (NodeItem *item = madeNodeItem(node))
        item->setHighlighted(on);
    repaintNode(node);
}

void TileMaterializer::setEdgeHighlighted(std::size_t edge, bool on)
{
    if (m_states.isEdgeHighlighted(edge) == on)
        return;
    m_states.setEdgeHighlighted(edge, on);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setHighlighted(on);
    repaintEdge(edge);
}

void TileMaterializer::setCutHover(std::size_t edge, bool on)
{
    if (m_states.isCutHover(edge) == on)
        return;
    m_states.setCutHover(edge, on);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setCutHover(on);
    repaintEdge(edge);
}

void TileMaterializer::setFlash(std::size_t edge, qreal strength)
{
    m_states.setFlash(edge, strength);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setFlash(strength);
    repaintEdge(edge);
}

void TileMaterializer::setBoundaryColour(std::size_t edge, const QColor &colour)
{
    m_states.setBoundaryColour(edge, colour);
    if (EdgeItem *item = madeEdgeItem(edge))
        item->setBoundaryColour(colour);
    repaintEdge(edge);
}

void TileMaterializer::repaintNode(std::size_t node) const
{
    if (node >= m_nodeTile.size() || m_rectAt[node] == notDrawn
        || m_nodeTile[node] == TilePlan::none)
        return;
    const bool marked = m_request.marks != nullptr && m_request.marks->count(nodeId(node)) > 0;
    m_tiles[m_nodeTile[node]].item->update(nodeItemBounds(nodeRect(node), marked));
}

void TileMaterializer::repaintEdge(std::size_t edge) const
{
    if (edge >= m_edgeTile.size() || m_splineAt[edge] == notDrawn
        || m_edgeTile[edge] == TilePlan::none)
        return;
    m_tiles[m_edgeTile[edge]].item->update(edgeItemBounds(spline(edge), m_labelled[edge]));
}

std::size_t TileMaterializer::paintMembers(std::size_t tile, QPainter &painter,
                                           const QRectF &exposed)
{
    if (tile >= m_tiles.size() || !m_layout)
        return 0;
    const qreal lod
        = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter.worldTransform());
    Tile &t = m_tiles[tile];
    return t.nodes ? paintNodes(t, painter, exposed, lod) : paintEdges(t, painter, exposed, lod);
}

bool TileMaterializer::nodeLook(Tile &tile, std::size_t k, bool text, const QRectF &area,
                                NodeLook &look)
{
    // What the graph says of a node is looked up once (op names are strings), as the node is
    // first painted, and its texts once they are first written.
    constexpr std::uint8_t unknown = 0xff;
    const std::size_t count = tile.members.size();
    if (tile.categories.size() != count)
        tile.categories.assign(count, unknown);
    if (text && tile.texts.size() != 2 * count)
        tile.texts.assign(2 * count, nullptr);
    const std::uint32_t n = tile.members[k];
    const LayoutGraph::Node &node = m_graph->nodes[n];
    look.rect = nodeRect(n);
    look.mark = 0;
    if (m_request.marks != nullptr && !m_request.marks->empty())
        if (const auto it = m_request.marks->find(node.id); it != m_request.marks->end())
            look.mark = it->second.isValid() ? it->second.rgba() : 0;
    if (!nodeItemBounds(look.rect, look.mark != 0).intersects(area))
        return false;
    const Graph &graph = *m_request.graph;
    if (tile.categories[k] == unknown)
        tile.categories[k] = static_cast<std::uint8_t>(opCategory(graph, node.id));
    if (text && tile.texts[2 * k] == nullptr) {
        const NodeLabel label = nodeLabel(graph, node.id);
        tile.texts[2 * k] = &shared(label.title);
        tile.texts[2 * k + 1] = &shared(label.subtitle);
    }
    look.role = node.role;
    look.category = static_cast<OpCategory>(tile.categories[k]);
    look.title = text ? tile.texts[2 * k] : nullptr;
    look.subtitle = text ? tile.texts[2 * k + 1] : nullptr;
    look.selected = m_states.isSelected(n);
    look.highlighted = m_states.isHighlighted(n);
    look.problem = m_states.hasProblem(n);
    return true;
}

std::size_t TileMaterializer::paintNodes(Tile &tile, QPainter &painter, const QRectF &exposed,
                                         qreal lod)
{
    const bool text = lod >= nodeTextZoom;
    std::size_t painted = 0;
    NodeLook look;
    for (std::size_t k = 0; k < tile.members.size(); ++k) {
        if (!nodeLook(tile, k, text, exposed, look))
            continue;
        // As Qt painted items: each with the painter's state restored after it.
        painter.save();
        paintNode(painter, look, lod);
        painter.restore();
        ++painted;
    }
    return painted;
}

template <typename Visit>
std::size_t TileMaterializer::forEdges(Tile &tile, const QRectF &area, Visit visit)
{
    // A route's box takes a pass over its points: made once per tile.
    const std::size_t count = tile.members.size();
    if (tile.bounds.size() != count) {
        tile.bounds.resize(count);
        for (std::size_t k = 0; k < count; ++k) {
            const std::uint32_t e = tile.members[k];
            tile.bounds[k] = FloatRect::fromRectF(edgeItemBounds(spline(e), m_labelled[e]));
        }
    }
    const bool boundaries = m_states.hasBoundaryEdges();
    const bool flashes = m_states.hasFlashes();
    std::size_t visited = 0;
    EdgeLook look;
    // Boundary edges lie above the others (as their items did, stacked at z 1.5 against 1):
    // a second pass gives them when there are any.
    for (const bool boundaryPass : { false, true }) {
        if (boundaryPass && !boundaries)
            break;
        for (std::size_t k = 0; k < count; ++k) {
            const std::uint32_t e = tile.members[k];
            if (!tile.bounds[k].intersects(area))
                continue;
            look.boundary = boundaries ? m_states.boundaryColour(e) : QColor();
            if (look.boundary.isValid() != boundaryPass)
                continue;
            look.flash = flashes ? m_states.flash(e) : 0;
            look.cutHover = m_states.isCutHover(e);
            look.highlighted = m_states.isEdgeHighlighted(e);
            look.hovered = m_states.hoveredEdge() == e;
            visit(e, tile.bounds[k].toRectF(), look);
            ++visited;
        }
    }
    return visited;
}

std::size_t TileMaterializer::paintEdges(Tile &tile, QPainter &painter, const QRectF &exposed,
                                         qreal lod)
{
    return forEdges(tile, exposed,
                    [&](std::uint32_t e, const QRectF &bounds, const EdgeLook &look) {
                        painter.save();
                        paintEdge(painter, spline(e), bounds, look, lod,
                                  m_labelled[e] ? m_request.labels : nullptr, edgeRef(e));
                        painter.restore();
                    });
}

void TileMaterializer::describeMembers(std::size_t tile, const QRectF &area, TileSink &sink)
{
    if (tile >= m_tiles.size() || !m_layout)
        return;
    Tile &t = m_tiles[tile];
    if (!t.nodes) {
        forEdges(t, area, [&](std::uint32_t e, const QRectF & /*bounds*/, const EdgeLook &look) {
            sink.edge(spline(e), look);
        });
        return;
    }
    NodeLook look;
    for (std::size_t k = 0; k < t.members.size(); ++k)
        if (nodeLook(t, k, true, area, look))
            sink.node(look);
}

void TileMaterializer::childHovered(std::size_t tile, QGraphicsItem &child, bool on)
{
    if (tile >= m_tiles.size() || m_tiles[tile].nodes)
        return;
    const Tile &t = m_tiles[tile];
    const auto it = std::find(t.items.begin(), t.items.end(), &child);
    if (it == t.items.end())
        return;
    const std::uint32_t edge = t.members[static_cast<std::size_t>(it - t.items.begin())];
    if (on)
        m_states.setHoveredEdge(edge);
    else if (m_states.hoveredEdge() == edge)
        m_states.setHoveredEdge(ItemStates::noEdge);
    repaintEdge(edge);
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

void TileMaterializer::makeArea(const QRectF &area)
{
    const std::uint64_t now = ++m_clock;
    for (std::size_t t = 0; t < m_tiles.size(); ++t) {
        Tile &tile = m_tiles[t];
        if (!tile.item->boundingRect().intersects(area))
            continue;
        tile.used = now;
        if (!tile.made)
            makeTile(t);
    }
}

void TileMaterializer::makeAll()
{
    for (std::size_t t = 0; t < m_tiles.size(); ++t)
        if (!m_tiles[t].made)
            makeTile(t);
}

void TileMaterializer::trim(const QRectF &keep)
{
    if (m_made <= m_cap)
        return;
    std::vector<std::size_t> candidates;
    for (std::size_t t = 0; t < m_tiles.size(); ++t)
        if (m_tiles[t].made && !m_tiles[t].item->boundingRect().intersects(keep))
            candidates.push_back(t);
    std::sort(candidates.begin(), candidates.end(),
              [this](std::size_t a, std::size_t b) { return m_tiles[a].used < m_tiles[b].used; });
    for (std::size_t t : candidates) {
        if (m_made <= m_cap)
            break;
        dropTile(t);
    }
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
    tile.items.resize(tile.members.size());
    // The tile paints its members already: the items change nothing on screen.
    for (std::size_t k = 0; k < tile.members.size(); ++k) {
        if (tile.nodes)
            tile.items[k] = makeNode(tile.members[k]);
        else
            tile.items[k] = makeEdge(tile.members[k]);
    }
}

void TileMaterializer::dropTile(std::size_t index)
{
    Tile &tile = m_tiles[index];
    // An edge hovered when its item goes hears no hover leave: it is drawn plain again.
    const std::size_t hovered = m_states.hoveredEdge();
    if (!tile.nodes && hovered != ItemStates::noEdge
        && std::binary_search(tile.members.begin(), tile.members.end(), hovered)) {
        m_states.setHoveredEdge(ItemStates::noEdge);
        repaintEdge(hovered);
    }
    for (QGraphicsItem *item : tile.items) {
        delete item; // leaves its parent and the scene as it goes
        --m_made;
    }
    tile.items = {};
    tile.made = false;
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
