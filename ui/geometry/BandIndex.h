// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/geometry/FloatRect.h"

#include <QRectF>

#include <cstdint>
#include <span>
#include <vector>

namespace cleave::ui {

/// Finds the rectangles that meet a query rectangle among many (the primitives of a large
/// drawing), so that painting costs what is visible, not what exists. Rectangles are filed in
/// horizontal bands (DNN drawings are tall and narrow); a query visits the bands it spans and
/// reports each rectangle once.
///
/// It holds ids only, every band's in one array (offsets and ids): the rectangles stay with
/// their owner, which hands the same ones to build() and to every query(). Build once, query
/// many times; queries may run on several threads at once.
class BandIndex
{
public:
    /// Files `rects` (their positions are the ids the queries report).
    void build(std::span<const QRectF> rects);
    void build(std::span<const FloatRect> rects);
    /// Ids of the rectangles of `rects` (those given to build()) meeting `area`, increasing.
    void query(const QRectF &area, std::span<const QRectF> rects,
               std::vector<std::uint32_t> &out) const;
    void query(const QRectF &area, std::span<const FloatRect> rects,
               std::vector<std::uint32_t> &out) const;
    [[nodiscard]] bool isEmpty() const { return m_count == 0; }
    /// How many bands the rectangles are filed in, and how many ids all bands hold together
    /// (a rectangle spanning several bands is in each of them).
    [[nodiscard]] std::size_t bandCount() const
    {
        return m_offsets.empty() ? 0 : m_offsets.size() - 1;
    }
    [[nodiscard]] std::size_t entryCount() const { return m_ids.size(); }

private:
    template <typename Rect>
    void fill(std::span<const Rect> rects);
    template <typename Rect>
    void find(const QRectF &area, std::span<const Rect> rects,
              std::vector<std::uint32_t> &out) const;

    std::vector<std::uint32_t> m_offsets; // band b's ids: m_ids[m_offsets[b], m_offsets[b + 1])
    std::vector<std::uint32_t> m_ids;
    std::size_t m_count = 0; // rectangles filed
    qreal m_top = 0;
    qreal m_bandHeight = 1;
};

} // namespace cleave::ui
