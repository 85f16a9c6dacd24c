// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QPixmap>
#include <QWidget>

namespace cleave::ui {

class CanvasView;

/// An overview of the whole drawing in a corner of the canvas with the visible area framed;
/// clicking or dragging in it moves the view there.
class Minimap : public QWidget
{
    Q_OBJECT
public:
    Minimap(CanvasView *view, QWidget *parent);

    /// Re-renders the overview of `sceneBounds` (after a layout or a plan change).
    void refresh(const QRectF &sceneBounds);
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
