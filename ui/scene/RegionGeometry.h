// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/layout/Layout.h"
#include "ui/scene/BandIndex.h"

#include <QPolygonF>
#include <QRectF>

#include <cstdint>
#include <memory>
#include <vector>

namespace cleave::ui {

/// How far a partition's region reaches beside a node box, and above and below it.
inline constexpr qreal regionPadX = 12;
inline constexpr qreal regionPadY = 15;

/// What partition regions are drawn from, made once per layout: every drawn node's padded box
/// and every edge's on-curve route, each filed in a BandIndex. A plan then only says which
/// partition each box and route belongs to (RegionSlots), so a cut re-colours the same shapes
/// instead of building them again. Shared, read-only, by the regions of every plan.
///
/// Made from the layout alone (makeRegionGeometry()), on the worker that makes or prepares the
/// layout, and handed over beside it (RegionGeometryStore): plain geometry, no items.
struct RegionGeometry
{
    /// The layout it was made from (not held: a store of geometries keeps no layout alive).
    std::weak_ptr<const Layout> layout;
    std::vector<QRectF> boxes; // padded node boxes, in the order of RegionSlots::nodes
    std::vector<NodeId> nodes; // the node of each box: a plan walks this, not the item map
    std::vector<EdgeRef> edges; // the edge of each route: a plan walks this, not the item map
    std::vector<QPolygonF> routes; // on-curve routes, in the order of RegionSlots::edges
    std::vector<QRectF> routeBounds; // each route's box grown by half the route pen
    BandIndex boxIndex;
    BandIndex routeIndex;
    /// Files `boxes` and `routes` (already set) in the indexes; `halfPen` is half the width
    /// of the pen a route is stroked with.
    void index(qreal halfPen);
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
