// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/LevelPrefetchStarter.h"

#include "ui/canvas/CanvasWidget.h"
#include "ui/document/LevelView.h"

#include <QEvent>
#include <QGraphicsView>
#include <QTimer>

namespace cleave::ui {

LevelPrefetchStarter::LevelPrefetchStarter(CanvasWidget *canvas, LevelView *levels, QObject *parent)
    : QObject(parent)
    , m_canvas(canvas)
    , m_levels(levels)
{
    m_canvas->view()->viewport()->installEventFilter(this);
    connect(m_canvas, &CanvasWidget::layoutStarted, this, [this] { m_armed = false; });
    connect(m_canvas, &CanvasWidget::layoutFinished, this, [this](bool ok) {
        m_armed = ok && m_levels->level() == LevelView::Level::Ops;
        if (m_armed && !m_canvas->view()->viewport()->isVisible()) {
            m_armed = false;
            QTimer::singleShot(0, this, &LevelPrefetchStarter::start);
        }
    });
}

bool LevelPrefetchStarter::eventFilter(QObject *watched, QEvent *event)
{
    // Seen before the paint: the start is queued behind it.
    if (m_armed && event->type() == QEvent::Paint) {
        m_armed = false;
        QTimer::singleShot(0, this, &LevelPrefetchStarter::start);
    }
    return QObject::eventFilter(watched, event);
}

void LevelPrefetchStarter::start()
{
    // The user may have switched meanwhile, or another model may be laid out.
    if (m_levels->level() == LevelView::Level::Ops && m_canvas->isLayoutReady())
        m_levels->prepareBlocks(m_canvas->layoutCache(), m_canvas->regionGeometries());
}

} // namespace cleave::ui
