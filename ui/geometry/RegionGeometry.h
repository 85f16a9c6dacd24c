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
/// Made from the layout alone (makeRegionGeometry()), on the worker that makes or prepares the
/// layout, and handed over beside it (RegionGeometryStore): plain geometry, no items. Kept
/// compact, as it lives beside the layout for every node and edge drawn: boxes and points in
/// floats, all routes' points in one array (routeStarts says where each route begins), the
/// indexes holding ids only.
struct RegionGeometry
{
    /// The layout it was made from (not held: a store of geometries keeps no layout alive).
    std::weak_ptr<const Layout> layout;
    std::vector<NodeId> nodes; // the node of each box: a plan walks this, not the item map
    std::vector<FloatRect> boxes; // padded node boxes, in the order of RegionSlots::nodes
    std::vector<EdgeRef> edges; // the edge of each route: a plan walks this, not the item map
    /// The on-curve points of every route, in the order of RegionSlots::edges, one route after
    /// the other: route i is routePoints[routeStarts[i], routeStarts[i + 1]).
    std::vector<FloatPoint> routePoints;
    std::vector<std::uint32_t> routeStarts;
    std::vector<FloatRect> routeBounds; // each route's box grown by half the route pen
    BandIndex boxIndex;
    BandIndex routeIndex;

    /// Adds the padded box `box` of `node` (after those of lower ids).
    void addBox(NodeId node, const QRectF &box);
    /// Adds the route of `edge` (after those of lower EdgeRefs): the on-curve points of
    /// `spline`, its start and every segment's end.
    void addRoute(const EdgeRef &edge, const LayoutSpline &spline);
    /// Files the boxes and routes (all added) in the indexes; `halfPen` is half the width of
    /// the pen a route is stroked with.
    void index(qreal halfPen);

    [[nodiscard]] std::size_t boxCount() const { return boxes.size(); }
    [[nodiscard]] QRectF box(std::size_t i) const { return boxes[i].toRectF(); }
    [[nodiscard]] std::size_t routeCount() const { return edges.size(); }
    [[nodiscard]] std::span<const FloatPoint> route(std::size_t i) const
    {
        return std::span<const FloatPoint>(routePoints)
            .subspan(routeStarts[i], routeStarts[i + 1] - routeStarts[i]);
    }
    /// Route i as a polygon (made on each call).
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
    /// True when it was made from `l` (which is alive).
    [[nodiscard]] bool isOf(const Layout *l) const;
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
