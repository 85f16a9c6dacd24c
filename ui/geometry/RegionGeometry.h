// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/layout/Layout.h"
#include "ui/geometry/BandIndex.h"
#include "ui/geometry/FloatRect.h"

#include <QPolygonF>
#include <QRectF>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace cleave::ui {

/// Width of a partition's tint along a route inside it (scene units). Region geometry indexes
/// routes by half of it, so that a hit or an extent covers the tint as drawn.
inline constexpr qreal regionRouteWidth = 40;

/// How far a partition's region reaches beside a node box, and above and below it.
inline constexpr qreal regionPadX = 12;
inline constexpr qreal regionPadY = 15;

/// What partition regions are drawn from, made once per layout: every drawn node's padded box
/// and every edge's on-curve route, each filed in a BandIndex. A plan then only says which
/// partition each box and route belongs to (RegionSlots), so a cut re-colours the same shapes
/// instead of building them again. Shared, read-only, by the regions of every plan.
///
/// Made from the layout (makeRegionGeometry()), on the worker that makes or prepares the layout,
/// and handed over beside it (RegionGeometryStore): plain geometry, no items. It holds that
/// layout and reads the node ids, edge ids and routes from it; of its own it keeps only what
/// the indexes need (the padded boxes and the routes' grown bounds, in floats) and, when some
/// edge of the layout has no route, which layout edge each route is. It used to copy the ids and
/// the on-curve points as well, 32 bytes an edge and 4 a node more beside the layout's own.
struct RegionGeometry
{
    /// The layout it was made from. A store of geometries treats one whose layout nobody else
    /// holds as gone (RegionGeometryStore).
    std::shared_ptr<const Layout> layout;
    std::vector<FloatRect> boxes; // padded node boxes, in the layout's node order (by id)
    std::vector<FloatRect> routeBounds; // each route's box grown by half the route pen
    /// True when every edge of the layout has a route (route i is then its i-th edge);
    /// otherwise routeEdges lists the layout edge of each route.
    bool everyEdgeRouted = true;
    std::vector<std::uint32_t> routeEdges;
    BandIndex boxIndex;
    BandIndex routeIndex;

    /// Files the boxes and routes in the indexes; `halfPen` is half the width of the pen a
    /// route is stroked with.
    void index(qreal halfPen);

    [[nodiscard]] std::size_t boxCount() const { return boxes.size(); }
    /// The node of box i (the layout's i-th node).
    [[nodiscard]] NodeId node(std::size_t i) const { return (layout->nodes.begin() + i)->first; }
    [[nodiscard]] QRectF box(std::size_t i) const { return boxes[i].toRectF(); }
    [[nodiscard]] std::size_t routeCount() const { return routeBounds.size(); }
    /// The edge of route i.
    [[nodiscard]] EdgeRef edge(std::size_t i) const { return layout->edges.key(layoutEdge(i)); }
    /// The route of `edge`, or routeCount() when it has none.
    [[nodiscard]] std::size_t routeOf(const EdgeRef &edge) const;
    /// The spline of route i: its on-curve points are every third point from the first.
    [[nodiscard]] std::span<const LayoutPoint> route(std::size_t i) const
    {
        return layout->edges.spline(layoutEdge(i)).points();
    }
    /// Route i's on-curve points as a polygon (made on each call).
    [[nodiscard]] QPolygonF routePolygon(std::size_t i) const;
    /// The box of route i grown by half the route pen (set by index()).
    [[nodiscard]] QRectF routeBox(std::size_t i) const { return routeBounds[i].toRectF(); }
    /// The boxes and the routes (by their grown boxes) meeting `area`, by index, increasing.
    void boxesMeeting(const QRectF &area, std::vector<std::uint32_t> &out) const
    {
        boxIndex.query(area, boxes, out);
    }
    void routesMeeting(const QRectF &area, std::vector<std::uint32_t> &out) const
    {
        routeIndex.query(area, routeBounds, out);
    }
    /// True when it was made from `l` and some other owner holds `l` still.
    [[nodiscard]] bool isOf(const Layout *l) const;
    /// True when nobody but this geometry holds its layout (which its maker let go of).
    [[nodiscard]] bool isOrphaned() const { return !layout || layout.use_count() <= 1; }

private:
    [[nodiscard]] std::size_t layoutEdge(std::size_t i) const
    {
        return everyEdgeRouted ? i : routeEdges[i];
    }
};

/// The region geometry of `layout` in the orders the canvas' plans and far picture follow:
/// the drawn nodes by id, the drawn edges (those with a route) by EdgeRef. Any thread.
[[nodiscard]] std::shared_ptr<const RegionGeometry>
makeRegionGeometry(const std::shared_ptr<const Layout> &layout);

/// A plan over a RegionGeometry: the partition index of every box and of every route (-1: in
/// no partition, or a route between two partitions). Shared with the far picture's plan layer.
struct RegionSlots
{
    std::shared_ptr<const std::vector<std::int32_t>> nodes;
    std::shared_ptr<const std::vector<std::int32_t>> edges;
};

/// One partition's share of a RegionGeometry under some RegionSlots.
struct RegionExtent
{
    QRectF bounds; // boxes and grown routes united (null when it has neither)
    std::size_t boxCount = 0;
    std::size_t routeCount = 0;
};

/// The extent of each of `partitionCount` partitions, in one pass over the boxes and routes.
[[nodiscard]] std::vector<RegionExtent> regionExtents(const RegionGeometry &geometry,
                                                      const RegionSlots &membership,
                                                      std::size_t partitionCount);

} // namespace cleave::ui
