// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QColor>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace cleave::ui {

class EdgeItem;
class NodeItem;

/// What the canvas shows on its nodes and edges beyond the layout (selection, highlight,
/// problems, boundary colours, the cut stroke's crossings, flashes, the hovered edge), kept per
/// node and per edge of the layout graph (by their indices there) whether or not their items
/// exist: tiles paint their members with it, and an item (made for hit tests only) takes its
/// state from here when it is made. A few bytes per node and edge.
class ItemStates
{
public:
    /// Forgets everything: `nodes` and `edges` of a new layout graph, all in their normal state.
    void reset(std::size_t nodes, std::size_t edges);

    [[nodiscard]] bool isSelected(std::size_t node) const { return has(node, selectedFlag); }
    /// True when the selection changed.
    bool setSelected(std::size_t node, bool on);
    [[nodiscard]] std::size_t selectedCount() const { return m_selected; }
    [[nodiscard]] bool isHighlighted(std::size_t node) const { return has(node, highlightFlag); }
    void setHighlighted(std::size_t node, bool on) { set(node, highlightFlag, on); }
    [[nodiscard]] bool hasProblem(std::size_t node) const { return has(node, problemFlag); }
    void setProblem(std::size_t node, bool on) { set(node, problemFlag, on); }

    /// The colour of a boundary edge (invalid: not a boundary edge).
    [[nodiscard]] QColor boundaryColour(std::size_t edge) const;
    void setBoundaryColour(std::size_t edge, const QColor &colour);
    [[nodiscard]] bool isCutHover(std::size_t edge) const;
    void setCutHover(std::size_t edge, bool on);
    [[nodiscard]] bool isEdgeHighlighted(std::size_t edge) const;
    void setEdgeHighlighted(std::size_t edge, bool on);
    [[nodiscard]] qreal flash(std::size_t edge) const;
    void setFlash(std::size_t edge, qreal strength);
    /// The edge under the mouse (drawn in the hover colour), or noEdge.
    static constexpr std::size_t noEdge = static_cast<std::size_t>(-1);
    [[nodiscard]] std::size_t hoveredEdge() const { return m_hovered; }
    void setHoveredEdge(std::size_t edge) { m_hovered = edge; }
    /// True when some edge is a boundary edge (painting draws those above the others).
    [[nodiscard]] bool hasBoundaryEdges() const { return !m_boundary.empty(); }
    /// True when some edge flashes.
    [[nodiscard]] bool hasFlashes() const { return !m_flash.empty(); }

    /// Gives a newly made item the state of its node or edge.
    void apply(NodeItem &item, std::size_t node) const;
    void apply(EdgeItem &item, std::size_t edge) const;

private:
    static constexpr std::uint8_t selectedFlag = 1;
    static constexpr std::uint8_t highlightFlag = 2;
    static constexpr std::uint8_t problemFlag = 4;
    static constexpr std::uint8_t cutHoverFlag = 1;
    static constexpr std::uint8_t edgeHighlightFlag = 2;

    [[nodiscard]] bool has(std::size_t node, std::uint8_t flag) const
    {
        return node < m_nodes.size() && (m_nodes[node] & flag) != 0;
    }
    void set(std::size_t node, std::uint8_t flag, bool on);
    void setEdge(std::size_t edge, std::uint8_t flag, bool on);

    std::vector<std::uint8_t> m_nodes;
    std::vector<std::uint8_t> m_edges;
    // Few edges are boundary edges or flash at once: sparse.
    std::unordered_map<std::uint32_t, QRgb> m_boundary;
    std::unordered_map<std::uint32_t, qreal> m_flash;
    std::size_t m_selected = 0;
    std::size_t m_hovered = noEdge;
};

} // namespace cleave::ui
