// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/view/Minimap.h"

#include "ui/canvas/view/CanvasView.h"
#include "ui/support/CanvasTheme.h"

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

void Minimap::setDrawing(std::shared_ptr<const FarGeometry> geometry,
                         std::vector<QColor> categoryColours,
                         std::unordered_map<NodeId, QColor> marks)
{
    m_geometry = std::move(geometry);
    m_categoryColours = std::move(categoryColours);
    m_marks = std::move(marks);
    m_hasDrawing = true;
    m_nodeLayer = QImage();
}

void Minimap::setTints(std::shared_ptr<const std::vector<std::int32_t>> nodeSlots,
                       std::vector<QRgb> tints)
{
    m_slots = std::move(nodeSlots);
    m_tints = std::move(tints);
}

QRectF Minimap::place(const QRectF &box, qreal scale) const
{
    // At least one device pixel per box, so that thin graphs stay visible.
    const qreal minSide = 1.0 / devicePixelRatioF();
    return { (box.x() - m_bounds.x()) * scale, (box.y() - m_bounds.y()) * scale,
             std::max(minSide, box.width() * scale), std::max(minSide, box.height() * scale) };
}

void Minimap::drawNodeLayer(const QSize &pixels, qreal scale)
{
    m_nodeLayer = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    m_nodeLayer.setDevicePixelRatio(devicePixelRatioF());
    m_nodeLayer.fill(Qt::transparent);
    m_layerBounds = m_bounds;
    if (!m_geometry || !m_geometry->layout)
        return;
    QPainter p(&m_nodeLayer);
    std::size_t i = 0;
    for (const auto &[id, r] : m_geometry->layout->nodes) {
        const QRectF box = toRectF(r);
        const auto mark = m_marks.find(id);
        if (mark != m_marks.end() && mark->second.isValid()) {
            p.fillRect(place(box.adjusted(-6, -6, 6, 6), scale), mark->second);
        } else {
            const std::uint8_t category
                = i < m_geometry->categories.size() ? m_geometry->categories[i] : 0;
            p.fillRect(place(box, scale),
                       category < m_categoryColours.size() ? m_categoryColours[category]
                                                           : QColor(Qt::gray));
        }
        ++i;
    }
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
    if (m_slots && m_geometry && m_geometry->layout) {
        // Each node's padded box in device pixels, rounded as the raster engine rounds an
        // unantialiased fillRect (each corner to the nearest pixel), clipped to the picture.
        const std::vector<std::int32_t> &nodeSlots = *m_slots;
        const QRect all(QPoint(0, 0), pixels);
        const std::size_t nodes = std::min(nodeSlots.size(), m_geometry->layout->nodes.size());
        for (std::size_t i = 0; i < nodes; ++i) {
            const std::int32_t slot = nodeSlots[i];
            if (slot < 0 || static_cast<std::size_t>(slot) >= m_tints.size())
                continue;
            const QRectF f = place(m_geometry->regionBox(i), scale);
            const int x1 = qRound(f.left() * ratio);
            const int y1 = qRound(f.top() * ratio);
            const QRect r
                = QRect(x1, y1, qRound(f.right() * ratio) - x1, qRound(f.bottom() * ratio) - y1)
                      .intersected(all);
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
    m_geometry.reset();
    m_categoryColours.clear();
    m_marks.clear();
    m_slots.reset();
    m_tints.clear();
    m_hasDrawing = false;
    m_nodeLayer = QImage();
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
