// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/tools/CutTool.h"

#include "ui/canvas/view/CanvasView.h"

#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QPen>

namespace cleave::ui {

namespace {

// The colour of the stroke and of the edges it crosses (EdgeItem's cut hover).
const QColor cutColour(0xe5, 0x39, 0x35);

} // namespace

CutTool::~CutTool()
{
    reset();
}

void CutTool::activate()
{
    view().setDragMode(QGraphicsView::NoDrag);
    view().viewport()->setCursor(Qt::CrossCursor);
}

void CutTool::deactivate()
{
    reset();
    view().viewport()->unsetCursor();
}

void CutTool::reset()
{
    if (m_targets.light)
        for (const EdgeRef &edge : m_crossed)
            m_targets.light(edge, false);
    m_crossed.clear();
    if (m_stroke != nullptr) {
        if (m_stroke->scene() != nullptr)
            m_stroke->scene()->removeItem(m_stroke);
        delete m_stroke;
        m_stroke = nullptr;
    }
    m_path = {};
}

bool CutTool::mousePress(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || view().scene() == nullptr)
        return false;
    reset();
    m_last = view().mapToScene(event->position().toPoint());
    // The stroke is kept here: a path holding only its MoveTo is dropped by the item, so reading
    // it back would start the first segment at the scene origin.
    m_path = QPainterPath(m_last);
    m_stroke = view().scene()->addPath(m_path);
    QPen pen(cutColour, 2.0, Qt::DashLine, Qt::RoundCap, Qt::RoundJoin);
    pen.setCosmetic(true);
    m_stroke->setPen(pen);
    m_stroke->setZValue(100);
    event->accept();
    return true;
}

bool CutTool::mouseMove(QMouseEvent *event)
{
    if (m_stroke == nullptr)
        return false;
    const QPointF p = view().mapToScene(event->position().toPoint());
    if (p == m_last)
        return true;
    addSegment(m_last, p);
    m_path.lineTo(p);
    m_stroke->setPath(m_path);
    m_last = p;
    event->accept();
    return true;
}

bool CutTool::mouseRelease(QMouseEvent *event)
{
    if (m_stroke == nullptr || event->button() != Qt::LeftButton)
        return false;
    const QPointF p = view().mapToScene(event->position().toPoint());
    if (p != m_last)
        addSegment(m_last, p);
    const std::vector<EdgeRef> edges = crossedEdges();
    reset();
    if (!edges.empty())
        emit view().cutStroke(edges);
    else
        emit view().cutStrokeMissed();
    event->accept();
    return true;
}

std::vector<EdgeRef> CutTool::crossedEdges() const
{
    return { m_crossed.begin(), m_crossed.end() };
}

void CutTool::addSegment(const QPointF &a, const QPointF &b)
{
    if (!m_targets.crossing)
        return;
    for (const EdgeRef &edge : m_targets.crossing(a, b)) {
        if (!m_crossed.insert(edge).second)
            continue;
        if (m_targets.light)
            m_targets.light(edge, true);
    }
}

void CutTool::paintFarOverlay(QPainter &painter) const
{
    if (m_stroke == nullptr)
        return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    QPen lit(cutColour, 3.0);
    lit.setCosmetic(true);
    painter.setPen(lit);
    painter.setBrush(Qt::NoBrush);
    if (m_targets.route)
        for (const EdgeRef &edge : m_crossed)
            painter.drawPolyline(m_targets.route(edge));
    painter.setPen(m_stroke->pen());
    painter.drawPath(m_path);
    painter.restore();
}

} // namespace cleave::ui
