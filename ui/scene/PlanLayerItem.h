// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QGraphicsItem>

namespace cleave::ui {

/// The parent of what a plan draws at one depth (the partition regions, their names, the
/// boundary badges): as large as the scene, drawing nothing itself, made once per layout.
///
/// Each plan change replaces these items, and as top-level items of a large scene they were
/// costly to replace: a region spans most of the drawing, so the scene's BSP index files it in
/// every leaf (hundreds of thousands on a 100k-node model) and walked them all to add or remove
/// it, and removing any top-level item searches the scene's list of all top-level items.
/// Children of an item that clips them are not filed in the index (the scene finds them
/// through this one item) and are removed from their parent's short list of children.
class PlanLayerItem : public QGraphicsItem
{
public:
    /// A layer covering `bounds` (the scene rect) stacked at `z` among the top-level items.
    PlanLayerItem(const QRectF &bounds, qreal z);
    [[nodiscard]] QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QRectF m_bounds;
};

} // namespace cleave::ui
