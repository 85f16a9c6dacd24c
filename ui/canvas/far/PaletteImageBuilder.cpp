// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/far/PaletteImageBuilder.h"

#include <cstring>
#include <utility>

namespace cleave::ui {

PaletteImageBuilder::PaletteImageBuilder(QSize size, QImage reuse)
    : m_size(size)
{
    // Moved in, `reuse` is held here alone when the caller held it alone: writing its rows
    // does not copy it. Another is let go before the new one is made.
    const bool lent
        = reuse.size() == size && reuse.format() == QImage::Format_Indexed8 && reuse.isDetached();
    if (!lent)
        reuse = {};
    m_indexed = lent ? std::move(reuse) : QImage(size, QImage::Format_Indexed8);
}

void PaletteImageBuilder::setRow(int y, const QRgb *row)
{
    const int width = m_size.width();
    if (!m_wide.isNull()) {
        std::memcpy(m_wide.scanLine(y), row, static_cast<std::size_t>(width) * sizeof(QRgb));
        return;
    }
    uchar *out = m_indexed.scanLine(y);
    // Runs of one colour are the rule (transparency, boxes): one lookup per run.
    QRgb last = 0;
    uchar lastSlot = 0;
    bool any = false;
    for (int x = 0; x < width; ++x) {
        if (!any || row[x] != last) {
            const auto [it, added]
                = m_slots.try_emplace(row[x], static_cast<uchar>(m_colours.size()));
            if (added) {
                if (m_colours.size() == 256) {
                    widen(y);
                    setRow(y, row);
                    return;
                }
                m_colours.push_back(row[x]);
            }
            last = row[x];
            lastSlot = it->second;
            any = true;
        }
        out[x] = lastSlot;
    }
}

void PaletteImageBuilder::widen(int rows)
{
    m_wide = QImage(m_size, QImage::Format_ARGB32_Premultiplied);
    for (int y = 0; y < rows; ++y) {
        const uchar *in = m_indexed.constScanLine(y);
        auto *out = reinterpret_cast<QRgb *>(m_wide.scanLine(y));
        for (int x = 0; x < m_size.width(); ++x)
            out[x] = m_colours[in[x]];
    }
    m_indexed = {};
    m_slots.clear();
    m_colours.clear();
}

QImage PaletteImageBuilder::take()
{
    if (!m_wide.isNull())
        return std::exchange(m_wide, {});
    // The table holds plain ARGB; the rows were premultiplied.
    QList<QRgb> table;
    table.reserve(static_cast<qsizetype>(m_colours.size()));
    for (QRgb c : m_colours)
        table.push_back(qUnpremultiply(c));
    m_indexed.setColorTable(table);
    m_slots.clear();
    m_colours.clear();
    return std::exchange(m_indexed, {});
}

} // namespace cleave::ui
