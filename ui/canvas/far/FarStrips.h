// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"

#include <QPointF>
#include <QRectF>
#include <QSize>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Calls `visit(index, point)` for the on-curve points of `route` (its start and each cubic
/// segment's end) from point `from` to point `to` (indices into its points, both on-curve),
/// without those closer than `step` to the last one visited (except the route's end): a
/// route's detail below a pixel is invisible, and its long edges hold thousands of points.
/// A walk started at a point that a walk from the route's start visits visits the same points
/// from there on.
template <typename Visit>
void forKeptPoints(const LayoutSpline &route, qreal step, std::size_t from, std::size_t to,
                   Visit &&visit)
{
    const std::span<const LayoutPoint> p = route.points();
    QPointF kept;
    bool any = false;
    for (std::size_t i = from; i <= to && i < p.size(); i += 3) {
        const QPointF point(p[i].x, p[i].y);
        const bool last = i + 3 >= p.size();
        if (any && !last) {
            const QPointF d = point - kept;
            if (std::abs(d.x()) < step && std::abs(d.y()) < step)
                continue;
        }
        visit(i, point);
        kept = point;
        any = true;
    }
}

/// One thing a strip of the far picture draws. `group` tells the drawer which shape list
/// `item` indexes and in which colour (a route of the layout's edges, a node box, a box of the
/// style, a partition); a route is drawn from its kept point `first` to its kept point `last`.
struct StripOp
{
    std::uint32_t item = 0;
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    std::int32_t group = 0;
};

/// The horizontal strips a far picture is drawn in, one at a time: a 32-bit image of a strip
/// (a few hundred KB) instead of one of the whole picture (6 MB for a large model's), each
/// turned into the picture's rows before the next one is drawn. The shapes are filed by the
/// strips they reach in one pass over them, in drawing order, so that drawing all the strips
/// costs about what drawing the whole picture once did: a route is filed as runs of its kept
/// points, one per strip it passes through, never whole in every strip it spans.
///
/// A strip is drawn with `margin` rows of its neighbours above and below its own (a line that
/// leaves the image drawn is clipped there, which can move its pixels by rounding): what a
/// strip keeps is the same as a drawing of the whole picture at once, but for a line longer
/// than the margin that crosses the strip's edge, which can differ by a pixel.
class FarStrips
{
public:
    /// Rows of the drawn images beyond a strip's own, above and below.
    static constexpr int margin = 8;

    /// Strips of `rows` rows (the last one may be shorter) over a picture of `size` whose row
    /// 0 is at scene y `top`, `scale` picture pixels a scene unit.
    FarStrips(QSize size, int rows, qreal top, qreal scale);

    [[nodiscard]] int count() const { return m_count; }
    /// The first of strip `i`'s own rows and the one after its last.
    [[nodiscard]] int ownTop(int i) const { return i * m_rows; }
    [[nodiscard]] int ownBottom(int i) const { return std::min(m_height, (i + 1) * m_rows); }
    /// The rows of strip `i`'s drawn image (its own and the margins within the picture).
    [[nodiscard]] int drawTop(int i) const { return std::max(0, ownTop(i) - margin); }
    [[nodiscard]] int drawBottom(int i) const { return std::min(m_height, ownBottom(i) + margin); }
    /// The most rows a drawn image has.
    [[nodiscard]] int maxDrawRows() const;
    /// The picture row of scene y.
    [[nodiscard]] qreal rowOf(qreal y) const { return (y - m_top) * m_scale; }
    /// The strips whose own rows meet picture rows `top` .. `bottom` (first > second: none).
    [[nodiscard]] std::pair<int, int> meeting(qreal top, qreal bottom) const;

    /// Files the box (scene coordinates) in the strips its rows, `reach` rows beyond them,
    /// meet.
    void addBox(const QRectF &box, qreal reach, std::uint32_t item, std::int32_t group);
    /// Files the segments between the kept points of `route` (forKeptPoints at `step`) in
    /// the strips they meet, `reach` rows beyond them, as one run per strip and passage.
    void addRoute(const LayoutSpline &route, qreal step, qreal reach, std::uint32_t item,
                  std::int32_t group);
    /// What strip `i` draws, in the order it was filed.
    [[nodiscard]] const std::vector<StripOp> &ops(int i) const
    {
        return m_ops[static_cast<std::size_t>(i)];
    }

private:
    int m_rows = 1;
    int m_count = 1;
    int m_height = 0;
    qreal m_top = 0;
    qreal m_scale = 1;
    std::vector<std::vector<StripOp>> m_ops;
    std::vector<std::uint32_t> m_runStart; // per strip: where its open run starts
};

} // namespace cleave::ui
