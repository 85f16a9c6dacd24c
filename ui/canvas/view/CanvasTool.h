// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

class QMouseEvent;
class QPainter;

namespace cleave::ui {

class CanvasView;

/// What the left mouse button does on the canvas. The view routes presses, moves and releases
/// to the active tool (panning with the middle button or space-drag is the view's own); a tool
/// returns false to let the view's default handling (item selection, rubber band) run.
class CanvasTool
{
public:
    explicit CanvasTool(CanvasView &view)
        : m_view(view)
    {
    }
    virtual ~CanvasTool() = default;
    CanvasTool(const CanvasTool &) = delete;
    CanvasTool &operator=(const CanvasTool &) = delete;

    virtual void activate() { }
    /// Leaves the tool: abandons anything half-done (a stroke in progress).
    virtual void deactivate() { }
    virtual bool mousePress(QMouseEvent *event) = 0;
    virtual bool mouseMove(QMouseEvent *event) = 0;
    virtual bool mouseRelease(QMouseEvent *event) = 0;
    /// Draws what the tool shows (its stroke, the edges it lit) over the far picture, which
    /// stands for the items when zoomed far out; `painter` works in scene coordinates.
    virtual void paintFarOverlay(QPainter & /*painter*/) const { }

protected:
    [[nodiscard]] CanvasView &view() const { return m_view; }

private:
    CanvasView &m_view;
};

} // namespace cleave::ui
