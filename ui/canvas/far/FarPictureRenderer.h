// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/canvas/far/FarPictureData.h"

#include <QImage>
#include <QSize>

#include <functional>
#include <memory>

namespace cleave::ui {

/// Renders the far picture from plain data (FarGeometry, FarState) into a QImage, off the GUI
/// thread. Two layers: the base (ordinary edges and node boxes; changes with the layout and the
/// node colours) is kept between renders and reused while its inputs are equal, so that a plan
/// change re-renders only the plan layer (tints below the base, boundary edges over it) and
/// one composition. Not thread-safe: one renderer is used by one thread at a time.
///
/// Both layers are drawn in horizontal strips (FarStrips), each strip's 32-bit drawing turned
/// into the layer's rows before the next is drawn, and kept in 8 bits a pixel (a table of
/// their few colours; 32 bits only when a layer has more than 256): no 32-bit image of the
/// whole picture is ever made, and the picture handed out takes a quarter of one.
class FarPictureRenderer
{
public:
    /// Returns true when the render should stop (a newer one supersedes it).
    using CancelFunction = std::function<bool()>;

    /// The picture of `geometry` in `state` at `scale` (image pixels per scene unit), `size`
    /// pixels (Format_Indexed8, or Format_ARGB32_Premultiplied when it has more than 256
    /// colours); a null image when cancelled.
    [[nodiscard]] QImage render(const std::shared_ptr<const FarGeometry> &geometry,
                                const FarState &state, qreal scale, QSize size,
                                const CancelFunction &cancelled);
    /// True when the last render reused the base layer of the one before.
    [[nodiscard]] bool reusedBase() const { return m_reusedBase; }
    /// The base layer kept for the next render: 8 bits a pixel (Format_Indexed8, a table of
    /// its few colours; 32 bits only when it has more than 256), a quarter of a 32-bit one. A
    /// base redrawn at the same size (new colours or boxes) is kept in the old one's pixels.
    [[nodiscard]] const QImage &base() const { return m_base; }
    /// Draws the base in strips of `rows` rows, the picture in strips 4 times as tall, from the
    /// next render on (0, the default: base strips of about half a megabyte of 32-bit pixels).
    /// The pixels do not depend on it but by rounding where a line longer than FarStrips'
    /// margin crosses a strip's edge (tests).
    void setStripRows(int rows) { m_stripRows = rows; }
    /// Drops the kept base layer (its memory).
    void reset();

private:
    std::shared_ptr<const FarGeometry> m_geometry;
    FarStyle m_style;
    qreal m_scale = 0;
    QImage m_base;
    int m_stripRows = 0;
    bool m_reusedBase = false;
};

} // namespace cleave::ui
