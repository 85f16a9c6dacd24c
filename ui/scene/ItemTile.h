// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"
#include "ui/scene/GraphItems.h"

#include <QGraphicsItem>
#include <QRectF>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

namespace cleave::ui {

/// The parent of a few hundred node items, or of a few hundred edge items, lying close together
/// in the drawing. The canvas's scene keeps no index (a BSP tree of a 100k-node scene held
/// hundreds of megabytes): painting and every hit test (items at a point or in a rectangle:
/// clicks, the rubber band, the cut stroke) walk the top-level items, and Qt skips a tile whose
/// box misses the query together with its children (ItemContainsChildrenInShape), so a query
/// looks at the few tiles near it and their children only.
///
/// Its box, the union of its children's boxes, is known from the layout before any child is
/// made. The tile paints its children itself (adopt()): they are flagged ItemHasNoContents, so
/// that Qt does not paint them one by one, and so keeps no record of where it painted each
/// (Qt 6 keeps a QHash of about 1.3 KB per painted item until the item is deleted: megabytes
/// over a pan). Qt's hit tests do not look at that flag: the children still answer clicks,
/// hover, tooltips, the rubber band and the cut stroke. A child's new look reaches the screen
/// through repaintItem(), which asks the tile to repaint the child's box (Qt drops update()
/// of an item without contents).
///
/// The tile has contents itself: Qt prunes the children of an item outside the painted area
/// only when that item has contents. Queries in a Contains mode (Qt::ContainsItemShape,
/// Qt::ContainsItemBoundingRect) skip the children of every tile not wholly inside the query:
/// the canvas asks in the Intersects modes only.
class ItemTile : public QGraphicsItem
{
public:
    enum { Type = ItemTileType };
    /// A tile covering `bounds` (scene coordinates) stacked at `z` among the top-level items.
    ItemTile(const QRectF &bounds, qreal z);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] QRectF boundingRect() const override { return m_bounds; }
    /// Paints the placeholder while the children are not made, else the children whose boxes
    /// meet the exposed area, in their stacking order.
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    /// Makes `child` a child the tile paints (flagged ItemHasNoContents). Its box must lie
    /// within the tile's.
    void adopt(QGraphicsItem *child);
    /// How many times Qt has painted the tile (it does so when the tile meets the painted area,
    /// before its children): tests check which tiles a paint visits.
    [[nodiscard]] std::size_t paintCount() const { return m_paints; }
    /// How many children the last paint painted (those meeting the exposed area).
    [[nodiscard]] std::size_t lastPaintedChildren() const { return m_paintedChildren; }
    /// What the tile paints while its children are not made (TileMaterializer): its nodes as
    /// plain boxes. Empty paints nothing.
    void setPlaceholder(std::function<void(QPainter *)> paint) { m_placeholder = std::move(paint); }
    /// Whether the tile's children are made (the placeholder is painted otherwise).
    void setMade(bool made) { m_made = made; }
    [[nodiscard]] bool isMade() const { return m_made; }

private:
    QRectF m_bounds;
    std::function<void(QPainter *)> m_placeholder;
    std::size_t m_paints = 0;
    std::size_t m_paintedChildren = 0;
    bool m_made = true;
};

/// Asks for `item` to be painted again: through the tile that paints it when it has no
/// contents of its own (ItemTile::adopt()), else as QGraphicsItem::update() does.
void repaintItem(QGraphicsItem &item);

/// Which tile each drawn node and each drawn edge of a layout goes in, and the tiles' boxes.
struct TilePlan
{
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    std::vector<QRectF> nodeTiles; ///< The box of each node tile.
    std::vector<QRectF> edgeTiles; ///< The box of each edge tile.
    std::vector<std::uint32_t> nodeTile; ///< Per node of the layout graph (`none`: not drawn).
    std::vector<std::uint32_t> edgeTile; ///< Per edge of the layout graph (`none`: not drawn).
};

/// Groups `boxes` into tiles of at most `perTile` neighbours each (as planTiles does) and returns
/// the tile of each box; `tiles` receives the tiles' boxes (the unions of their members').
[[nodiscard]] std::vector<std::uint32_t>
groupIntoTiles(const std::vector<QRectF> &boxes, std::size_t perTile, std::vector<QRectF> &tiles);

/// Groups the drawn nodes and edges of `layout` into tiles of at most `perTile` items each:
/// the set is halved at the median of the items' centres along its longer side until it is
/// small enough, so that a tile holds neighbours. Edges much taller or wider than most (long
/// routes) are grouped apart from the short ones, so that they do not stretch every tile.
[[nodiscard]] TilePlan planTiles(const LayoutGraph &graph, const Layout &layout,
                                 std::size_t perTile = 256);

} // namespace cleave::ui
