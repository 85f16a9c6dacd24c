// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/graph/Ids.h"
#include "core/layout/Layout.h"
#include "ui/canvas/items/BlockFrameLayer.h"

#include <functional>
#include <memory>
#include <vector>

class QGraphicsItem;
class QGraphicsScene;

namespace cleave::ui {

/// The frames of the fused blocks over a drawing, made from the layout's node rectangles and
/// shown by one BlockFrameLayer, which paints those in view. The blocks' names and nodes are
/// held once, in a table the layer shares (BlockFrameTable); the layer holds each frame's
/// rectangle and block index. A large model's operators have thousands of blocks (rnnt: 6.9k):
/// apply() can measure them over several event-loop turns, a frame being painted between them.
class BlockFrames
{
public:
    /// What clicking a frame does: select its drawn nodes (`add`: to the selection).
    using SelectBlock = std::function<void(const std::vector<NodeId> &nodes, bool add)>;

    explicit BlockFrames(SelectBlock select);
    ~BlockFrames();
    BlockFrames(const BlockFrames &) = delete;
    BlockFrames &operator=(const BlockFrames &) = delete;

    /// The blocks to frame (names and node ids copied); the frames shown stay until apply().
    void setBlocks(const std::vector<FusedBlock> &blocks);
    void clearBlocks();
    /// Frames the blocks of two drawn nodes or more over `layout` in `scene`, replacing the
    /// frames shown: all of them (`budgetMs` 0), or those it has time for; true once every
    /// frame is made and shown. A call after false goes on where that one stopped.
    bool apply(QGraphicsScene &scene, const Layout &layout, int budgetMs = 0);
    /// Deletes the frames shown (out of `scene`) and those made but not shown yet.
    void drop(QGraphicsScene &scene);
    /// Forgets the frames shown (deleted with their scene) and drops those not shown yet.
    void forget();
    /// The item showing the frames (nullptr: none shown).
    [[nodiscard]] const BlockFrameLayer *layer() const { return m_layer; }

private:
    void make(std::size_t block, const Layout &layout);
    void dropMade();
    [[nodiscard]] std::size_t blockCount() const;

    SelectBlock m_select;
    // Replaced (never changed) by setBlocks(): the frames shown keep the table they were made of.
    std::shared_ptr<const BlockFrameTable> m_table;
    BlockFrameLayer *m_layer = nullptr;
    // The frames measured by a sliced apply() (shown by no layer yet), the next block.
    std::vector<BlockFrameLayer::Frame> m_made;
    std::size_t m_next = 0;
    bool m_framing = false;
};

} // namespace cleave::ui
