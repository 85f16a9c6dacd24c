// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QPointF>
#include <QRectF>

namespace cleave::ui {

/// An axis-aligned rectangle kept by its edges in single precision: half the memory of a
/// QRectF, for the many boxes a drawing indexes. Scene units reach about 1e6 on the largest
/// drawings, where a float still resolves a sixteenth of a unit, far below what a tint or a
/// frame shows.
struct FloatRect
{
    float left = 0;
    float top = 0;
    float right = 0;
    float bottom = 0;

    /// `r` normalised, its edges rounded to floats.
    [[nodiscard]] static FloatRect fromRectF(const QRectF &r)
    {
        const QRectF n = r.normalized();
        return { static_cast<float>(n.left()), static_cast<float>(n.top()),
                 static_cast<float>(n.right()), static_cast<float>(n.bottom()) };
    }
    [[nodiscard]] QRectF toRectF() const { return { QPointF(left, top), QPointF(right, bottom) }; }
    /// True when the two overlap with a non-empty area, as QRectF::intersects() says.
    [[nodiscard]] bool intersects(const QRectF &r) const
    {
        if ((left == right && top == bottom) || r.isNull())
            return false; // a null rectangle meets nothing
        return left < r.right() && r.left() < right && top < r.bottom() && r.top() < bottom;
    }
    friend bool operator==(const FloatRect &, const FloatRect &) = default;
};

} // namespace cleave::ui
