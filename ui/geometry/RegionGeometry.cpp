// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/geometry/RegionGeometry.h"

#include "ui/geometry/LayoutRectF.h"

#include <algorithm>

namespace cleave::ui {

void RegionGeometry::addBox(NodeId node, const QRectF &box)
{
    nodes.push_back(node);
    boxes.push_back(FloatRect::fromRectF(box));
}

void RegionGeometry::addRoute(const EdgeRef &edge, const LayoutSpline &spline)
{
    if (routeStarts.empty())
        routeStarts.push_back(0);
    edges.push_back(edge);
    const std::span<const LayoutPoint> p = spline.points();
    for (std::size_t i = 0; i < p.size(); i += 3)
        routePoints.push_back({ p[i].x, p[i].y });
    routeStarts.push_back(static_cast<std::uint32_t>(routePoints.size()));
}

QPolygonF RegionGeometry::routePolygon(std::size_t i) const
{
    const std::span<const FloatPoint> points = route(i);
    QPolygonF out;
    out.reserve(static_cast<qsizetype>(points.size()));
    for (const FloatPoint &p : points)
        out.append(p.toPointF());
    return out;
}

void RegionGeometry::index(qreal halfPen)
{
    routeBounds.clear();
    routeBounds.reserve(edges.size());
    const auto grow = static_cast<float>(halfPen);
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const std::span<const FloatPoint> points = route(i);
        FloatRect r;
        if (!points.empty()) {
            r = { points.front().x, points.front().y, points.front().x, points.front().y };
            for (const FloatPoint &p : points) {
                r.left = std::min(r.left, p.x);
                r.top = std::min(r.top, p.y);
                r.right = std::max(r.right, p.x);
                r.bottom = std::max(r.bottom, p.y);
            }
        }
        routeBounds.push_back({ r.left - grow, r.top - grow, r.right + grow, r.bottom + grow });
    }
    boxIndex.build(boxes);
    routeIndex.build(routeBounds);
}

bool RegionGeometry::isOf(const Layout *l) const
{
    return l != nullptr && layout.lock().get() == l;
}

std::shared_ptr<const RegionGeometry>
makeRegionGeometry(const std::shared_ptr<const Layout> &layout)
{
    auto geometry = std::make_shared<RegionGeometry>();
    if (!layout)
        return geometry;
    geometry->layout = layout;
    geometry->boxes.reserve(layout->nodes.size());
    geometry->nodes.reserve(layout->nodes.size());
    for (const auto &[id, r] : layout->nodes)
        geometry->addBox(id, toRectF(r).adjusted(-regionPadX, -regionPadY, regionPadX, regionPadY));
    // Sized exactly: a spline of 3k + 1 points has k + 1 on the curve.
    std::size_t routes = 0;
    std::size_t points = 0;
    for (const auto &[edge, spline] : layout->edges) {
        if (spline.points().empty())
            continue; // not drawn
        ++routes;
        points += (spline.points().size() + 2) / 3;
    }
    geometry->edges.reserve(routes);
    geometry->routeStarts.reserve(routes + 1);
    geometry->routePoints.reserve(points);
    for (const auto &[edge, spline] : layout->edges)
        if (!spline.points().empty())
            geometry->addRoute(edge, spline);
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
