// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/Minimap.h"

#include "ui/scene/CanvasTheme.h"
#include "ui/scene/CanvasView.h"

#include <QMouseEvent>
#include <QPainter>

namespace cleave::ui {

namespace {

constexpr int maxSide = 180;
constexpr int margin = 6;

} // namespace

Minimap::Minimap(CanvasView *view, QWidget *parent)
    : QWidget(parent)
    , m_view(view)
{
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    connect(view, &CanvasView::visibleAreaChanged, this, qOverload<>(&QWidget::update));
    hide();
}

QSize Minimap::sizeHint() const
{
    if (m_bounds.isEmpty())
        return { maxSide, maxSide };
    const qreal aspect = m_bounds.width() / m_bounds.height();
    // Tall graphs (most DNNs) get a narrow strip rather than a tiny square.
    const int h = maxSide;
    const int w = std::clamp(qRound(h * aspect), 48, maxSide);
    return { w + 2 * margin, h + 2 * margin };
}

QRectF Minimap::drawArea() const
{
    const QRectF inner = QRectF(rect()).adjusted(margin, margin, -margin, -margin);
    if (m_bounds.isEmpty())
        return inner;
    const qreal s = std::min(inner.width() / m_bounds.width(), inner.height() / m_bounds.height());
    const QSizeF size(m_bounds.width() * s, m_bounds.height() * s);
    return { inner.center() - QPointF(size.width() / 2, size.height() / 2), size };
}

void Minimap::refresh(const QRectF &sceneBounds, const std::vector<MinimapBox> &boxes)
{
    m_bounds = sceneBounds;
    resize(sizeHint());
    const QRectF area = drawArea();
    const qreal ratio = devicePixelRatioF();
    m_pixmap = QPixmap((area.size() * ratio).toSize());
    m_pixmap.setDevicePixelRatio(ratio);
    m_pixmap.fill(Qt::transparent);
    if (!m_pixmap.isNull() && !m_bounds.isEmpty()) {
        QPainter p(&m_pixmap);
        const qreal s = area.width() / m_bounds.width();
        // At least one device pixel per box, so that thin graphs stay visible.
        const qreal minSide = 1.0 / ratio;
        for (const MinimapBox &box : boxes) {
            const QRectF r((box.rect.x() - m_bounds.x()) * s, (box.rect.y() - m_bounds.y()) * s,
                           std::max(minSide, box.rect.width() * s),
                           std::max(minSide, box.rect.height() * s));
            p.fillRect(r, box.colour);
        }
    }
    show();
    update();
}

void Minimap::clear()
{
    m_bounds = {};
    m_pixmap = {};
    hide();
}

void Minimap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(canvasColours().minimapFrame);
    p.setBrush(canvasColours().minimapFill);
    p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
    if (m_bounds.isEmpty())
        return;
    const QRectF area = drawArea();
    p.drawPixmap(area.topLeft(), m_pixmap);
    const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    const qreal s = area.width() / m_bounds.width();
    QRectF frame((visible.x() - m_bounds.x()) * s + area.x(),
                 (visible.y() - m_bounds.y()) * s + area.y(), visible.width() * s,
                 visible.height() * s);
    frame = frame.intersected(area.adjusted(-1, -1, 1, 1));
    p.setPen(QPen(QColor(0x1e, 0x6f, 0xd9), 1.5));
    p.setBrush(QColor(0x1e, 0x6f, 0xd9, 28));
    p.drawRect(frame);
}

void Minimap::centreViewAt(const QPointF &widgetPos)
{
    const QRectF area = drawArea();
    if (m_bounds.isEmpty() || area.isEmpty())
        return;
    const qreal s = m_bounds.width() / area.width();
    m_view->centerOn(QPointF(m_bounds.x() + (widgetPos.x() - area.x()) * s,
                             m_bounds.y() + (widgetPos.y() - area.y()) * s));
}

void Minimap::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        centreViewAt(event->position());
}

void Minimap::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        centreViewAt(event->position());
}

} // namespace cleave::ui
