// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/canvas/view/CanvasTool.h"

#include <QPointF>

#include <functional>
#include <utility>

namespace cleave::ui {

/// What a click does to the canvas's selection, which the canvas keeps per node (node items
/// exist only where the view needs them, so Qt's item selection cannot hold it).
struct NodeClicks
{
    /// A click at `scenePos`: selects the node there (`add`: toggles it), true; false when no
    /// node is there.
    std::function<bool(const QPointF &scenePos, bool add)> click;
    /// Empties the selection (a press on empty space without Shift or Ctrl).
    std::function<void()> clear;
};

/// Click selects a node, Shift- or Ctrl-click toggles it, dragging on empty space draws a
/// rubber band (adding to the selection with Shift or Ctrl; the canvas selects the nodes it
/// meets as it follows QGraphicsView::rubberBandChanged).
class SelectTool : public CanvasTool
{
public:
    using CanvasTool::CanvasTool;
    void setClicks(NodeClicks clicks) { m_clicks = std::move(clicks); }
    void activate() override;
    void deactivate() override;
    bool mousePress(QMouseEvent *event) override;
    bool mouseMove(QMouseEvent *event) override;
    bool mouseRelease(QMouseEvent *event) override;

private:
    /// Qt toggles with Ctrl only; Shift is the same gesture for our users.
    bool forwardWithShiftAsControl(QMouseEvent *event, int which);

    NodeClicks m_clicks;
};

} // namespace cleave::ui
