// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/far/FarPicture.h"

#include "ui/canvas/far/FarPictureRenderer.h"
#include "ui/support/ThreadClock.h"

#include <QPainter>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace cleave::ui {

// What the worker shares with the GUI thread: the renderer (used by the pool's one thread
// only) and the number of the newest request, which tells a running render it is stale.
struct FarPicture::Shared
{
    FarPictureRenderer renderer;
    std::atomic<quint64> latest { 0 };
};

FarPicture::FarPicture(QObject *parent)
    : QObject(parent)
    , m_shared(std::make_shared<Shared>())
{
    // One render at a time, in request order: a queued render that a newer one supersedes
    // returns at once.
    m_pool.setMaxThreadCount(1);
}

FarPicture::~FarPicture()
{
    m_shared->latest = ~quint64(0);
    m_pool.clear();
    m_pool.waitForDone();
}

void FarPicture::setSource(std::shared_ptr<const FarGeometry> geometry, StateFunction state)
{
    clear();
    m_geometry = std::move(geometry);
    m_state = std::move(state);
    if (!m_geometry || !m_state || m_geometry->bounds.isEmpty())
        return;
    const QRectF &bounds = m_geometry->bounds;
    const qreal longest = std::max(bounds.width(), bounds.height());
    m_scale = std::min(
        { farZoom, maxSide / longest, std::sqrt(maxPixels / (bounds.width() * bounds.height())) });
    m_size = QSize(std::max(1, qCeil(bounds.width() * m_scale)),
                   std::max(1, qCeil(bounds.height() * m_scale)));
    invalidate();
}

void FarPicture::clear()
{
    m_geometry.reset();
    m_state = nullptr;
    m_image = {};
    m_scale = 0;
    m_size = {};
    // Renders under way are stale; the renderer's base layer of the old drawing is dropped.
    m_shown = ++m_requested;
    m_shared->latest = m_requested;
    m_pool.start([shared = m_shared] { shared->renderer.reset(); });
}

void FarPicture::invalidate()
{
    if (!m_geometry || m_pending)
        return;
    m_pending = true;
    // After the event that changed the plan or the colours has made all its changes.
    QMetaObject::invokeMethod(this, &FarPicture::render, Qt::QueuedConnection);
}

void FarPicture::render()
{
    m_pending = false;
    if (!m_geometry || !m_state)
        return;
    const quint64 generation = ++m_requested;
    m_shared->latest = generation;
    m_pool.start([this, shared = m_shared, geometry = m_geometry, state = m_state(),
                  scale = m_scale, size = m_size, generation] {
        auto stale = [&] { return shared->latest.load() != generation; };
        if (stale())
            return;
        const double start = threadCpuMs();
        QImage image = shared->renderer.render(geometry, state, scale, size, stale);
        if (image.isNull() || stale())
            return;
        const double ms = threadCpuMs() - start;
        const bool reused = shared->renderer.reusedBase();
        // Delivered on the GUI thread; the destructor waits for this job, so `this` is alive
        // when it is posted, and a posted call dies with its object.
        QMetaObject::invokeMethod(
            this,
            [this, generation, image = std::move(image), ms, reused] {
                accept(generation, image, ms, reused);
            },
            Qt::QueuedConnection);
    });
}

void FarPicture::accept(quint64 generation, const QImage &image, double ms, bool reusedBase)
{
    // Only the newest request's image is shown: an older one never replaces a newer one.
    if (generation != m_requested)
        return;
    m_image = image;
    m_shown = generation;
    m_lastRenderMs = ms;
    m_lastReusedBase = reusedBase;
    emit pictureChanged();
}

QRectF FarPicture::bounds() const
{
    return m_geometry ? m_geometry->bounds : QRectF();
}

bool FarPicture::covers(qreal zoom) const
{
    return m_geometry && m_scale > 0 && zoom <= farZoom && zoom <= 2 * m_scale;
}

void FarPicture::paint(QPainter &painter, const QTransform &sceneToDevice) const
{
    if (!m_geometry || m_image.isNull())
        return;
    painter.save();
    painter.setTransform(sceneToDevice);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, true);
    painter.drawImage(m_geometry->bounds, m_image);
    painter.restore();
}

} // namespace cleave::ui
