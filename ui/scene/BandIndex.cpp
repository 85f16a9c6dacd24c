// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/BandIndex.h"

#include <algorithm>
#include <cmath>

namespace cleave::ui {

namespace {

// About this many rectangles per band on average, and never more bands than this.
constexpr qreal perBand = 32;
constexpr std::size_t maxBands = 1 << 16;

} // namespace

void BandIndex::build(const std::vector<QRectF> &rects)
{
    m_rects = rects;
    m_bands.clear();
    m_seen.assign(m_rects.size(), 0);
    m_stamp = 0;
    if (m_rects.empty())
        return;
    qreal top = m_rects.front().top();
    qreal bottom = m_rects.front().bottom();
    for (const QRectF &r : m_rects) {
        top = std::min(top, r.top());
        bottom = std::max(bottom, r.bottom());
    }
    const auto count = static_cast<std::size_t>(
        std::clamp<qreal>(std::ceil(static_cast<qreal>(m_rects.size()) / perBand), 1, maxBands));
    m_top = top;
    m_bandHeight = std::max<qreal>(1, (bottom - top) / static_cast<qreal>(count));
    m_bands.resize(count);
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        const auto first = static_cast<std::size_t>((m_rects[i].top() - m_top) / m_bandHeight);
        const auto last = std::min(
            count - 1, static_cast<std::size_t>((m_rects[i].bottom() - m_top) / m_bandHeight));
        for (std::size_t b = std::min(first, count - 1); b <= last; ++b)
            m_bands[b].push_back(static_cast<std::uint32_t>(i));
    }
}

void BandIndex::query(const QRectF &area, std::vector<std::uint32_t> &out) const
{
    out.clear();
    if (m_bands.empty() || area.bottom() < m_top)
        return;
    if (++m_stamp == 0) { // wrapped: forget every mark
        std::fill(m_seen.begin(), m_seen.end(), 0);
        m_stamp = 1;
    }
    const qreal from = std::max<qreal>(0, (area.top() - m_top) / m_bandHeight);
    const qreal to = (area.bottom() - m_top) / m_bandHeight;
    const std::size_t last = std::min(m_bands.size() - 1, static_cast<std::size_t>(to));
    for (auto b = static_cast<std::size_t>(from); b <= last; ++b) {
        for (std::uint32_t i : m_bands[b]) {
            if (m_seen[i] == m_stamp || !m_rects[i].intersects(area))
                continue;
            m_seen[i] = m_stamp;
            out.push_back(i);
        }
    }
    std::sort(out.begin(), out.end());
}

} // namespace cleave::ui
