// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/tools/SelectTool.h"

#include "ui/canvas/view/CanvasView.h"

#include <QMouseEvent>

namespace cleave::ui {

void SelectTool::activate()
{
    view().setDragMode(QGraphicsView::RubberBandDrag);
    view().setRubberBandSelectionMode(Qt::IntersectsItemShape);
    view().viewport()->unsetCursor();
}

void SelectTool::deactivate()
{
    view().setDragMode(QGraphicsView::NoDrag);
}

bool SelectTool::forwardWithShiftAsControl(QMouseEvent *event, int which)
{
    if (!(event->modifiers() & Qt::ShiftModifier))
        return false;
    const Qt::KeyboardModifiers modifiers
        = (event->modifiers() & ~Qt::ShiftModifier) | Qt::ControlModifier;
    QMouseEvent copy(event->type(), event->position(), event->scenePosition(),
                     event->globalPosition(), event->button(), event->buttons(), modifiers);
    switch (which) {
    case 0:
        view().baseMousePress(&copy);
        break;
    case 1:
        view().baseMouseMove(&copy);
        break;
    default:
        view().baseMouseRelease(&copy);
        break;
    }
    event->setAccepted(copy.isAccepted());
    return true;
}

bool SelectTool::mousePress(QMouseEvent *event)
{
    const bool add = (event->modifiers() & (Qt::ShiftModifier | Qt::ControlModifier)) != 0;
    if (event->button() == Qt::LeftButton && m_clicks.click
        && m_clicks.click(view().mapToScene(event->position().toPoint()), add)) {
        event->accept();
        return true;
    }
    // Empty space (or a block frame, which selects its block): the rubber band starts.
    if (event->button() == Qt::LeftButton && !add && m_clicks.clear)
        m_clicks.clear();
    return forwardWithShiftAsControl(event, 0);
}

bool SelectTool::mouseMove(QMouseEvent *event)
{
    return forwardWithShiftAsControl(event, 1);
}

bool SelectTool::mouseRelease(QMouseEvent *event)
{
    return forwardWithShiftAsControl(event, 2);
}

} // namespace cleave::ui
