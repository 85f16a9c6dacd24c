// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/view/CanvasView.h"

#include "ui/canvas/far/FarPicture.h"
#include "ui/canvas/view/CanvasTool.h"

#include <QGestureEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPainter>
#include <QPinchGesture>
#include <QRubberBand>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOptionRubberBand>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace cleave::ui {

namespace {

constexpr qreal minZoom = 0.01;
// Fitting may go further out than zooming by hand: a big graph is shown whole.
constexpr qreal minFitZoom = 0.0001;
constexpr qreal maxZoom = 6.0;

} // namespace

CanvasView::CanvasView(QWidget *parent)
    : QGraphicsView(parent)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setOptimizationFlags(QGraphicsView::DontAdjustForAntialiasing);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setTransformationAnchor(QGraphicsView::NoAnchor);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setBackgroundBrush(QColor(0xfb, 0xfb, 0xfc));
    setFrameShape(QFrame::NoFrame);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    viewport()->grabGesture(Qt::PinchGesture);
}

void CanvasView::setTool(CanvasTool *tool)
{
    if (m_tool == tool)
        return;
    if (m_tool != nullptr)
        m_tool->deactivate();
    m_tool = tool;
    if (m_tool != nullptr)
        m_tool->activate();
}

void CanvasView::zoomBy(qreal factor, const QPointF &anchor)
{
    const qreal current = zoom();
    // Below minZoom only after a fit: zooming never jumps back up to minZoom.
    const qreal target = std::clamp(current * factor, std::min(minZoom, current), maxZoom);
    if (target == current)
        return;
    const QPointF before = mapToScene(anchor.toPoint());
    scale(target / current, target / current);
    // Scroll so that the scene point that was under the anchor is under it again.
    const QPointF moved = mapFromScene(before) - anchor;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + qRound(moved.x()));
    verticalScrollBar()->setValue(verticalScrollBar()->value() + qRound(moved.y()));
    emit visibleAreaChanged();
}

void CanvasView::showRect(const QRectF &rect)
{
    if (rect.isEmpty())
        return;
    const QRectF padded = rect.adjusted(-24, -24, 24, 24);
    const QRectF area = viewport()->rect();
    qreal factor = std::min(area.width() / padded.width(), area.height() / padded.height());
    factor = std::clamp(factor, minFitZoom, 1.5);
    setTransform(QTransform::fromScale(factor, factor));
    centerOn(padded.center());
    emit visibleAreaChanged();
}

QRectF CanvasView::visibleArea() const
{
    return mapToScene(viewport()->rect()).boundingRect();
}

void CanvasView::paintEvent(QPaintEvent *event)
{
    // Far out, one scaled picture stands for tens of thousands of items a few pixels each;
    // a tool drawing with the left button (rubber band, cut stroke) draws over it.
    m_lastFar = m_far != nullptr && m_far->covers(zoom());
    if (!m_lastFar) {
        QGraphicsView::paintEvent(event);
        return;
    }
    QPainter painter(viewport());
    painter.fillRect(event->rect(), backgroundBrush());
    m_far->paint(painter, viewportTransform());
    if (m_tool != nullptr) {
        painter.setTransform(viewportTransform());
        m_tool->paintFarOverlay(painter);
        painter.resetTransform();
    }
    if (const QRect band = rubberBandRect(); !band.isNull()) {
        // As QGraphicsView draws it over the items.
        QStyleOptionRubberBand option;
        option.initFrom(viewport());
        option.rect = band;
        option.shape = QRubberBand::Rectangle;
        QStyleHintReturnMask mask;
        if (viewport()->style()->styleHint(QStyle::SH_RubberBand_Mask, &option, viewport(), &mask))
            painter.setClipRegion(mask.region, Qt::IntersectClip);
        viewport()->style()->drawControl(QStyle::CE_RubberBand, &option, &painter, viewport());
    }
}

void CanvasView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        const qreal steps
            = event->angleDelta().y() != 0 ? event->angleDelta().y() : event->pixelDelta().y();
        zoomBy(std::pow(1.0015, steps), event->position());
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void CanvasView::keyPressEvent(QKeyEvent *event)
{
    const QPointF centre = viewport()->rect().center();
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25, centre);
        return;
    case Qt::Key_Minus:
        zoomBy(0.8, centre);
        return;
    case Qt::Key_F:
        if (event->modifiers() == Qt::NoModifier) {
            emit fitRequested();
            return;
        }
        break;
    case Qt::Key_Z:
        if (event->modifiers() == Qt::NoModifier) {
            emit zoomToSelectionRequested();
            return;
        }
        break;
    case Qt::Key_Space:
        if (!event->isAutoRepeat()) {
            m_spaceHeld = true;
            viewport()->setCursor(Qt::OpenHandCursor);
        }
        return;
    default:
        break;
    }
    QGraphicsView::keyPressEvent(event);
}

void CanvasView::keyReleaseEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = false;
        if (m_tool != nullptr)
            m_tool->activate(); // restores the tool's cursor
        return;
    }
    QGraphicsView::keyReleaseEvent(event);
}

void CanvasView::focusOutEvent(QFocusEvent *event)
{
    if (m_spaceHeld) {
        m_spaceHeld = false;
        if (m_tool != nullptr)
            m_tool->activate();
    }
    QGraphicsView::focusOutEvent(event);
}

void CanvasView::startPan(const QPoint &pos)
{
    m_panning = true;
    m_panLast = pos;
    viewport()->setCursor(Qt::ClosedHandCursor);
}

void CanvasView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && m_spaceHeld)) {
        startPan(event->position().toPoint());
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && m_tool != nullptr && m_tool->mousePress(event))
        return;
    QGraphicsView::mousePressEvent(event);
}

void CanvasView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_panning) {
        const QPoint pos = event->position().toPoint();
        const QPoint delta = pos - m_panLast;
        m_panLast = pos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        event->accept();
        return;
    }
    // Not while a button drags a stroke or a band: hover matters when the mouse rests.
    if (m_itemsNeededAt && event->buttons() == Qt::NoButton)
        m_itemsNeededAt(event->position().toPoint());
    if (m_tool != nullptr && m_tool->mouseMove(event))
        return;
    QGraphicsView::mouseMoveEvent(event);
}

void CanvasView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_panning && (event->button() == Qt::MiddleButton || event->button() == Qt::LeftButton)) {
        m_panning = false;
        if (m_spaceHeld)
            viewport()->setCursor(Qt::OpenHandCursor);
        else if (m_tool != nullptr)
            m_tool->activate();
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && m_tool != nullptr && m_tool->mouseRelease(event))
        return;
    QGraphicsView::mouseReleaseEvent(event);
}

void CanvasView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        emit nodeDoubleClicked(mapToScene(event->position().toPoint()));
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void CanvasView::contextMenuEvent(QContextMenuEvent *event)
{
    emit contextMenuAt(event->pos(), event->globalPos());
    event->accept();
}

bool CanvasView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_toolTips) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = m_toolTips(help->pos());
        if (!text.isEmpty()) {
            QToolTip::showText(help->globalPos(), text, viewport());
            return true;
        }
    } else if (event->type() == QEvent::NativeGesture) {
        auto *gesture = static_cast<QNativeGestureEvent *>(event);
        if (gesture->gestureType() == Qt::ZoomNativeGesture) {
            zoomBy(1.0 + gesture->value(), gesture->position());
            return true;
        }
    } else if (event->type() == QEvent::Gesture) {
        auto *gestureEvent = static_cast<QGestureEvent *>(event);
        if (auto *pinch = static_cast<QPinchGesture *>(gestureEvent->gesture(Qt::PinchGesture))) {
            if (pinch->changeFlags() & QPinchGesture::ScaleFactorChanged)
                zoomBy(pinch->scaleFactor(),
                       viewport()->mapFromGlobal(pinch->centerPoint().toPoint()));
            gestureEvent->accept(pinch);
            return true;
        }
    }
    return QGraphicsView::viewportEvent(event);
}

void CanvasView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    emit visibleAreaChanged();
}

} // namespace cleave::ui
