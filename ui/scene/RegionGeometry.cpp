// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/RegionGeometry.h"

#include "ui/scene/GraphItems.h"

#include <algorithm>

namespace cleave::ui {

void RegionGeometry::index(qreal halfPen)
{
    routeBounds.clear();
    routeBounds.reserve(routes.size());
    for (const QPolygonF &route : routes)
        routeBounds.push_back(route.boundingRect().adjusted(-halfPen, -halfPen, halfPen, halfPen));
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
    for (const auto &[id, r] : layout->nodes) {
        geometry->boxes.emplace_back(r.x - regionPadX, r.y - regionPadY, r.width + 2 * regionPadX,
                                     r.height + 2 * regionPadY);
        geometry->nodes.push_back(id);
    }
    geometry->edges.reserve(layout->edges.size());
    geometry->routes.reserve(layout->edges.size());
    for (const auto &[edge, spline] : layout->edges) {
        if (spline.points.empty())
            continue; // not drawn
        geometry->edges.push_back(edge);
        onCurvePoints(spline, geometry->routes.emplace_back());
    }
    geometry->index(PartitionRegionItem::routeWidth / 2);
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
    auto add = [&](std::int32_t slot, const QRectF &rect, bool box) {
        if (slot < 0 || static_cast<std::size_t>(slot) >= partitionCount)
            return;
        Span &s = spans[static_cast<std::size_t>(slot)];
        const bool first = s.boxes + s.routes == 0;
        s.left = first ? rect.left() : std::min(s.left, rect.left());
        s.top = first ? rect.top() : std::min(s.top, rect.top());
        s.right = first ? rect.right() : std::max(s.right, rect.right());
        s.bottom = first ? rect.bottom() : std::max(s.bottom, rect.bottom());
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
