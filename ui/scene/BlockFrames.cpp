// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/BlockFrames.h"

#include "ui/scene/GraphItems.h"
#include "ui/scene/ItemTile.h"

#include <QElapsedTimer>
#include <QGraphicsScene>

#include <string>
#include <unordered_map>

namespace cleave::ui {

namespace {

// Blocks framed between two looks at the clock.
constexpr std::size_t blocksPerClockCheck = 64;
// Frames per tile.
constexpr std::size_t framesPerTile = 256;

} // namespace

BlockFrames::BlockFrames(SelectBlock select)
    : m_select(std::move(select))
{
}

BlockFrames::~BlockFrames()
{
    dropMade();
}

void BlockFrames::setBlocks(const std::vector<FusedBlock> &blocks)
{
    dropMade();
    auto table = std::make_shared<BlockFrameTable>();
    table->names.reserve(blocks.size());
    table->nodes.reserve(blocks.size());
    // Names repeat (the blocks of one kind of kernel share it): one string per name.
    std::unordered_map<std::string, QString> names;
    for (const FusedBlock &b : blocks) {
        auto [it, added] = names.try_emplace(b.name);
        if (added)
            it->second = QString::fromStdString(b.name);
        table->names.push_back(it->second);
        table->nodes.push_back(b.nodes);
    }
    table->select = m_select;
    m_table = std::move(table);
}

void BlockFrames::clearBlocks()
{
    m_table.reset();
}

std::size_t BlockFrames::blockCount() const
{
    return m_table ? m_table->names.size() : 0;
}

bool BlockFrames::apply(QGraphicsScene &scene, const Layout &layout, int budgetMs)
{
    if (!m_framing) {
        drop(scene);
        m_framing = true;
    }
    QElapsedTimer clock;
    clock.start();
    const std::size_t count = blockCount();
    while (m_next < count) {
        make(m_next++, layout);
        if (budgetMs > 0 && m_next % blocksPerClockCheck == 0 && m_next < count
            && clock.elapsed() >= budgetMs)
            return false;
    }
    m_framing = false;
    m_next = 0;
    if (m_made.empty())
        return true;
    // In tiles of neighbours, as nodes and edges are: thousands of top-level frames would each
    // be looked at by every paint.
    std::vector<QRectF> tileBoxes;
    const std::vector<std::uint32_t> tileOf = groupIntoTiles(m_boxes, framesPerTile, tileBoxes);
    std::vector<ItemTile *> tiles;
    tiles.reserve(tileBoxes.size());
    for (const QRectF &box : tileBoxes) {
        tiles.push_back(new ItemTile(box, m_made.front()->zValue()));
        scene.addItem(tiles.back());
        m_tiles.push_back(tiles.back());
    }
    for (std::size_t i = 0; i < m_made.size(); ++i)
        m_made[i]->setParentItem(tiles[tileOf[i]]);
    m_made.clear();
    m_boxes.clear();
    return true;
}

void BlockFrames::make(std::size_t block, const Layout &layout)
{
    QRectF frame;
    std::uint32_t drawn = 0;
    for (NodeId n : m_table->nodes[block]) {
        const LayoutRect *r = layout.rect(n);
        if (r == nullptr)
            continue;
        frame = frame.united(QRectF(r->x, r->y, r->width, r->height));
        ++drawn;
    }
    if (drawn < 2)
        return; // a single node already is its block
    auto *item = new BlockFrameItem(m_table, static_cast<std::uint32_t>(block), drawn,
                                    frame.adjusted(-7, -7, 7, 7));
    m_made.push_back(item);
    m_boxes.push_back(item->boundingRect());
}

void BlockFrames::drop(QGraphicsScene &scene)
{
    for (QGraphicsItem *tile : m_tiles) {
        scene.removeItem(tile);
        delete tile;
    }
    m_tiles.clear();
    dropMade();
}

void BlockFrames::forget()
{
    m_tiles.clear();
    dropMade();
}

void BlockFrames::dropMade()
{
    for (BlockFrameItem *frame : m_made)
        delete frame; // in no scene yet
    m_made.clear();
    m_boxes.clear();
    m_next = 0;
    m_framing = false;
}

} // namespace cleave::ui
