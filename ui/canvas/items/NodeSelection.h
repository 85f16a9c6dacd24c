// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QPointF>
#include <QRectF>

#include <cstddef>
#include <vector>

namespace cleave::ui {

class TileMaterializer;

/// The canvas's selection of drawn nodes. It is kept per node in the drawing's ItemStates, not in
/// Qt's item selection: node items exist only where the view needs them, and a selection (a
/// rubber band over the whole drawing far out) covers nodes without items. A node's item shows
/// its state when it exists and takes it when it is made. Nodes are layout-graph indices.
class NodeSelection
{
public:
    explicit NodeSelection(TileMaterializer &drawing)
        : m_drawing(drawing)
    {
    }

    /// The selected nodes, sorted.
    [[nodiscard]] std::vector<std::size_t> nodes() const;
    /// Makes `nodes` (sorted, without repeats) the selection; true when it changed.
    bool set(const std::vector<std::size_t> &nodes);
    /// A click at `scenePos` selects the node there (`add`: toggles it in the selection).
    /// `hit` says whether a node was there; true when the selection changed.
    bool click(const QPointF &scenePos, bool add, bool &hit);
    /// A rubber band covers `area` (scene coordinates): the nodes whose box meets it join the
    /// selection the band started from (taken on its first call after endBand()); true when
    /// the selection changed.
    bool band(const QRectF &area);
    /// The rubber band was released (or the drawing changed).
    void endBand();

private:
    TileMaterializer &m_drawing;
    std::vector<std::size_t> m_bandBase;
    bool m_banding = false;
};

} // namespace cleave::ui
