// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/ItemStates.h"

#include "ui/canvas/items/GraphItems.h"

namespace cleave::ui {

namespace {

// Turns `flag` on or off in entry `i` of `flags` (out of range: nothing).
void setFlag(std::vector<std::uint8_t> &flags, std::size_t i, std::uint8_t flag, bool on)
{
    if (i >= flags.size())
        return;
    if (on)
        flags[i] |= flag;
    else
        flags[i] &= static_cast<std::uint8_t>(~flag);
}

} // namespace

void ItemStates::reset(std::size_t nodes, std::size_t edges)
{
    m_nodes.assign(nodes, 0);
    m_edges.assign(edges, 0);
    m_boundary.clear();
    m_flash.clear();
    m_selected = 0;
    m_hovered = noEdge;
}

bool ItemStates::setSelected(std::size_t node, bool on)
{
    if (node >= m_nodes.size() || isSelected(node) == on)
        return false;
    set(node, selectedFlag, on);
    if (on)
        ++m_selected;
    else
        --m_selected;
    return true;
}

void ItemStates::set(std::size_t node, std::uint8_t flag, bool on)
{
    setFlag(m_nodes, node, flag, on);
}

void ItemStates::setEdge(std::size_t edge, std::uint8_t flag, bool on)
{
    setFlag(m_edges, edge, flag, on);
}

QColor ItemStates::boundaryColour(std::size_t edge) const
{
    const auto it = m_boundary.find(static_cast<std::uint32_t>(edge));
    return it != m_boundary.end() ? QColor::fromRgba(it->second) : QColor();
}

void ItemStates::setBoundaryColour(std::size_t edge, const QColor &colour)
{
    if (colour.isValid())
        m_boundary[static_cast<std::uint32_t>(edge)] = colour.rgba();
    else
        m_boundary.erase(static_cast<std::uint32_t>(edge));
}

bool ItemStates::isCutHover(std::size_t edge) const
{
    return edge < m_edges.size() && (m_edges[edge] & cutHoverFlag) != 0;
}

void ItemStates::setCutHover(std::size_t edge, bool on)
{
    setEdge(edge, cutHoverFlag, on);
}

bool ItemStates::isEdgeHighlighted(std::size_t edge) const
{
    return edge < m_edges.size() && (m_edges[edge] & edgeHighlightFlag) != 0;
}

void ItemStates::setEdgeHighlighted(std::size_t edge, bool on)
{
    setEdge(edge, edgeHighlightFlag, on);
}

qreal ItemStates::flash(std::size_t edge) const
{
    const auto it = m_flash.find(static_cast<std::uint32_t>(edge));
    return it != m_flash.end() ? it->second : 0;
}

void ItemStates::setFlash(std::size_t edge, qreal strength)
{
    if (strength > 0)
        m_flash[static_cast<std::uint32_t>(edge)] = strength;
    else
        m_flash.erase(static_cast<std::uint32_t>(edge));
}

void ItemStates::apply(NodeItem &item, std::size_t node) const
{
    item.setInSelection(isSelected(node));
    item.setHighlighted(isHighlighted(node));
    item.setProblem(hasProblem(node));
}

void ItemStates::apply(EdgeItem &item, std::size_t edge) const
{
    if (const QColor colour = boundaryColour(edge); colour.isValid())
        item.setBoundaryColour(colour);
    if (isCutHover(edge))
        item.setCutHover(true);
    if (isEdgeHighlighted(edge))
        item.setHighlighted(true);
    if (const qreal strength = flash(edge); strength > 0)
        item.setFlash(strength);
}

} // namespace cleave::ui
