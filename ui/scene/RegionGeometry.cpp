// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/RegionGeometry.h"

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

std::vector<RegionExtent> regionExtents(const RegionGeometry &geometry,
                                        const RegionSlots &membership, std::size_t partitionCount)
{
    std::vector<RegionExtent> extents(partitionCount);
    auto add = [&](std::int32_t slot, const QRectF &rect, bool box) {
        if (slot < 0 || static_cast<std::size_t>(slot) >= partitionCount)
            return;
        RegionExtent &e = extents[static_cast<std::size_t>(slot)];
        e.bounds = e.bounds.isNull() ? rect : e.bounds.united(rect);
        ++(box ? e.boxCount : e.routeCount);
    };
    if (membership.nodes)
        for (std::size_t i = 0; i < membership.nodes->size() && i < geometry.boxes.size(); ++i)
            add((*membership.nodes)[i], geometry.boxes[i], true);
    if (membership.edges)
        for (std::size_t i = 0; i < membership.edges->size() && i < geometry.routeBounds.size();
             ++i)
            add((*membership.edges)[i], geometry.routeBounds[i], false);
    return extents;
}

} // namespace cleave::ui
