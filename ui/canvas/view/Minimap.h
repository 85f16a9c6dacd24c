// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "ui/canvas/far/FarPictureData.h"

#include <QColor>
#include <QImage>
#include <QPixmap>
#include <QRectF>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace cleave::ui {

class CanvasView;

/// An overview of the whole drawing in a corner of the canvas with the visible area framed;
/// clicking or dragging in it moves the view there. The picture is a density picture of the
/// node boxes, drawn directly (not by rendering the scene: a 24k-node scene takes seconds),
/// over the partitions' tints (each node's padded box in a light shade of its partition).
///
/// The node boxes change with the layout, the marks and the theme; the tints with every plan.
/// So the boxes are drawn once into a picture of their own, and a plan change only fills the
/// tint boxes in pixels and lays that picture over them: a cut costs a pass of small integer
/// fills, not a redraw of every box. The boxes are read in place from the layout the far
/// picture draws (FarGeometry): the overview keeps no copy of them.
class Minimap : public QWidget
{
    Q_OBJECT
public:
    Minimap(CanvasView *view, QWidget *parent);

    /// Sets what is drawn: the node boxes of `geometry`'s layout in the colour of their
    /// category (`categoryColours`, by OpCategory), a node in `marks` in its mark's colour and
    /// a little larger, over the boxes that partitions tint (each node's box padded as its
    /// region pads it), in the layout's order (that of the nodeSlots that setTints() gives).
    /// Takes effect at the next refresh().
    void setDrawing(std::shared_ptr<const FarGeometry> geometry,
                    std::vector<QColor> categoryColours, std::unordered_map<NodeId, QColor> marks);
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
    /// Draws the node boxes into m_nodeLayer.
    void drawNodeLayer(const QSize &pixels, qreal scale);
    /// A box (scene coordinates) in the picture's device pixels, at least one wide and high.
    [[nodiscard]] QRectF place(const QRectF &box, qreal scale) const;

    CanvasView *m_view;
    QRectF m_bounds;
    QPixmap m_pixmap;
    std::shared_ptr<const FarGeometry> m_geometry;
    std::vector<QColor> m_categoryColours;
    std::unordered_map<NodeId, QColor> m_marks;
    std::shared_ptr<const std::vector<std::int32_t>> m_slots;
    std::vector<QRgb> m_tints;
    bool m_hasDrawing = false;
    // The node boxes on transparency, for m_layerBounds.
    QImage m_nodeLayer;
    QRectF m_layerBounds;
};

} // namespace cleave::ui
