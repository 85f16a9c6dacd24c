// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/ItemTile.h"

#include "ui/geometry/LayoutRectF.h"

#include <QEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <iterator>
#include <optional>

namespace cleave::ui {

namespace {

struct Entry
{
    QRectF bounds;
    std::uint32_t index = 0;
};

using Iterator = std::vector<Entry>::iterator;

// Halves [begin, end) at the median centre along the longer side of the centres' box until a
// part holds at most `perTile` entries; each such part becomes a tile.
void split(Iterator begin, Iterator end, std::size_t perTile, std::vector<QRectF> &tiles,
           std::vector<std::uint32_t> &tileOf)
{
    if (begin == end)
        return;
    if (static_cast<std::size_t>(end - begin) <= perTile) {
        const auto tile = static_cast<std::uint32_t>(tiles.size());
        QRectF box = begin->bounds;
        for (auto it = begin; it != end; ++it) {
            box = box.united(it->bounds);
            tileOf[it->index] = tile;
        }
        tiles.push_back(box);
        return;
    }
    qreal left = begin->bounds.center().x();
    qreal right = left;
    qreal top = begin->bounds.center().y();
    qreal bottom = top;
    for (auto it = begin; it != end; ++it) {
        const QPointF c = it->bounds.center();
        left = std::min(left, c.x());
        right = std::max(right, c.x());
        top = std::min(top, c.y());
        bottom = std::max(bottom, c.y());
    }
    const bool alongX = right - left > bottom - top;
    const auto middle = begin + (end - begin) / 2;
    std::nth_element(begin, middle, end, [alongX](const Entry &a, const Entry &b) {
        return alongX ? a.bounds.center().x() < b.bounds.center().x()
                      : a.bounds.center().y() < b.bounds.center().y();
    });
    split(begin, middle, perTile, tiles, tileOf);
    split(middle, end, perTile, tiles, tileOf);
}

} // namespace

ItemTile::ItemTile(const QRectF &bounds, qreal z)
    : m_bounds(bounds)
{
    // ItemContainsChildrenInShape promises Qt that the children lie within the box (it is
    // their union), which lets it skip them when the box misses the painted area or a query.
    // The exposed area (ItemUsesExtendedStyleOption) says which members to paint.
    setFlags(ItemContainsChildrenInShape | ItemUsesExtendedStyleOption);
    setAcceptedMouseButtons(Qt::NoButton);
    setZValue(z);
}

void ItemTile::setContent(TileContent *content, std::size_t index)
{
    m_content = content;
    m_index = index;
    // Hover events of its children pass through sceneEventFilter() first.
    setFiltersChildEvents(content != nullptr);
}

void ItemTile::describe(const QRectF &area, TileSink &sink) const
{
    if (m_content != nullptr)
        m_content->describeMembers(m_index, area, sink);
}

void ItemTile::adopt(QGraphicsItem *child)
{
    child->setFlag(ItemHasNoContents);
    child->setParentItem(this);
}

void ItemTile::paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
                     QWidget * /*widget*/)
{
    ++m_paints;
    m_paintedMembers = m_content != nullptr
        ? m_content->paintMembers(m_index, *painter, option->exposedRect)
        : 0;
}

bool ItemTile::sceneEventFilter(QGraphicsItem *watched, QEvent *event)
{
    if (m_content != nullptr
        && (event->type() == QEvent::GraphicsSceneHoverEnter
            || event->type() == QEvent::GraphicsSceneHoverLeave))
        m_content->childHovered(m_index, *watched,
                                event->type() == QEvent::GraphicsSceneHoverEnter);
    return false; // the child handles the event as well
}

void repaintItem(QGraphicsItem &item)
{
    QGraphicsItem *tile = item.parentItem();
    if (tile != nullptr && (item.flags() & QGraphicsItem::ItemHasNoContents) != 0)
        tile->update(item.boundingRect());
    else
        item.update();
}

std::vector<std::uint32_t> groupIntoTiles(const std::vector<QRectF> &boxes, std::size_t perTile,
                                          std::vector<QRectF> &tiles)
{
    std::vector<Entry> entries;
    entries.reserve(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i)
        entries.push_back({ boxes[i], static_cast<std::uint32_t>(i) });
    std::vector<std::uint32_t> tileOf(boxes.size(), TilePlan::none);
    split(entries.begin(), entries.end(), std::max<std::size_t>(perTile, 1), tiles, tileOf);
    return tileOf;
}

TilePlan planTiles(const LayoutGraph &graph, const Layout &layout, std::size_t perTile)
{
    TilePlan plan;
    perTile = std::max<std::size_t>(perTile, 1);
    plan.nodeTile.assign(graph.nodes.size(), TilePlan::none);
    plan.edgeTile.assign(graph.edges.size(), TilePlan::none);

    std::vector<Entry> entries;
    entries.reserve(graph.nodes.size());
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        if (const LayoutRect *r = layout.rect(graph.nodes[i].id); r != nullptr)
            entries.push_back({ nodeItemBounds(toRectF(*r), true), static_cast<std::uint32_t>(i) });
    }
    split(entries.begin(), entries.end(), perTile, plan.nodeTiles, plan.nodeTile);

    entries.clear();
    entries.reserve(graph.edges.size());
    for (std::size_t i = 0; i < graph.edges.size(); ++i) {
        const LayoutGraph::Edge &e = graph.edges[i];
        const std::optional<LayoutSpline> s = layout.spline(e.tensor, e.consumer);
        if (s && !s->points().empty())
            entries.push_back({ edgeItemBounds(*s, true), static_cast<std::uint32_t>(i) });
    }
    if (entries.empty())
        return plan;
    // A route is long when its box is several times taller or wider than a typical route's:
    // the long ones form tiles of their own.
    std::vector<qreal> extents;
    extents.reserve(entries.size());
    for (const Entry &e : entries)
        extents.push_back(std::max(e.bounds.width(), e.bounds.height()));
    const auto median = extents.begin() + static_cast<std::ptrdiff_t>(extents.size() / 2);
    std::nth_element(extents.begin(), median, extents.end());
    const qreal longRoute = std::max<qreal>(400, 8 * *median);
    const auto firstLong
        = std::stable_partition(entries.begin(), entries.end(), [&](const Entry &e) {
              return std::max(e.bounds.width(), e.bounds.height()) <= longRoute;
          });
    split(entries.begin(), firstLong, perTile, plan.edgeTiles, plan.edgeTile);
    split(firstLong, entries.end(), perTile, plan.edgeTiles, plan.edgeTile);
    return plan;
}

} // namespace cleave::ui
