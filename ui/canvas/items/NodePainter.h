// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/LayoutGraph.h"
#include "ui/support/OpCategory.h"

#include <QColor>
#include <QRectF>
#include <QString>

class QPainter;

namespace cleave::ui {

/// Everything a drawn node's look depends on, read from the layout, the graph and the canvas's
/// state: what NodeItem holds, without an item.
struct NodeLook
{
    QRectF rect; ///< The node's box (scene coordinates).
    LayoutNodeRole role = LayoutNodeRole::Operator;
    OpCategory category = OpCategory::Other;
    const QString *title = nullptr; ///< The op name (nullptr: none; read only when zoomed in).
    const QString *subtitle = nullptr; ///< The output shape (nullptr or empty: one line).
    QRgb mark = 0; ///< A comparison's ring colour (0: none).
    bool selected = false;
    bool highlighted = false;
    bool problem = false;
};

/// The selection's outline colour (#1e6fd9).
[[nodiscard]] QColor nodeSelectionColour();
/// The colour of highlighted nodes and edges (a search result, a focused diagnostic).
[[nodiscard]] QColor highlightColour();

/// Paints one node as the canvas shows it at level of detail `lod` (the painter's scale): a
/// rounded box coloured by its op category with the op name and output shape (text from a lod
/// of 0.45), a flat box far out (below 0.12). Leaves the painter's pen, brush, font and render
/// hints changed: the caller saves and restores around it.
void paintNode(QPainter &painter, const NodeLook &look, qreal lod);

/// The lod from which node labels are written.
constexpr qreal nodeTextZoom = 0.45;

} // namespace cleave::ui
