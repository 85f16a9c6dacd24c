// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"
#include "ui/geometry/LayoutRectF.h"

#include <QColor>
#include <QPolygonF>
#include <QRectF>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cleave::ui {

/// What the far picture draws that changes only with the layout: the node boxes and the edge
/// routes of `layout`, read in place in its orders (its nodes by id; its edges that have a
/// route, by EdgeRef: the orders of the canvas' region geometry, which the plan layer's slots
/// follow), and the category of each node. Plain immutable data, shared with the worker that
/// renders the picture and with the minimap; no box or route is copied.
struct FarGeometry
{
    std::shared_ptr<const Layout> layout; ///< Null: nothing is drawn.
    QRectF bounds; ///< The scene rectangle the picture covers.
    std::vector<std::uint8_t> categories; ///< OpCategory of each of the layout's nodes.
    qreal regionPadX = 0; ///< How far a partition's tint reaches beside a node box.
    qreal regionPadY = 0; ///< ... and above and below it.
    qreal routeWidth = 0; ///< Width of a partition's tint along the routes inside it.

    /// The box a partition tints around the layout's node `node` (an index in its order): the
    /// node's rectangle grown by regionPadX and regionPadY.
    [[nodiscard]] QRectF regionBox(std::size_t node) const
    {
        return toRectF((layout->nodes.begin() + static_cast<std::ptrdiff_t>(node))->second)
            .adjusted(-regionPadX, -regionPadY, regionPadX, regionPadY);
    }
};

/// The colours of the plan-independent layer: ordinary edges, node boxes by category, and the
/// boxes drawn in another colour (problems, comparison marks, the highlight, the selection, in
/// that order: a later one covers an earlier one).
struct FarStyle
{
    QRgb edge = 0;
    std::vector<QRgb> categories; ///< Box colour per OpCategory value.
    std::vector<std::pair<QRectF, QRgb>> boxes;
    friend bool operator==(const FarStyle &, const FarStyle &) = default;
};

/// The plan layer: partition tints under the nodes and routes, boundary edges over them.
struct FarPlan
{
    /// Partition index of each node (geometry order), -1 for none; empty: no plan shown.
    std::shared_ptr<const std::vector<std::int32_t>> nodeSlots;
    /// Partition index of each edge whose ends are in one partition, -1 otherwise.
    std::shared_ptr<const std::vector<std::int32_t>> edgeSlots;
    std::vector<QRgb> tints; ///< The tint of each partition index.
    /// Boundary edges as on-curve polylines, bold in their producer partition's colour.
    std::shared_ptr<const std::vector<std::pair<QPolygonF, QRgb>>> boundary;
};

/// Everything one render of the far picture reads.
struct FarState
{
    FarStyle style;
    FarPlan plan;
};

} // namespace cleave::ui
