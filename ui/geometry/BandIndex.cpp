// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/geometry/BandIndex.h"

#include <algorithm>
#include <cmath>

namespace cleave::ui {

namespace {

// About this many rectangles per band on average, and never more bands than this.
constexpr qreal perBand = 32;
constexpr std::size_t maxBands = 1 << 16;

qreal topOf(const QRectF &r)
{
    return r.top();
}

qreal bottomOf(const QRectF &r)
{
    return r.bottom();
}

qreal topOf(const FloatRect &r)
{
    return r.top;
}

qreal bottomOf(const FloatRect &r)
{
    return r.bottom;
}

} // namespace

void BandIndex::build(std::span<const QRectF> rects)
{
    fill(rects);
}

void BandIndex::build(std::span<const FloatRect> rects)
{
    fill(rects);
}

void BandIndex::query(const QRectF &area, std::span<const QRectF> rects,
                      std::vector<std::uint32_t> &out) const
{
    find(area, rects, out);
}

void BandIndex::query(const QRectF &area, std::span<const FloatRect> rects,
                      std::vector<std::uint32_t> &out) const
{
    find(area, rects, out);
}

template <typename Rect>
void BandIndex::fill(std::span<const Rect> rects)
{
    m_offsets.clear();
    m_ids.clear();
    m_count = rects.size();
    if (rects.empty())
        return;
    qreal top = topOf(rects.front());
    qreal bottom = bottomOf(rects.front());
    for (const Rect &r : rects) {
        top = std::min(top, topOf(r));
        bottom = std::max(bottom, bottomOf(r));
    }
    const auto count = static_cast<std::size_t>(
        std::clamp<qreal>(std::ceil(static_cast<qreal>(rects.size()) / perBand), 1, maxBands));
    m_top = top;
    m_bandHeight = std::max<qreal>(1, (bottom - top) / static_cast<qreal>(count));
    auto bandsOf = [&](const Rect &r) {
        const auto last
            = std::min(count - 1, static_cast<std::size_t>((bottomOf(r) - m_top) / m_bandHeight));
        const auto first
            = std::min(last, static_cast<std::size_t>((topOf(r) - m_top) / m_bandHeight));
        return std::pair(first, last);
    };
    // Two passes: how many ids each band gets, then the ids in place (no vector per band).
    m_offsets.assign(count + 1, 0);
    for (const Rect &r : rects) {
        const auto [first, last] = bandsOf(r);
        for (std::size_t b = first; b <= last; ++b)
            ++m_offsets[b + 1];
    }
    for (std::size_t b = 0; b < count; ++b)
        m_offsets[b + 1] += m_offsets[b];
    m_ids.resize(m_offsets.back());
    std::vector<std::uint32_t> next(m_offsets.begin(), m_offsets.end() - 1);
    for (std::size_t i = 0; i < rects.size(); ++i) {
        const auto [first, last] = bandsOf(rects[i]);
        for (std::size_t b = first; b <= last; ++b)
            m_ids[next[b]++] = static_cast<std::uint32_t>(i);
    }
}

template <typename Rect>
void BandIndex::find(const QRectF &area, std::span<const Rect> rects,
                     std::vector<std::uint32_t> &out) const
{
    out.clear();
    if (m_offsets.empty() || rects.size() != m_count || area.bottom() < m_top)
        return;
    const std::size_t bands = m_offsets.size() - 1;
    const qreal from = std::max<qreal>(0, (area.top() - m_top) / m_bandHeight);
    const qreal to = (area.bottom() - m_top) / m_bandHeight;
    if (from > static_cast<qreal>(bands))
        return;
    const std::size_t last = std::min(bands - 1, static_cast<std::size_t>(to));
    for (auto b = static_cast<std::size_t>(from); b <= last; ++b) {
        for (std::uint32_t k = m_offsets[b]; k < m_offsets[b + 1]; ++k) {
            const std::uint32_t i = m_ids[k];
            if (rects[i].intersects(area))
                out.push_back(i);
        }
    }
    // A rectangle spanning several of the bands visited was found in each.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

} // namespace cleave::ui
