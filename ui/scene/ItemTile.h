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
/// made. It paints nothing, but has contents: Qt prunes the children of an item outside the
/// painted area only when that item has contents. Queries in a Contains mode
/// (Qt::ContainsItemShape, Qt::ContainsItemBoundingRect) skip the children of every tile not
/// wholly inside the query: the canvas asks in the Intersects modes only.
class ItemTile : public QGraphicsItem
{
public:
    enum { Type = ItemTileType };
    /// A tile covering `bounds` (scene coordinates) stacked at `z` among the top-level items.
    ItemTile(const QRectF &bounds, qreal z);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    /// How many times Qt has painted the tile (it does so when the tile meets the painted area,
    /// before its children): tests check which tiles a paint visits.
    [[nodiscard]] std::size_t paintCount() const { return m_paints; }
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
    bool m_made = true;
};

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
