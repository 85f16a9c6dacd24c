// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/canvas/far/FarPictureData.h"

#include <QImage>
#include <QObject>
#include <QRectF>
#include <QThreadPool>

#include <functional>
#include <memory>

class QPainter;
class QTransform;

namespace cleave::ui {

/// The far view of a large drawing: one image of the whole drawing (node boxes, routes and
/// partition tints, a density picture) rendered once and scaled, instead of painting tens of
/// thousands of items that are a few pixels each. The canvas view paints it below `farZoom`,
/// while no mouse button is held.
///
/// The image is rendered on a worker thread (FarPictureRenderer) from plain data: the geometry
/// given once per layout and a FarState taken on the GUI thread when the picture is
/// invalidated. Painting never renders: until the new image arrives, the previous one is
/// painted; a newer request supersedes an older one, whose image is never shown.
class FarPicture : public QObject
{
    Q_OBJECT
public:
    /// Takes the colours and plan to render, on the GUI thread (cheap: no route is copied).
    using StateFunction = std::function<FarState()>;
    /// At or below this zoom items are flat boxes and hairlines: the picture looks the same.
    static constexpr qreal farZoom = 0.1;
    /// The most pixels the picture has. It is a density picture: a pixel of it stands for
    /// several scene units. Its few flat colours keep it in 8 bits a pixel (32 beyond 256
    /// colours): the picture shown, the renderer's base layer and, while one is rendered, the
    /// next picture take 1.5 MB each at most; the 32-bit strips they are drawn in take 0.5 MB
    /// (the base's) and 2 MB (the picture's).
    static constexpr qreal maxPixels = 1.5e6;
    /// The longest side of the picture, in pixels.
    static constexpr qreal maxSide = 8192;

    explicit FarPicture(QObject *parent = nullptr);
    ~FarPicture() override;
    FarPicture(const FarPicture &) = delete;
    FarPicture &operator=(const FarPicture &) = delete;

    /// A new drawing: drops the picture and renders the new one.
    void setSource(std::shared_ptr<const FarGeometry> geometry, StateFunction state);
    void clear();
    /// The colours or the plan changed: a new picture is rendered (once for all the changes
    /// made before control returns to the event loop); the current one is painted meanwhile.
    void invalidate();
    /// True when the picture may stand for the items at `zoom` (never magnified over 2x).
    [[nodiscard]] bool covers(qreal zoom) const;
    /// Paints the current picture through `sceneToDevice` (nothing before the first arrives).
    void paint(QPainter &painter, const QTransform &sceneToDevice) const;
    [[nodiscard]] qreal scale() const { return m_scale; }
    /// The scene rectangle the picture covers.
    [[nodiscard]] QRectF bounds() const;
    /// What the picture draws (null before setSource()): the minimap shares it.
    [[nodiscard]] const std::shared_ptr<const FarGeometry> &geometry() const { return m_geometry; }
    /// The image painted now (null before the first render arrives).
    [[nodiscard]] const QImage &image() const { return m_image; }
    /// The number of the last render asked for, and of the one whose image is shown: equal
    /// when the picture is up to date.
    [[nodiscard]] quint64 requestedGeneration() const { return m_requested; }
    [[nodiscard]] quint64 shownGeneration() const { return m_shown; }
    [[nodiscard]] bool isCurrent() const { return m_shown == m_requested && !m_pending; }
    /// Thread CPU milliseconds the shown image took to render on the worker, and whether it
    /// reused the base layer of the render before (benchmarks).
    [[nodiscard]] double lastRenderMs() const { return m_lastRenderMs; }
    [[nodiscard]] bool lastRenderReusedBase() const { return m_lastReusedBase; }

signals:
    /// A newly rendered image is shown (the view repaints).
    void pictureChanged();

private:
    struct Shared;
    void render();
    void accept(quint64 generation, const QImage &image, double ms, bool reusedBase);

    std::shared_ptr<Shared> m_shared;
    QThreadPool m_pool;
    std::shared_ptr<const FarGeometry> m_geometry;
    StateFunction m_state;
    QImage m_image;
    qreal m_scale = 0;
    QSize m_size;
    quint64 m_requested = 0;
    quint64 m_shown = 0;
    bool m_pending = false;
    double m_lastRenderMs = 0;
    bool m_lastReusedBase = false;
};

} // namespace cleave::ui
