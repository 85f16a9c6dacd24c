// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test helper: which tiles one repaint of a view paints.
#pragma once

#include "ui/canvas/items/ItemTile.h"

#include <QWidget>

#include <cstddef>
#include <map>
#include <vector>

namespace cleave::test {

/// Notes each tile's paint count, then repaints `viewport` at once: a tile that repaint painted
/// is one whose paintCount() is now above the count returned for it.
inline std::map<const ui::ItemTile *, std::size_t>
paintCountsThenRepaint(const std::vector<ui::ItemTile *> &tiles, QWidget *viewport)
{
    std::map<const ui::ItemTile *, std::size_t> before;
    for (const ui::ItemTile *tile : tiles)
        before[tile] = tile->paintCount();
    viewport->repaint();
    return before;
}

} // namespace cleave::test
