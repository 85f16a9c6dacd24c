// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/graph/Ids.h"
#include "core/layout/Layout.h"

#include <QRectF>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class QGraphicsItem;
class QGraphicsScene;

namespace cleave::ui {

class BlockFrameItem;
struct BlockFrameTable;

/// The frames of the fused blocks over a drawing, made from the layout's node rectangles and
/// shown in tiles of neighbours (the scene keeps no index). A large model's operators have
/// thousands of blocks (rnnt: 6.9k): apply() can make them over several event-loop turns, a
/// frame being painted between them. The blocks' names and nodes are held once, in a table
/// the frames share (BlockFrameTable); a frame holds its block's index and its rectangle.
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
    /// Forgets the frames shown (deleted with their scene) and deletes those not shown yet.
    void forget();
    /// The tiles the frames hang under.
    [[nodiscard]] const std::vector<QGraphicsItem *> &tiles() const { return m_tiles; }

private:
    void make(std::size_t block, const Layout &layout);
    void dropMade();
    [[nodiscard]] std::size_t blockCount() const;

    SelectBlock m_select;
    // Replaced (never changed) by setBlocks(): the frames shown keep the table they were made of.
    std::shared_ptr<const BlockFrameTable> m_table;
    std::vector<QGraphicsItem *> m_tiles;
    // The frames made by a sliced apply() (in no scene yet), their boxes, the next block.
    std::vector<BlockFrameItem *> m_made;
    std::vector<QRectF> m_boxes;
    std::size_t m_next = 0;
    bool m_framing = false;
};

} // namespace cleave::ui
