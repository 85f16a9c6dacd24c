// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/geometry/RegionGeometry.h"

#include "ui/geometry/LayoutRectF.h"

#include <algorithm>

namespace cleave::ui {

std::size_t RegionGeometry::routeOf(const EdgeRef &edge) const
{
    const std::size_t found = layout ? layout->edges.find(edge) : LayoutRoutes::npos;
    if (found == LayoutRoutes::npos)
        return routeCount();
    if (everyEdgeRouted)
        return found;
    const auto it
        = std::lower_bound(routeEdges.begin(), routeEdges.end(), static_cast<std::uint32_t>(found));
    return it != routeEdges.end() && *it == found
        ? static_cast<std::size_t>(it - routeEdges.begin())
        : routeCount();
}

QPolygonF RegionGeometry::routePolygon(std::size_t i) const
{
    const std::span<const LayoutPoint> points = route(i);
    QPolygonF out;
    out.reserve(static_cast<qsizetype>((points.size() + 2) / 3));
    for (std::size_t k = 0; k < points.size(); k += 3)
        out.append(QPointF(points[k].x, points[k].y));
    return out;
}

void RegionGeometry::index(qreal halfPen)
{
    const std::size_t routes
        = everyEdgeRouted ? (layout ? layout->edges.size() : 0) : routeEdges.size();
    routeBounds.clear();
    routeBounds.reserve(routes);
    const auto grow = static_cast<float>(halfPen);
    for (std::size_t i = 0; i < routes; ++i) {
        // The bounds of the on-curve points (the tint follows the polyline through them).
        const std::span<const LayoutPoint> points = route(i);
        FloatRect r;
        if (!points.empty()) {
            r = { points.front().x, points.front().y, points.front().x, points.front().y };
            for (std::size_t k = 0; k < points.size(); k += 3) {
                r.left = std::min(r.left, points[k].x);
                r.top = std::min(r.top, points[k].y);
                r.right = std::max(r.right, points[k].x);
                r.bottom = std::max(r.bottom, points[k].y);
            }
        }
        routeBounds.push_back({ r.left - grow, r.top - grow, r.right + grow, r.bottom + grow });
    }
    boxIndex.build(boxes);
    routeIndex.build(routeBounds);
}

bool RegionGeometry::isOf(const Layout *l) const
{
    return l != nullptr && layout.get() == l && !isOrphaned();
}

std::shared_ptr<const RegionGeometry>
makeRegionGeometry(const std::shared_ptr<const Layout> &layout)
{
    auto geometry = std::make_shared<RegionGeometry>();
    if (!layout)
        return geometry;
    geometry->layout = layout;
    geometry->boxes.reserve(layout->nodes.size());
    for (const auto &[id, r] : layout->nodes)
        geometry->boxes.push_back(FloatRect::fromRectF(
            toRectF(r).adjusted(-regionPadX, -regionPadY, regionPadX, regionPadY)));
    // A route per layout edge, unless some edge is not drawn (no points): then the list of
    // those that are.
    std::size_t routes = 0;
    for (std::size_t i = 0; i < layout->edges.size(); ++i)
        routes += layout->edges.spline(i).points().empty() ? 0 : 1;
    if (routes < layout->edges.size()) {
        geometry->everyEdgeRouted = false;
        geometry->routeEdges.reserve(routes);
        for (std::size_t i = 0; i < layout->edges.size(); ++i)
            if (!layout->edges.spline(i).points().empty())
                geometry->routeEdges.push_back(static_cast<std::uint32_t>(i));
    }
    geometry->index(regionRouteWidth / 2);
    return geometry;
}

std::vector<RegionExtent> regionExtents(const RegionGeometry &geometry,
                                        const RegionSlots &membership, std::size_t partitionCount)
{
    // Coordinates kept as plain minima and maxima (a QRectF union per shape normalises both
    // rectangles: most of a pass over 100k boxes and routes).
    struct Span
    {
        qreal left = 0, top = 0, right = 0, bottom = 0;
        std::size_t boxes = 0, routes = 0;
    };
    std::vector<Span> spans(partitionCount);
    auto add = [&](std::int32_t slot, const FloatRect &rect, bool box) {
        if (slot < 0 || static_cast<std::size_t>(slot) >= partitionCount)
            return;
        Span &s = spans[static_cast<std::size_t>(slot)];
        const bool first = s.boxes + s.routes == 0;
        s.left = first ? rect.left : std::min<qreal>(s.left, rect.left);
        s.top = first ? rect.top : std::min<qreal>(s.top, rect.top);
        s.right = first ? rect.right : std::max<qreal>(s.right, rect.right);
        s.bottom = first ? rect.bottom : std::max<qreal>(s.bottom, rect.bottom);
        ++(box ? s.boxes : s.routes);
    };
    if (membership.nodes)
        for (std::size_t i = 0; i < membership.nodes->size() && i < geometry.boxes.size(); ++i)
            add((*membership.nodes)[i], geometry.boxes[i], true);
    if (membership.edges)
        for (std::size_t i = 0; i < membership.edges->size() && i < geometry.routeBounds.size();
             ++i)
            add((*membership.edges)[i], geometry.routeBounds[i], false);
    std::vector<RegionExtent> extents(partitionCount);
    for (std::size_t i = 0; i < partitionCount; ++i) {
        const Span &s = spans[i];
        if (s.boxes + s.routes > 0)
            extents[i].bounds = QRectF(QPointF(s.left, s.top), QPointF(s.right, s.bottom));
        extents[i].boxCount = s.boxes;
        extents[i].routeCount = s.routes;
    }
    return extents;
}

} // namespace cleave::ui
