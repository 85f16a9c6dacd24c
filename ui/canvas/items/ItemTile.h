// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"
#include "ui/canvas/items/GraphItems.h"

#include <QGraphicsItem>
#include <QRectF>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

namespace cleave::ui {

class ItemTile;
struct EdgeLook;
struct NodeLook;

/// Receives what a tile's members look like, for writers that describe the drawing instead of
/// painting it (the SVG export).
class TileSink
{
public:
    TileSink() = default;
    virtual ~TileSink() = default;
    TileSink(const TileSink &) = delete;
    TileSink &operator=(const TileSink &) = delete;
    /// A node, its texts always given.
    virtual void node(const NodeLook &look) = 0;
    /// An edge's route, with its arrowhead when it has one.
    virtual void edge(const LayoutSpline &spline, const EdgeLook &look) = 0;
};

/// What a tile paints and whom it tells of the mouse over its children: TileMaterializer,
/// which paints a tile's members from the layout and the canvas's state, items or not.
class TileContent
{
public:
    TileContent() = default;
    virtual ~TileContent() = default;
    TileContent(const TileContent &) = delete;
    TileContent &operator=(const TileContent &) = delete;
    /// Paints the members of tile `tile` whose boxes meet `exposed` (scene coordinates) in
    /// their stacking order, with `painter` transformed to the scene; returns how many.
    virtual std::size_t paintMembers(std::size_t tile, QPainter &painter, const QRectF &exposed)
        = 0;
    /// The mouse entered (`on`) or left `child`, an item of tile `tile`.
    virtual void childHovered(std::size_t tile, QGraphicsItem &child, bool on) = 0;
    /// Gives `sink` the members of tile `tile` whose boxes meet `area`, as paintMembers would
    /// paint them at a zoom where texts show, in the same order.
    virtual void describeMembers(std::size_t tile, const QRectF &area, TileSink &sink) = 0;
};

/// A few hundred nodes, or a few hundred edges, lying close together in the drawing, painted
/// as one item. The canvas's scene keeps no index (a BSP tree of a 100k-node scene held
/// hundreds of megabytes): painting and every hit test walk the top-level items, and Qt skips a
/// tile whose box misses the query together with its children (ItemContainsChildrenInShape).
///
/// Its box, the union of its members' boxes, is known from the layout. The tile paints its
/// members from data (its TileContent): no item needs to exist for a member to be drawn, in
/// any state, at any zoom. Items (NodeItems, EdgeItems) are its children only where Qt's own
/// hit tests need them (hover, tooltips, explicit requests); they are flagged
/// ItemHasNoContents, so that Qt never paints them one by one (nor keeps its record of where
/// it painted each, about 1.3 KB per item), and the tile hears of the mouse entering and
/// leaving them (sceneEventFilter) to tell its content. A member's new look reaches the screen
/// through the tile: update() of the member's box.
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
    /// Has its content paint the members meeting the exposed area (nothing without content).
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    /// The content that paints the tile, which knows it as tile `index` (nullptr: none).
    void setContent(TileContent *content, std::size_t index);
    /// Gives `sink` the members meeting `area` (nothing without content).
    void describe(const QRectF &area, TileSink &sink) const;
    /// Makes `child` a child item (flagged ItemHasNoContents: the tile paints its member). Its
    /// box must lie within the tile's.
    void adopt(QGraphicsItem *child);
    /// How many times Qt has painted the tile (it does so when the tile meets the painted area,
    /// before its children): tests check which tiles a paint visits.
    [[nodiscard]] std::size_t paintCount() const { return m_paints; }
    /// How many members the last paint painted (those meeting the exposed area).
    [[nodiscard]] std::size_t lastPaintedMembers() const { return m_paintedMembers; }

protected:
    bool sceneEventFilter(QGraphicsItem *watched, QEvent *event) override;

private:
    QRectF m_bounds;
    TileContent *m_content = nullptr;
    std::size_t m_index = 0;
    std::size_t m_paints = 0;
    std::size_t m_paintedMembers = 0;
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
