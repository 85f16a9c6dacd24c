// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/CanvasViewState.h"

#include "ui/document/LevelView.h"

#include <QGraphicsView>

namespace cleave::ui {

CanvasViewState::CanvasViewState(CanvasWidget *canvas, LevelView *levels, QObject *parent)
    : QObject(parent)
    , m_canvas(canvas)
    , m_levels(levels)
{
    connect(m_canvas, &CanvasWidget::layoutFinished, this,
            [this](bool ok) { onLayoutFinished(ok); });
}

cleave::ProjectViewState CanvasViewState::capture() const
{
    cleave::ProjectViewState state;
    state.tool = m_canvas->tool() == CanvasWidget::Tool::Cut ? "cut" : "select";
    state.level = m_levels->level() == LevelView::Level::Blocks ? "blocks" : "ops";
    if (QGraphicsView *view = m_canvas->view(); view && m_canvas->isLayoutReady()) {
        state.zoom = view->transform().m11();
        const QPointF centre = view->mapToScene(view->viewport()->rect().center());
        state.centerX = centre.x();
        state.centerY = centre.y();
        state.hasCenter = true;
    }
    return state;
}

void CanvasViewState::restore(const cleave::ProjectViewState &state)
{
    emit toolRestored(state.tool == "cut" ? CanvasWidget::Tool::Cut : CanvasWidget::Tool::Select);
    const LevelView::Level level
        = state.level == "blocks" ? LevelView::Level::Blocks : LevelView::Level::Ops;
    if (level != m_levels->level() || !m_canvas->isLayoutReady()) {
        // The level needs its own layout; the view is restored once it is ready.
        m_pending = state;
        m_levels->setLevel(level);
        return;
    }
    m_pending.reset();
    QGraphicsView *view = m_canvas->view();
    if (!view || !state.hasCenter)
        return;
    view->setTransform(QTransform::fromScale(state.zoom, state.zoom));
    view->centerOn(QPointF(state.centerX, state.centerY));
}

void CanvasViewState::onLayoutFinished(bool ok)
{
    if (!ok || !m_pending)
        return;
    const cleave::ProjectViewState pending = *m_pending;
    m_pending.reset();
    restore(pending);
}

} // namespace cleave::ui
