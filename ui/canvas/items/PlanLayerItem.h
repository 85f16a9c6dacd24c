// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QGraphicsItem>

namespace cleave::ui {

/// The parent of what a plan draws at one depth (the partition regions, their names, the
/// boundary badges): as large as the scene, drawing nothing itself, made once per layout.
///
/// Each plan change replaces these items. As children of a layer they never enter the scene's
/// list of top-level items (its index: the canvas's scene keeps no BSP tree, see ItemTile), so
/// adding or removing one touches only its parent's short list of children, and a paint or a
/// hit test reaches them through this one item.
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
