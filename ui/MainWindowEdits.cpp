// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// MainWindow: the plan edits on the canvas selection and the context menu.
#include "ui/MainWindow.h"
#include "ui/commands/AssignNodesToPartition.h"
#include "ui/commands/IsolateSelection.h"
#include "ui/commands/MergePartitions.h"
#include "ui/commands/NewPartitionFromSelection.h"
#include "ui/commands/RemoveCut.h"
#include "ui/commands/SetPartitionTarget.h"
#include "ui/docks/BoundaryDock.h"
#include "ui/docks/PartitionsDock.h"
#include "ui/document/Document.h"
#include "ui/models/BoundaryTensorModel.h"
#include "ui/scene/CanvasWidget.h"
#include "ui/scene/OpCategory.h"

#include <QAction>
#include <QInputDialog>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QStatusBar>
#include <QTableView>

#include <algorithm>

namespace cleave::ui {

namespace {

// A small filled square in a partition's colour, for menus.
QIcon swatch(int colour)
{
    QPixmap pixmap(14, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(partitionColour(colour).darker(130));
    painter.setBrush(partitionColour(colour));
    painter.drawRoundedRect(QRectF(1.5, 1.5, 11, 11), 2, 2);
    return QIcon(pixmap);
}

} // namespace

std::vector<cleave::NodeId> MainWindow::selection() const
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan)
        return {};
    // Only assignable nodes of the plan's function take part in edits (inputs and constants
    // follow their consumers).
    std::vector<cleave::NodeId> nodes;
    for (cleave::NodeId n : modelNodes(m_canvas->selectedNodes())) {
        if (n.index() < plan->graph().nodeCount() && plan->view().contains(n)
            && plan->view().isAssignable(n))
            nodes.push_back(n);
    }
    return nodes;
}

std::vector<cleave::PartitionId> MainWindow::selectedPartitions() const
{
    const cleave::PartitionPlan *plan = m_document->plan();
    std::vector<cleave::PartitionId> ids;
    for (cleave::NodeId n : selection()) {
        const cleave::PartitionId p = plan->partitionOf(n);
        if (p.isValid() && std::find(ids.begin(), ids.end(), p) == ids.end())
            ids.push_back(p);
    }
    std::sort(ids.begin(), ids.end(), [plan](cleave::PartitionId a, cleave::PartitionId b) {
        return plan->indexOf(a) < plan->indexOf(b);
    });
    return ids;
}

void MainWindow::updateEditActions()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    const std::vector<cleave::NodeId> nodes = selection();
    const std::size_t partitions = nodes.empty() ? 0 : selectedPartitions().size();
    const bool any = plan && !nodes.empty();
    m_newPartitionAction->setEnabled(any);
    m_isolateAction->setEnabled(any);
    m_assignMenu->setEnabled(any && plan->partitionCount() > 0);
    m_mergeAction->setEnabled(partitions >= 2);
    m_setTargetAction->setEnabled(partitions >= 1
                                  || (plan && m_partitionsDock->currentPartition().isValid()));
    m_convexClosureAction->setEnabled(any && !plan->nonConvexWitness(nodes).empty());
    m_removeCutAction->setEnabled(partitions >= 2 || (plan && m_boundaryDock->currentRow() >= 0));
}

void MainWindow::showContextMenu(const QPoint &globalPos)
{
    updateEditActions();
    if (!m_document->plan())
        return;
    QMenu menu(this);
    menu.addAction(m_newPartitionAction);
    menu.addMenu(m_assignMenu);
    menu.addAction(m_isolateAction);
    menu.addAction(m_mergeAction);
    menu.addAction(m_setTargetAction);
    if (m_convexClosureAction->isEnabled()) {
        menu.addSeparator();
        menu.addAction(m_convexClosureAction);
    }
    menu.addSeparator();
    menu.addAction(m_removeCutAction);
    menu.addSeparator();
    menu.addAction(m_undoAction);
    menu.addAction(m_redoAction);
    menu.exec(globalPos);
}

void MainWindow::rebuildAssignMenu()
{
    m_assignMenu->clear();
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan)
        return;
    for (const cleave::Partition &p : plan->partitions()) {
        const cleave::PartitionId id = p.id;
        m_assignMenu->addAction(
            swatch(p.colour),
            QStringLiteral("%1  (%2)")
                .arg(QString::fromStdString(p.name), QString::fromStdString(p.target)),
            this, [this, id] { assignSelectionTo(id); });
    }
}

void MainWindow::newPartitionFromSelection()
{
    std::vector<cleave::NodeId> nodes = selection();
    if (!nodes.empty())
        m_document->undoStack()->push(new NewPartitionFromSelection(m_document, std::move(nodes)));
}

void MainWindow::assignSelectionTo(cleave::PartitionId partition)
{
    std::vector<cleave::NodeId> nodes = selection();
    if (!nodes.empty())
        m_document->undoStack()->push(
            new AssignNodesToPartition(m_document, std::move(nodes), partition));
}

void MainWindow::isolateSelection()
{
    std::vector<cleave::NodeId> nodes = selection();
    if (nodes.empty())
        return;
    if (!m_document->plan()->nonConvexWitness(nodes).empty()) {
        statusBar()->showMessage(tr("The selection is not convex: a path leaves it and comes "
                                    "back. Use Edit ▸ Select Convex Closure first."),
                                 10000);
        return;
    }
    m_document->undoStack()->push(new IsolateSelection(m_document, std::move(nodes)));
}

void MainWindow::mergeSelectedPartitions()
{
    std::vector<cleave::PartitionId> ids = selectedPartitions();
    if (ids.size() >= 2)
        m_document->undoStack()->push(new MergePartitions(m_document, std::move(ids)));
}

void MainWindow::setTargetOfSelection()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan)
        return;
    std::vector<cleave::PartitionId> ids = selectedPartitions();
    if (ids.empty() && m_partitionsDock->currentPartition().isValid())
        ids.push_back(m_partitionsDock->currentPartition());
    if (ids.empty())
        return;
    QStringList targets { QStringLiteral("llvm"),    QStringLiteral("cuda"),
                          QStringLiteral("opencl"),  QStringLiteral("vulkan"),
                          QStringLiteral("dnnl"),    QStringLiteral("tensorrt"),
                          QStringLiteral("cutlass"), QStringLiteral("cmsis-nn"),
                          QStringLiteral("ethos-n"), QStringLiteral("vitis-ai") };
    const QString current = QString::fromStdString(plan->partition(ids.front())->target);
    if (!targets.contains(current))
        targets.prepend(current);
    bool ok = false;
    const QString target = QInputDialog::getItem(
        this, tr("Set Target"),
        (ids.size() == 1 ? tr("Target of the partition (a TVM target or a BYOC compiler):")
                         : tr("Target of the %1 partitions (a TVM target or a BYOC compiler):")
                               .arg(ids.size())),
        targets, int(targets.indexOf(current)), true, &ok);
    if (!ok || target.trimmed().isEmpty())
        return;
    QUndoStack *stack = m_document->undoStack();
    stack->beginMacro(tr("Set target to %1").arg(target.trimmed()));
    for (cleave::PartitionId id : ids)
        stack->push(new SetPartitionTarget(m_document, id, target.trimmed().toStdString()));
    stack->endMacro();
}

void MainWindow::selectConvexClosure()
{
    const std::vector<cleave::NodeId> nodes = selection();
    if (nodes.empty())
        return;
    const std::vector<cleave::NodeId> closure = m_document->plan()->convexClosure(nodes);
    m_canvas->selectNodes(shownNodes(closure));
    const std::size_t added = closure.size() - nodes.size();
    statusBar()->showMessage(added == 1
                                 ? tr("Selected the convex closure: 1 node added.")
                                 : tr("Selected the convex closure: %1 nodes added.").arg(added),
                             6000);
}

void MainWindow::removeCut()
{
    if (!m_document->plan())
        return;
    const std::vector<cleave::PartitionId> ids = selectedPartitions();
    const int row = m_boundaryDock->currentRow();
    const bool boundaryFirst = m_boundaryDock->view()->hasFocus() && row >= 0;
    if (!boundaryFirst && ids.size() >= 2) {
        if (ids.size() == 2)
            m_document->undoStack()->push(new RemoveCut(m_document, ids[0], ids[1]));
        else
            m_document->undoStack()->push(new MergePartitions(m_document, ids));
        return;
    }
    if (row >= 0) {
        const auto [from, to] = m_boundaryDock->model()->partitionsAt(row);
        if (from.isValid() && to.isValid() && from != to)
            m_document->undoStack()->push(new RemoveCut(m_document, from, to));
        return;
    }
    statusBar()->showMessage(
        tr("Select nodes on both sides of a cut, or a boundary tensor, to remove the cut."), 6000);
}

} // namespace cleave::ui
