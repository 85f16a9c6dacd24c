// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The ops / fused-blocks level of the canvas (issue: fused blocks, DESIGN.md §4). At Blocks level
// the canvas shows a BlockGraph (one node per FuseOps kernel, much smaller to lay out) and the
// plan converted to it; every edit still acts on the operators, so ids are translated at the
// canvas boundary: cut edges and selections down to operators, plans and focus requests up.
#include "core/partition/PlanConversion.h"
#include "ui/MainWindow.h"
#include "ui/docks/PropertiesDock.h"
#include "ui/document/Document.h"
#include "ui/scene/CanvasWidget.h"

#include <QAction>
#include <QActionGroup>
#include <QStatusBar>

#include <algorithm>

namespace cleave::ui {

void MainWindow::createLevelActions()
{
    auto *group = new QActionGroup(this);
    m_opsLevelAction = new QAction(tr("&Operators"), group);
    m_opsLevelAction->setObjectName(QStringLiteral("opsLevelAction"));
    m_opsLevelAction->setCheckable(true);
    m_opsLevelAction->setChecked(true);
    m_opsLevelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    m_opsLevelAction->setToolTip(tr("Show every operator (Ctrl+1)"));
    m_blocksLevelAction = new QAction(tr("Fused &Blocks"), group);
    m_blocksLevelAction->setObjectName(QStringLiteral("blocksLevelAction"));
    m_blocksLevelAction->setCheckable(true);
    m_blocksLevelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    m_blocksLevelAction->setToolTip(tr("Show one node per fused kernel, as TVM's FuseOps groups "
                                       "them; double-click a block to expand it (Ctrl+2)"));
    m_collapseBlocksAction = new QAction(tr("&Collapse All Blocks"), this);
    m_collapseBlocksAction->setObjectName(QStringLiteral("collapseBlocksAction"));
    m_collapseBlocksAction->setEnabled(false);
    connect(m_opsLevelAction, &QAction::triggered, this, [this] { setLevel(Level::Ops); });
    connect(m_blocksLevelAction, &QAction::triggered, this, [this] { setLevel(Level::Blocks); });
    connect(m_collapseBlocksAction, &QAction::triggered, this, &MainWindow::collapseAllBlocks);
    for (QAction *a : { m_opsLevelAction, m_blocksLevelAction })
        a->setEnabled(false);
}

void MainWindow::setLevel(Level level)
{
    if (level == m_level)
        return;
    m_level = level;
    (level == Level::Ops ? m_opsLevelAction : m_blocksLevelAction)->setChecked(true);
    m_collapseBlocksAction->setEnabled(level == Level::Blocks);
    showGraphAtLevel(false);
}

void MainWindow::showGraphAtLevel(bool graphChanged)
{
    const Graph *graph = m_document->graph();
    // The canvas points into the block graph and plan: detach it before replacing them.
    m_canvas->setPlan(nullptr, nullptr);
    std::unique_ptr<BlockGraph> previous = std::move(m_blockGraph);
    m_blockPlan.reset();
    if (graphChanged) {
        m_blocks = graph ? fuseOps(*graph, graph->mainFunction()) : std::vector<FusedBlock> {};
        m_expanded.clear();
    }
    for (QAction *a : { m_opsLevelAction, m_blocksLevelAction })
        a->setEnabled(graph != nullptr);
    if (!graph) {
        m_canvas->setGraph(nullptr, {}, {});
        return;
    }
    if (m_level == Level::Ops) {
        m_canvas->setGraph(graph, graph->mainFunction(), graph->checksum());
        m_canvas->setBlocks(m_blocks);
    } else {
        m_blockGraph = std::make_unique<BlockGraph>(
            collapseBlocks(*graph, graph->mainFunction(), m_blocks, m_expanded));
        std::string key = graph->checksum() + "/blocks";
        for (std::size_t b : m_expanded)
            key += "+" + std::to_string(b);
        m_canvas->setGraph(&m_blockGraph->graph, m_blockGraph->graph.mainFunction(), key);
    }
    showPlanAtLevel();
}

void MainWindow::showPlanAtLevel()
{
    const PartitionPlan *plan = m_document->plan();
    if (m_level == Level::Ops || !m_blockGraph || !plan) {
        m_canvas->setPlan(plan, plan ? &m_document->boundary() : nullptr);
        return;
    }
    m_canvas->setPlan(nullptr, nullptr);
    PlanConversion converted
        = relayPlanToKernels(*plan, m_blockGraph->mapping, m_blockGraph->graph);
    m_blockPlan.reset();
    if (converted.plan)
        m_blockPlan.emplace(std::move(*converted.plan));
    if (!m_blockPlan)
        return;
    m_blockBoundary = computeBoundary(*m_blockPlan);
    m_canvas->setPlan(&*m_blockPlan, &m_blockBoundary);
    const auto split
        = std::find_if(converted.diagnostics.begin(), converted.diagnostics.end(),
                       [](const Diagnostic &d) { return d.code == "convert.split_kernel"; });
    if (split != converted.diagnostics.end())
        statusBar()->showMessage(tr("A cut runs through a fused block; the block is drawn with its "
                                    "output op. Switch to Operators to see the cut: %1")
                                     .arg(QString::fromStdString(split->message)),
                                 15000);
}

void MainWindow::expandBlock(NodeId shown)
{
    if (m_level != Level::Blocks || !m_blockGraph)
        return;
    const std::vector<NodeId> members = m_blockGraph->originalNodes(shown);
    if (members.size() < 2)
        return;
    for (std::size_t b = 0; b < m_blocks.size(); ++b) {
        if (m_blocks[b].root == members.back()) {
            m_expanded.push_back(b);
            showGraphAtLevel(false);
            return;
        }
    }
}

void MainWindow::collapseAllBlocks()
{
    if (m_expanded.empty())
        return;
    m_expanded.clear();
    showGraphAtLevel(false);
}

std::vector<NodeId> MainWindow::modelNodes(const std::vector<NodeId> &shown) const
{
    if (m_level == Level::Ops || !m_blockGraph)
        return shown;
    std::vector<NodeId> out;
    for (NodeId n : shown) {
        for (NodeId m : m_blockGraph->originalNodes(n)) {
            if (std::find(out.begin(), out.end(), m) == out.end())
                out.push_back(m);
        }
    }
    return out;
}

std::vector<NodeId> MainWindow::shownNodes(const std::vector<NodeId> &model) const
{
    if (m_level == Level::Ops || !m_blockGraph)
        return model;
    std::vector<NodeId> out;
    for (NodeId n : model) {
        const auto it = m_blockGraph->shownAs.find(n);
        if (it != m_blockGraph->shownAs.end() && it->second.isValid()
            && std::find(out.begin(), out.end(), it->second) == out.end())
            out.push_back(it->second);
    }
    return out;
}

std::vector<EdgeRef> MainWindow::shownEdges(const std::vector<EdgeRef> &model) const
{
    if (m_level == Level::Ops || !m_blockGraph)
        return model;
    std::vector<EdgeRef> out;
    for (const EdgeRef &e : model) {
        const std::vector<NodeId> consumer = shownNodes({ e.consumer });
        if (consumer.empty())
            continue;
        const auto tensor = m_blockGraph->shownTensor.find(e.tensor);
        if (tensor != m_blockGraph->shownTensor.end() && tensor->second.node != consumer.front())
            out.push_back({ tensor->second, consumer.front() });
    }
    return out;
}

void MainWindow::focusModelNodes(const std::vector<NodeId> &nodes)
{
    const std::vector<NodeId> shown = shownNodes(nodes);
    if (shown.empty())
        return;
    m_canvas->selectNodes(shown);
    m_canvas->centerOnNode(shown.front());
}

} // namespace cleave::ui
