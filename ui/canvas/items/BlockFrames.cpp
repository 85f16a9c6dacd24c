// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/BlockFrames.h"

#include "ui/geometry/LayoutRectF.h"

#include <QElapsedTimer>
#include <QGraphicsScene>

#include <string>
#include <unordered_map>

namespace cleave::ui {

namespace {

// Blocks framed between two looks at the clock.
constexpr std::size_t blocksPerClockCheck = 256;

} // namespace

BlockFrames::BlockFrames(SelectBlock select)
    : m_select(std::move(select))
{
}

BlockFrames::~BlockFrames() = default;

void BlockFrames::setBlocks(const std::vector<FusedBlock> &blocks)
{
    dropMade();
    auto table = std::make_shared<BlockFrameTable>();
    std::size_t nodes = 0;
    for (const FusedBlock &b : blocks)
        nodes += b.nodes.size();
    table->nameOf.reserve(blocks.size());
    table->starts.reserve(blocks.size() + 1);
    table->nodes.reserve(nodes);
    table->starts.push_back(0);
    // Names repeat (the blocks of one kind of kernel share it): one string per name.
    std::unordered_map<std::string, std::uint32_t> names;
    for (const FusedBlock &b : blocks) {
        auto [it, added]
            = names.try_emplace(b.name, static_cast<std::uint32_t>(table->names.size()));
        if (added)
            table->names.push_back(QString::fromStdString(b.name));
        table->nameOf.push_back(it->second);
        table->nodes.insert(table->nodes.end(), b.nodes.begin(), b.nodes.end());
        table->starts.push_back(static_cast<std::uint32_t>(table->nodes.size()));
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
    return m_table ? m_table->blockCount() : 0;
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
    m_layer = new BlockFrameLayer(m_table, std::move(m_made));
    scene.addItem(m_layer);
    m_made = {};
    return true;
}

void BlockFrames::make(std::size_t block, const Layout &layout)
{
    QRectF frame;
    std::uint32_t drawn = 0;
    for (NodeId n : m_table->nodesOf(block)) {
        const LayoutRect *r = layout.rect(n);
        if (r == nullptr)
            continue;
        frame = frame.united(toRectF(*r));
        ++drawn;
    }
    if (drawn < 2)
        return; // a single node already is its block
    m_made.push_back({ frame.adjusted(-7, -7, 7, 7), static_cast<std::uint32_t>(block), drawn });
}

void BlockFrames::drop(QGraphicsScene &scene)
{
    if (m_layer != nullptr) {
        scene.removeItem(m_layer);
        delete m_layer;
        m_layer = nullptr;
    }
    dropMade();
}

void BlockFrames::forget()
{
    m_layer = nullptr;
    dropMade();
}

void BlockFrames::dropMade()
{
    m_made = {};
    m_next = 0;
    m_framing = false;
}

} // namespace cleave::ui
