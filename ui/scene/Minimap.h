// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QColor>
#include <QPixmap>
#include <QRectF>
#include <QWidget>

#include <vector>

namespace cleave::ui {

class CanvasView;

/// One box of the overview: a node's rectangle (scene coordinates) and its colour.
struct MinimapBox
{
    QRectF rect;
    QColor colour;
};

/// An overview of the whole drawing in a corner of the canvas with the visible area framed;
/// clicking or dragging in it moves the view there. The picture is a density picture of the
/// node boxes, drawn directly (not by rendering the scene: a 24k-node scene takes seconds).
class Minimap : public QWidget
{
    Q_OBJECT
public:
    Minimap(CanvasView *view, QWidget *parent);

    /// Redraws the overview of `sceneBounds` from `boxes` (after a layout or a plan change).
    void refresh(const QRectF &sceneBounds, const std::vector<MinimapBox> &boxes);
    void clear();
    [[nodiscard]] QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    [[nodiscard]] QRectF drawArea() const;
    void centreViewAt(const QPointF &widgetPos);

    CanvasView *m_view;
    QRectF m_bounds;
    QPixmap m_pixmap;
};

} // namespace cleave::ui
