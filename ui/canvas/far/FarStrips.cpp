// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/far/FarStrips.h"

#include <algorithm>

namespace cleave::ui {

FarStrips::FarStrips(QSize size, int rows, qreal top, qreal scale)
    : m_rows(std::max(1, rows))
    , m_count(std::max(1, (size.height() + m_rows - 1) / m_rows))
    , m_height(std::max(0, size.height()))
    , m_top(top)
    , m_scale(scale)
    , m_ops(static_cast<std::size_t>(m_count))
    , m_runStart(static_cast<std::size_t>(m_count), 0)
{
}

int FarStrips::maxDrawRows() const
{
    int most = 0;
    for (int i = 0; i < m_count; ++i)
        most = std::max(most, drawBottom(i) - drawTop(i));
    return most;
}

std::pair<int, int> FarStrips::meeting(qreal top, qreal bottom) const
{
    if (bottom < 0 || top >= m_height || bottom < top)
        return { 1, 0 };
    const int first = static_cast<int>(std::max<qreal>(0, std::floor(top)));
    const int last = static_cast<int>(std::min<qreal>(m_height - 1, std::floor(bottom)));
    return { first / m_rows, last / m_rows };
}

void FarStrips::addBox(const QRectF &box, qreal reach, std::uint32_t item, std::int32_t group)
{
    const auto [first, last] = meeting(rowOf(box.top()) - reach, rowOf(box.bottom()) + reach);
    for (int s = first; s <= last; ++s)
        m_ops[static_cast<std::size_t>(s)].push_back({ item, 0, 0, group });
}

void FarStrips::addRoute(const LayoutSpline &route, qreal step, qreal reach, std::uint32_t item,
                         std::int32_t group)
{
    // The strips the last segment met have a run open: [openFirst, openLast].
    int openFirst = 1;
    int openLast = 0;
    std::uint32_t previous = 0;
    qreal previousRow = 0;
    bool any = false;
    auto close = [&](int s) {
        const auto at = static_cast<std::size_t>(s);
        m_ops[at].push_back({ item, m_runStart[at], previous, group });
    };
    forKeptPoints(route, step, 0, route.points().size(), [&](std::size_t i, const QPointF &point) {
        const qreal row = rowOf(point.y());
        const auto index = static_cast<std::uint32_t>(i);
        if (any) {
            const auto [first, last]
                = meeting(std::min(row, previousRow) - reach, std::max(row, previousRow) + reach);
            for (int s = openFirst; s <= openLast; ++s)
                if (s < first || s > last)
                    close(s);
            for (int s = first; s <= last; ++s)
                if (s < openFirst || s > openLast)
                    m_runStart[static_cast<std::size_t>(s)] = previous;
            openFirst = first;
            openLast = last;
        }
        any = true;
        previous = index;
        previousRow = row;
    });
    for (int s = openFirst; s <= openLast; ++s)
        close(s);
}

} // namespace cleave::ui
