// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/LayoutRoutes.h"

#include <algorithm>

namespace cleave {

LayoutSpline LayoutRoutes::spline(std::size_t index) const
{
    const Entry &e = m_entries[index];
    return { std::span<const LayoutPoint>(m_points.data() + e.first, endOf(index) - e.first),
             e.arrowTip, (e.flags & hasArrowFlag) != 0, (e.flags & stubFlag) != 0 };
}

std::size_t LayoutRoutes::find(const EdgeRef &edge) const
{
    const auto it
        = std::lower_bound(m_entries.begin(), m_entries.end(), edge,
                           [](const Entry &e, const EdgeRef &key) { return e.key < key; });
    if (it == m_entries.end() || it->key != edge)
        return npos;
    return static_cast<std::size_t>(it - m_entries.begin());
}

std::optional<LayoutSpline> LayoutRoutes::spline(const EdgeRef &edge) const
{
    const std::size_t index = find(edge);
    if (index == npos)
        return std::nullopt;
    return spline(index);
}

void LayoutRoutes::reserve(std::size_t edges, std::size_t points)
{
    m_entries.reserve(edges);
    m_points.reserve(points);
}

bool LayoutRoutes::append(const EdgeRef &edge, std::size_t pointCount, LayoutPoint arrowTip,
                          bool hasArrow, bool stub)
{
    if (!m_entries.empty() && !(m_entries.back().key < edge))
        return false;
    Entry e;
    e.key = edge;
    e.first = static_cast<std::uint32_t>(m_points.size());
    e.arrowTip = arrowTip;
    e.flags = static_cast<std::uint8_t>((hasArrow ? hasArrowFlag : 0U) | (stub ? stubFlag : 0U));
    m_entries.push_back(e);
    m_points.resize(m_points.size() + pointCount);
    return true;
}

bool LayoutRoutes::append(const EdgeRef &edge, std::span<const LayoutPoint> points,
                          LayoutPoint arrowTip, bool hasArrow, bool stub)
{
    if (!append(edge, std::size_t(0), arrowTip, hasArrow, stub))
        return false;
    m_points.insert(m_points.end(), points.begin(), points.end());
    return true;
}

std::span<LayoutPoint> LayoutRoutes::points(std::size_t index)
{
    const std::size_t first = m_entries[index].first;
    return { m_points.data() + first, endOf(index) - first };
}

void LayoutRoutes::clear()
{
    m_entries.clear();
    m_points.clear();
}

} // namespace cleave
