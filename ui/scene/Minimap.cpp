// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/Minimap.h"

#include "ui/scene/CanvasTheme.h"
#include "ui/scene/CanvasView.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <utility>

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

void Minimap::setDrawing(std::vector<MinimapBox> nodes, std::vector<QRectF> tintBoxes)
{
    m_nodes = std::move(nodes);
    m_tintBoxes = std::move(tintBoxes);
    m_hasDrawing = true;
    m_nodeLayer = QImage();
}

void Minimap::setTints(std::shared_ptr<const std::vector<std::int32_t>> nodeSlots,
                       std::vector<QRgb> tints)
{
    m_slots = std::move(nodeSlots);
    m_tints = std::move(tints);
}

void Minimap::drawNodeLayer(const QSize &pixels, qreal scale)
{
    const qreal ratio = devicePixelRatioF();
    m_nodeLayer = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    m_nodeLayer.setDevicePixelRatio(ratio);
    m_nodeLayer.fill(Qt::transparent);
    // At least one device pixel per box, so that thin graphs stay visible.
    const qreal minSide = 1.0 / ratio;
    auto place = [&](const QRectF &box) {
        return QRectF((box.x() - m_bounds.x()) * scale, (box.y() - m_bounds.y()) * scale,
                      std::max(minSide, box.width() * scale),
                      std::max(minSide, box.height() * scale));
    };
    {
        QPainter p(&m_nodeLayer);
        for (const MinimapBox &box : m_nodes)
            p.fillRect(place(box.rect), box.colour);
    }
    // In device pixels, rounded as the raster engine rounds an unantialiased fillRect (each
    // corner to the nearest pixel), and clipped to the picture.
    m_tintPixels.clear();
    m_tintPixels.reserve(m_tintBoxes.size());
    const QRect all(QPoint(0, 0), pixels);
    for (const QRectF &box : m_tintBoxes) {
        const QRectF r = place(box);
        const int x1 = qRound(r.left() * ratio);
        const int y1 = qRound(r.top() * ratio);
        const int x2 = qRound(r.right() * ratio);
        const int y2 = qRound(r.bottom() * ratio);
        m_tintPixels.push_back(QRect(x1, y1, x2 - x1, y2 - y1).intersected(all));
    }
    m_layerBounds = m_bounds;
}

void Minimap::refresh(const QRectF &sceneBounds)
{
    m_bounds = sceneBounds;
    resize(sizeHint());
    const QRectF area = drawArea();
    const qreal ratio = devicePixelRatioF();
    const QSize pixels = (area.size() * ratio).toSize();
    if (pixels.isEmpty() || m_bounds.isEmpty()) {
        m_pixmap = QPixmap();
        show();
        update();
        return;
    }
    const qreal scale = area.width() / m_bounds.width();
    if (m_nodeLayer.isNull() || m_nodeLayer.size() != pixels || m_layerBounds != m_bounds)
        drawNodeLayer(pixels, scale);

    // The tints first, pixel by pixel (opaque colours, premultiplied as they are), then the
    // node boxes over them.
    QImage picture(pixels, QImage::Format_ARGB32_Premultiplied);
    picture.setDevicePixelRatio(ratio);
    picture.fill(Qt::transparent);
    if (m_slots) {
        const std::vector<std::int32_t> &nodeSlots = *m_slots;
        const std::size_t count = std::min(nodeSlots.size(), m_tintPixels.size());
        for (std::size_t i = 0; i < count; ++i) {
            const std::int32_t slot = nodeSlots[i];
            if (slot < 0 || static_cast<std::size_t>(slot) >= m_tints.size())
                continue;
            const QRect &r = m_tintPixels[i];
            const QRgb colour = m_tints[static_cast<std::size_t>(slot)] | 0xff000000U;
            for (int y = r.top(); y <= r.bottom(); ++y) {
                auto *line = reinterpret_cast<QRgb *>(picture.scanLine(y));
                std::fill(line + r.left(), line + r.left() + r.width(), colour);
            }
        }
    }
    {
        QPainter p(&picture);
        p.drawImage(0, 0, m_nodeLayer);
    }
    m_pixmap = QPixmap::fromImage(std::move(picture));
    show();
    update();
}

void Minimap::clear()
{
    m_bounds = {};
    m_pixmap = {};
    m_nodes.clear();
    m_tintBoxes.clear();
    m_slots.reset();
    m_tints.clear();
    m_hasDrawing = false;
    m_nodeLayer = QImage();
    m_tintPixels.clear();
    hide();
}

void Minimap::paintEvent(QPaintEvent * /*event*/)
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
