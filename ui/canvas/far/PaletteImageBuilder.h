// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QImage>
#include <QSize>

#include <unordered_map>
#include <vector>

namespace cleave::ui {

/// Builds an image row by row, in order, from 32-bit premultiplied rows: in 8 bits a pixel
/// (Format_Indexed8, a table of the colours met) while it has at most 256 colours, a quarter
/// of the memory of a 32-bit image with the same pixels; in 32 bits
/// (Format_ARGB32_Premultiplied) from the row that brings a 257th colour on, the rows before
/// converted. A far picture, drawn without antialiasing in a few flat colours, has a few
/// dozen.
class PaletteImageBuilder
{
public:
    /// An image of `size`; `reuse`, when it is an 8-bit image of that size that nothing else
    /// holds, lends its pixels (the new image is then in its memory).
    PaletteImageBuilder(QSize size, QImage reuse);

    /// Sets row `y` (the next one) from `row`, `size.width()` premultiplied pixels.
    void setRow(int y, const QRgb *row);
    /// The image (its rows not set are undefined); the builder is empty after it.
    [[nodiscard]] QImage take();

private:
    void widen(int rows);

    QSize m_size;
    QImage m_indexed;
    QImage m_wide;
    std::unordered_map<QRgb, uchar> m_slots;
    std::vector<QRgb> m_colours; // premultiplied, by slot
};

} // namespace cleave::ui
