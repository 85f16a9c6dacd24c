// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QImage>
#include <QRectF>

#include <functional>

class QPainter;
class QTransform;

namespace cleave::ui {

/// The far view of a large drawing: one image of the whole drawing (node boxes, routes and
/// partition tints, a density picture) drawn once and scaled, instead of painting tens of
/// thousands of items that are a few pixels each. Redrawn lazily, on the first far frame after
/// invalidate(). The canvas view paints it below `farZoom`, while no mouse button is held.
class FarPicture
{
public:
    /// Draws the drawing in scene coordinates (the painter is already scaled).
    using DrawFunction = std::function<void(QPainter &painter, qreal scale)>;
    /// At or below this zoom items are flat boxes and hairlines: the picture looks the same.
    static constexpr qreal farZoom = 0.1;

    void setSource(const QRectF &bounds, DrawFunction draw);
    void clear();
    /// The next far frame redraws the picture (after a plan, selection or highlight change).
    void invalidate() { m_dirty = true; }
    /// True when the picture may stand for the items at `zoom` (never magnified over 2x).
    [[nodiscard]] bool covers(qreal zoom) const;
    /// Paints the picture through `sceneToDevice`, redrawing it first when invalidated.
    void paint(QPainter &painter, const QTransform &sceneToDevice);
    [[nodiscard]] qreal scale() const { return m_scale; }

private:
    QRectF m_bounds;
    DrawFunction m_draw;
    QImage m_image;
    qreal m_scale = 0;
    bool m_dirty = true;
};

} // namespace cleave::ui
