// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QRectF>

#include <cstdint>
#include <vector>

namespace cleave::ui {

/// Finds the rectangles that meet a query rectangle among many (the primitives of a large
/// drawing), so that painting costs what is visible, not what exists. Rectangles are filed in
/// horizontal bands (DNN drawings are tall and narrow); a query visits the bands it spans and
/// reports each rectangle once. Build once, query many times; not thread-safe.
class BandIndex
{
public:
    /// Indexes `rects` (their positions in the vector are the ids the queries report).
    void build(const std::vector<QRectF> &rects);
    /// Ids of the rectangles intersecting `area`, in increasing order.
    void query(const QRectF &area, std::vector<std::uint32_t> &out) const;
    [[nodiscard]] bool isEmpty() const { return m_rects.empty(); }

private:
    std::vector<QRectF> m_rects;
    std::vector<std::vector<std::uint32_t>> m_bands;
    qreal m_top = 0;
    qreal m_bandHeight = 1;
    mutable std::vector<std::uint32_t> m_seen; // query stamp per rectangle
    mutable std::uint32_t m_stamp = 0;
};

} // namespace cleave::ui
