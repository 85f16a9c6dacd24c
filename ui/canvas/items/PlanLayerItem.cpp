// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/PlanLayerItem.h"

namespace cleave::ui {

PlanLayerItem::PlanLayerItem(const QRectF &bounds, qreal z)
    : m_bounds(bounds)
{
    // Clipping to a rectangle as large as the scene cuts nothing off; it is what keeps the
    // children out of the scene's index (Qt files no item whose ancestor clips it).
    setFlags(ItemClipsChildrenToShape | ItemHasNoContents);
    setZValue(z);
}

void PlanLayerItem::paint(QPainter * /*painter*/, const QStyleOptionGraphicsItem * /*option*/,
                          QWidget * /*widget*/)
{
}

} // namespace cleave::ui
