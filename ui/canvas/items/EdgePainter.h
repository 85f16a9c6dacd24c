// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/layout/Layout.h"

#include <QColor>
#include <QRectF>

class QPainter;

namespace cleave::ui {

class EdgeLabels;

/// What a drawn edge's look depends on beyond its route: the canvas's state for it (what
/// EdgeItem holds, without an item).
struct EdgeLook
{
    QColor boundary; ///< Bold in this partition's colour (invalid: not a boundary edge).
    qreal flash = 0; ///< An implied edge's flash, 0 (off) to 1.
    bool cutHover = false; ///< Crossed by the cut stroke being drawn.
    bool highlighted = false;
    bool hovered = false; ///< Under the mouse.
};

/// Where an edge's shape label is written: just below the producer, right of the route's
/// start (empty for a route without points).
[[nodiscard]] QRectF edgeLabelRect(const LayoutSpline &spline);

/// Paints one edge as the canvas shows it at level of detail `lod` (the painter's scale): the
/// route and arrowhead in the colour and width of its state, a plain polyline far out (below
/// 0.12), only the segments near the painter's viewport of a route reaching beyond it
/// (`bounds`: its edgeItemBounds()), and from a lod of 1 the tensor's shape beside its start
/// when `labels` is given (asked for `edge`'s text). Leaves the painter's pen, brush, font and
/// render hints changed: the caller saves and restores around it.
void paintEdge(QPainter &painter, const LayoutSpline &spline, const QRectF &bounds,
               const EdgeLook &look, qreal lod, const EdgeLabels *labels = nullptr,
               EdgeRef edge = {});

} // namespace cleave::ui
