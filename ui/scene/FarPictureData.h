// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"

#include <QColor>
#include <QPolygonF>
#include <QRectF>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cleave::ui {

/// What the far picture draws that changes only with the layout: the node boxes and the edge
/// routes, in the canvas' node and edge order. Plain immutable data, shared with the worker
/// that renders the picture; the routes are read from the layout's splines, which it keeps
/// alive.
struct FarGeometry
{
    std::shared_ptr<const Layout> layout;
    QRectF bounds; ///< The scene rectangle the picture covers.
    std::vector<QRectF> nodes;
    std::vector<std::uint8_t> categories; ///< OpCategory of each node.
    std::vector<const LayoutSpline *> edges; ///< Points into `layout`.
    qreal regionPadX = 0; ///< How far a partition's tint reaches beside a node box.
    qreal regionPadY = 0; ///< ... and above and below it.
    qreal routeWidth = 0; ///< Width of a partition's tint along the routes inside it.
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
