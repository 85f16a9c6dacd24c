// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QColor>
#include <QImage>
#include <QPixmap>
#include <QRectF>
#include <QWidget>

#include <cstdint>
#include <memory>
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
/// node boxes, drawn directly (not by rendering the scene: a 24k-node scene takes seconds),
/// over the partitions' tints (each node's padded box in a light shade of its partition).
///
/// The node boxes change with the layout, the marks and the theme; the tints with every plan.
/// So the boxes are drawn once into a picture of their own, and a plan change only fills the
/// tint boxes, precomputed in pixels, and lays that picture over them: a cut costs a pass of
/// small integer fills, not a redraw of every box.
class Minimap : public QWidget
{
    Q_OBJECT
public:
    Minimap(CanvasView *view, QWidget *parent);

    /// Sets what is drawn: `nodes` (drawn on top, in order) and the boxes that partitions tint,
    /// in the order of the nodeSlots that setTints() gives (scene coordinates). Takes effect at the
    /// next refresh().
    void setDrawing(std::vector<MinimapBox> nodes, std::vector<QRectF> tintBoxes);
    /// Tints box i of the drawing with `tints[nodeSlots[i]]`; a negative slot, or no nodeSlots at
    /// all, leaves it untinted. Takes effect at the next refresh().
    void setTints(std::shared_ptr<const std::vector<std::int32_t>> nodeSlots,
                  std::vector<QRgb> tints);
    /// Whether a drawing was set since the last clear().
    [[nodiscard]] bool hasDrawing() const { return m_hasDrawing; }
    /// Shows the overview of `sceneBounds`: redraws the node boxes only when the bounds, the
    /// size or the drawing changed, the tints always.
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
    /// Draws the node boxes into m_nodeLayer and places the tint boxes in its pixels.
    void drawNodeLayer(const QSize &pixels, qreal scale);

    CanvasView *m_view;
    QRectF m_bounds;
    QPixmap m_pixmap;
    std::vector<MinimapBox> m_nodes;
    std::vector<QRectF> m_tintBoxes;
    std::shared_ptr<const std::vector<std::int32_t>> m_slots;
    std::vector<QRgb> m_tints;
    bool m_hasDrawing = false;
    // The node boxes on transparency, and the tint boxes in its pixels, for m_layerBounds.
    QImage m_nodeLayer;
    std::vector<QRect> m_tintPixels;
    QRectF m_layerBounds;
};

} // namespace cleave::ui
