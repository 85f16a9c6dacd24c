// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Quality figures of a layered drawing, for the benchmarks: edge crossings between ranks and
// the drawing's width.
#pragma once

#include "core/layout/Layout.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace cleave::bench {

namespace detail {

// x of a polyline (on-curve points of a spline) at height y; false when it does not reach y.
inline bool xAt(const std::vector<LayoutPoint> &line, double y, double &x)
{
    for (std::size_t i = 1; i < line.size(); ++i) {
        const LayoutPoint &a = line[i - 1];
        const LayoutPoint &b = line[i];
        if ((a.y <= y && y <= b.y) || (b.y <= y && y <= a.y)) {
            x = a.y == b.y ? a.x : a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y);
            return true;
        }
    }
    return false;
}

// Inversions of `v` (merge sort), i.e. pairs i < j with v[i] > v[j].
inline std::uint64_t inversions(std::vector<double> &v, std::vector<double> &tmp)
{
    std::uint64_t count = 0;
    tmp.resize(v.size());
    for (std::size_t width = 1; width < v.size(); width *= 2) {
        for (std::size_t lo = 0; lo < v.size(); lo += 2 * width) {
            const std::size_t mid = std::min(lo + width, v.size());
            const std::size_t hi = std::min(lo + 2 * width, v.size());
            std::size_t i = lo;
            std::size_t j = mid;
            std::size_t k = lo;
            while (i < mid && j < hi) {
                if (v[j] < v[i]) {
                    count += mid - i;
                    tmp[k++] = v[j++];
                } else {
                    tmp[k++] = v[i++];
                }
            }
            while (i < mid)
                tmp[k++] = v[i++];
            while (j < hi)
                tmp[k++] = v[j++];
        }
        v.swap(tmp);
    }
    return count;
}

} // namespace detail

/// Edge crossings of a layered top-to-bottom drawing: ranks are the distinct node centre
/// heights; in every gap between consecutive ranks, two edges cross when their order at the
/// gap's top differs from their order at its bottom (stub edges excluded). Routes are taken as
/// the polylines through their on-curve points.
inline std::uint64_t countCrossings(const Layout &layout)
{
    std::map<double, std::pair<double, double>> bands; // centre y -> (top, bottom)
    for (const auto &[id, r] : layout.nodes) {
        auto [it, inserted] = bands.emplace(r.centerY(), std::make_pair(r.y, r.bottom()));
        if (!inserted) {
            it->second.first = std::min<double>(it->second.first, r.y);
            it->second.second = std::max(it->second.second, r.bottom());
        }
    }
    std::vector<std::pair<double, double>> gaps; // (top, bottom) of each gap between ranks
    for (auto it = bands.begin(); it != bands.end(); ++it) {
        auto next = std::next(it);
        if (next != bands.end() && next->second.first > it->second.second)
            gaps.emplace_back(it->second.second, next->second.first);
    }
    std::vector<std::vector<LayoutPoint>> lines;
    for (const auto &[key, s] : layout.edges) {
        if (s.stub() || s.points().empty())
            continue;
        std::vector<LayoutPoint> line;
        for (std::size_t i = 0; i < s.points().size(); i += 3)
            line.push_back(s.points()[i]);
        if (s.hasArrow())
            line.push_back(s.arrowTip());
        lines.push_back(std::move(line));
    }
    std::uint64_t total = 0;
    std::vector<std::pair<double, double>> ends;
    std::vector<double> bottoms;
    std::vector<double> tmp;
    for (const auto &[top, bottom] : gaps) {
        ends.clear();
        for (const auto &line : lines) {
            double xt = 0;
            double xb = 0;
            if (detail::xAt(line, top, xt) && detail::xAt(line, bottom, xb))
                ends.emplace_back(xt, xb);
        }
        std::sort(ends.begin(), ends.end());
        bottoms.clear();
        for (const auto &e : ends)
            bottoms.push_back(e.second);
        total += detail::inversions(bottoms, tmp);
    }
    return total;
}

} // namespace cleave::bench
