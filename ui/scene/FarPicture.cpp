// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/FarPicture.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace cleave::ui {

namespace {

constexpr qreal maxSide = 8192;
constexpr qreal maxPixels = 16e6;

} // namespace

void FarPicture::setSource(const QRectF &bounds, DrawFunction draw)
{
    m_bounds = bounds;
    m_draw = std::move(draw);
    m_image = {};
    m_dirty = true;
    m_scale = 0;
    if (m_bounds.isEmpty() || !m_draw)
        return;
    const qreal longest = std::max(m_bounds.width(), m_bounds.height());
    m_scale = std::min({ farZoom, maxSide / longest,
                         std::sqrt(maxPixels / (m_bounds.width() * m_bounds.height())) });
}

void FarPicture::clear()
{
    m_bounds = {};
    m_draw = nullptr;
    m_image = {};
    m_scale = 0;
    m_dirty = true;
}

bool FarPicture::covers(qreal zoom) const
{
    return m_draw && m_scale > 0 && zoom <= farZoom && zoom <= 2 * m_scale;
}

void FarPicture::paint(QPainter &painter, const QTransform &sceneToDevice)
{
    if (!m_draw)
        return;
    if (m_dirty || m_image.isNull()) {
        const QSize size(std::max(1, qCeil(m_bounds.width() * m_scale)),
                         std::max(1, qCeil(m_bounds.height() * m_scale)));
        m_image = QImage(size, QImage::Format_ARGB32_Premultiplied);
        m_image.fill(Qt::transparent);
        QPainter p(&m_image);
        p.scale(m_scale, m_scale);
        p.translate(-m_bounds.topLeft());
        m_draw(p, m_scale);
        m_dirty = false;
    }
    painter.save();
    painter.setTransform(sceneToDevice);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, true);
    painter.drawImage(m_bounds, m_image);
    painter.restore();
}

} // namespace cleave::ui
