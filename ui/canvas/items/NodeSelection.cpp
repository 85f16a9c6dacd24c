// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/NodeSelection.h"

#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/TileMaterializer.h"

#include <algorithm>
#include <iterator>

namespace cleave::ui {

std::vector<std::size_t> NodeSelection::nodes() const
{
    const ItemStates &states = m_drawing.states();
    std::vector<std::size_t> out;
    out.reserve(states.selectedCount());
    if (states.selectedCount() == 0)
        return out;
    for (const auto &[id, index] : m_drawing.drawnNodes())
        if (states.isSelected(index))
            out.push_back(index);
    std::sort(out.begin(), out.end());
    return out;
}

bool NodeSelection::set(const std::vector<std::size_t> &nodes)
{
    bool changed = false;
    // Through the drawing: the node is repainted, whether or not its item exists.
    auto select = [&](std::size_t index, bool on) { changed |= m_drawing.setSelected(index, on); };
    // Off for the selected nodes not in `nodes` (both sorted), on for the others.
    auto next = nodes.begin();
    for (std::size_t index : this->nodes()) {
        while (next != nodes.end() && *next < index)
            ++next;
        if (next == nodes.end() || *next != index)
            select(index, false);
    }
    for (std::size_t index : nodes)
        select(index, true);
    return changed;
}

bool NodeSelection::click(const QPointF &scenePos, bool add, bool &hit)
{
    const std::size_t index = m_drawing.nodeAt(scenePos);
    hit = index != TileMaterializer::none;
    if (!hit)
        return false;
    if (!add)
        return set({ index });
    std::vector<std::size_t> selected = nodes();
    const auto it = std::lower_bound(selected.begin(), selected.end(), index);
    if (it != selected.end() && *it == index)
        selected.erase(it); // Shift or Ctrl toggles
    else
        selected.insert(it, index);
    return set(selected);
}

bool NodeSelection::band(const QRectF &area)
{
    if (!m_banding) {
        // The select tool emptied the selection on the press unless Shift or Ctrl was held.
        m_banding = true;
        m_bandBase = nodes();
    }
    const std::vector<std::size_t> inside = m_drawing.nodesIn(area);
    std::vector<std::size_t> merged;
    merged.reserve(inside.size() + m_bandBase.size());
    std::set_union(m_bandBase.begin(), m_bandBase.end(), inside.begin(), inside.end(),
                   std::back_inserter(merged));
    return set(merged);
}

void NodeSelection::endBand()
{
    m_banding = false;
    m_bandBase.clear();
}

} // namespace cleave::ui
