// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/EditActions.h"

#include "ui/canvas/CanvasWidget.h"
#include "ui/commands/AssignNodesToPartition.h"
#include "ui/commands/ChangePartitionValue.h"
#include "ui/commands/CutAcrossEdges.h"
#include "ui/commands/CutAfter.h"
#include "ui/commands/IsolateSelection.h"
#include "ui/commands/MergePartitions.h"
#include "ui/commands/NewPartitionFromSelection.h"
#include "ui/commands/RemoveCut.h"
#include "ui/docks/BoundaryDock.h"
#include "ui/docks/PartitionsDock.h"
#include "ui/document/Document.h"
#include "ui/document/LevelView.h"
#include "ui/models/BoundaryTensorModel.h"
#include "ui/support/OpCategory.h"
#include "ui/widgets/ThemedIcon.h"

#include <QAction>
#include <QIcon>
#include <QInputDialog>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QTableView>
#include <QUndoStack>

#include <algorithm>

namespace cleave::ui {

namespace {

QIcon icon(const char *name)
{
    return themedIcon(name);
}

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
    return { pixmap };
}

QAction *makeAction(QObject *parent, const QIcon &icon, const QString &text, const char *name,
                    const QKeySequence &shortcut = {})
{
    auto *action = new QAction(icon, text, parent);
    action->setObjectName(QLatin1String(name));
    action->setShortcut(shortcut);
    action->setShortcutContext(Qt::WindowShortcut);
    return action;
}

} // namespace

EditActions::EditActions(Document *document, LevelView *levels, CanvasWidget *canvas,
                         PartitionsDock *partitions, BoundaryDock *boundary, QWidget *parent)
    : QObject(parent)
    , m_document(document)
    , m_levels(levels)
    , m_canvas(canvas)
    , m_partitions(partitions)
    , m_boundary(boundary)
    , m_parent(parent)
    , m_newPartition(makeAction(this, icon("partition"), tr("&New Partition from Selection"),
                                "newPartitionAction", Qt::Key_P))
    , m_isolate(
          makeAction(this, icon("isolate"), tr("&Isolate Selection"), "isolateAction", Qt::Key_I))
    , m_merge(makeAction(this, icon("merge"), tr("&Merge Partitions"), "mergeAction", Qt::Key_M))
    , m_setTarget(makeAction(this, {}, tr("Set &Target…"), "setTargetAction", Qt::Key_T))
    , m_convexClosure(makeAction(this, {}, tr("Select Con&vex Closure"), "convexClosureAction"))
    , m_removeCut(makeAction(this, {}, tr("&Remove Cut"), "removeCutAction", QKeySequence::Delete))
    , m_cutAfter(makeAction(this, icon("cut"), tr("Cut &After This Node"), "cutAfterAction"))
    , m_assignMenu(new QMenu(tr("&Assign to Partition"), parent))
{
    m_removeCut->setToolTip(
        tr("Merge the partitions on both sides of the selected boundary tensor or nodes (Del)"));
    m_assignMenu->setObjectName(QStringLiteral("assignMenu"));
    connect(m_assignMenu, &QMenu::aboutToShow, this, &EditActions::rebuildAssignMenu);
    connect(m_newPartition, &QAction::triggered, this, &EditActions::newPartitionFromSelection);
    connect(m_isolate, &QAction::triggered, this, &EditActions::isolateSelection);
    connect(m_merge, &QAction::triggered, this, &EditActions::mergeSelectedPartitions);
    connect(m_setTarget, &QAction::triggered, this, &EditActions::setTargetOfSelection);
    connect(m_convexClosure, &QAction::triggered, this, &EditActions::selectConvexClosure);
    connect(m_removeCut, &QAction::triggered, this, &EditActions::removeCut);
    connect(m_cutAfter, &QAction::triggered, this, &EditActions::cutAfterSelection);
    connect(m_canvas, &CanvasWidget::cutRequested, this, &EditActions::cutAcrossEdges);
    connect(m_canvas, &CanvasWidget::boundaryBadgeClicked, this, [this](cleave::EdgeRef shown) {
        // The model's tensor behind the badge becomes the boundary dock's current row, which
        // Remove Cut (Delete) then acts on.
        const std::vector<cleave::EdgeRef> edges = m_levels->modelEdges({ shown });
        if (!edges.empty() && m_boundary->selectTensor(edges.front().tensor)) {
            update(); // Remove Cut now has a boundary row to act on
            emit statusMessage(tr("Boundary tensor selected: Delete removes its cut."), 5000);
        }
    });
    connect(m_canvas, &CanvasWidget::cutMissed, this, [this] {
        emit statusMessage(tr("No edge crossed: draw the cut line across the edges between the "
                              "nodes to separate."),
                           5000);
    });
}

void EditActions::addPlanEdits(QMenu *menu) const
{
    menu->addAction(m_newPartition);
    menu->addMenu(m_assignMenu);
    menu->addActions({ m_isolate, m_merge, m_setTarget, m_cutAfter, m_removeCut });
    menu->addSeparator();
    menu->addAction(m_convexClosure);
}

void EditActions::cutAcrossEdges(const std::vector<cleave::EdgeRef> &shownEdges)
{
    // A stroke on the block level crosses drawn edges; the cut is of the model's edges behind
    // them.
    const std::vector<cleave::EdgeRef> cut = m_levels->modelEdges(shownEdges);
    if (cut.empty())
        return;
    // On the Fused Blocks view the cut snaps to block boundaries: no collapsed block is split.
    auto *command = new CutAcrossEdges(m_document, cut, m_levels->collapsedBlocks());
    if (!pushKept(command))
        return; // refused or empty: the stack dropped (and deleted) it
    const std::size_t snapped = command->edit().snappedNodes;
    if (snapped > 0)
        emit statusMessage(tr("Cut snapped to block boundaries: %n more operator(s) moved so "
                              "that no fused block is split.",
                              nullptr, static_cast<int>(snapped)),
                           8000);
}

EditActions::CutAfterTarget EditActions::cutAfterTarget() const
{
    const cleave::PartitionPlan *plan = m_document->plan();
    CutAfterTarget target;
    if (!plan)
        return target;
    // The operator latest in program order behind the selection, and the shown node holding it.
    std::int32_t bestPosition = -1;
    for (cleave::NodeId shown : m_canvas->selectedNodes()) {
        for (cleave::NodeId n : m_levels->modelNodes({ shown })) {
            if (n.index() >= plan->graph().nodeCount() || !plan->view().contains(n)
                || !plan->view().isAssignable(n))
                continue;
            if (plan->view().position(n) > bestPosition) {
                bestPosition = plan->view().position(n);
                target = { shown, n };
            }
        }
    }
    return target;
}

void EditActions::cutAfterSelection()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    const CutAfterTarget target = cutAfterTarget();
    if (!plan || !target.op.isValid())
        return;
    // At Blocks level a collapsed block is cut after as a whole (--cut-after-block); a single
    // operator, at either level, as --cut-after does.
    int block = -1;
    if (m_levels->level() == LevelView::Level::Blocks
        && m_levels->modelNodes({ target.shown }).size() > 1)
        block = m_document->blockOf(target.op);
    PlanCommand *command = nullptr;
    if (block >= 0) {
        const cleave::FusedBlock &b = m_document->blocks()[static_cast<std::size_t>(block)];
        command
            = new CutAfter(m_document, m_document->sharedBlocks(), static_cast<std::size_t>(block),
                           QString::fromStdString(cleave::shortBlockName(b.name.str())));
    } else {
        command = new CutAfter(m_document, target.op,
                               QString::fromStdString(plan->graph().key(target.op)));
    }
    if (!pushKept(command))
        emit statusMessage(tr("Nothing to cut: everything after it is already in a later "
                              "partition."),
                           6000);
}

bool EditActions::pushKept(QUndoCommand *command)
{
    // QUndoStack::push deletes a command that is obsolete after its redo (PlanCommand marks a
    // refused or empty edit so): the stack's index moves only when it was kept.
    QUndoStack *stack = m_document->undoStack();
    const int index = stack->index();
    stack->push(command);
    return stack->index() != index;
}

std::vector<cleave::NodeId> EditActions::selection() const
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan)
        return {};
    // Only assignable nodes of the plan's function take part in edits (inputs and constants
    // follow their consumers).
    std::vector<cleave::NodeId> nodes;
    for (cleave::NodeId n : m_levels->modelNodes(m_canvas->selectedNodes())) {
        if (n.index() < plan->graph().nodeCount() && plan->view().contains(n)
            && plan->view().isAssignable(n))
            nodes.push_back(n);
    }
    return nodes;
}

std::vector<cleave::PartitionId> EditActions::selectedPartitions() const
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

void EditActions::update()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    const std::vector<cleave::NodeId> nodes = selection();
    const std::size_t partitions = nodes.empty() ? 0 : selectedPartitions().size();
    const bool any = plan && !nodes.empty();
    m_newPartition->setEnabled(any);
    m_isolate->setEnabled(any);
    m_assignMenu->setEnabled(any && plan->partitionCount() > 0);
    m_merge->setEnabled(partitions >= 2);
    m_setTarget->setEnabled(partitions >= 1
                            || (plan && m_partitions->currentPartition().isValid()));
    m_convexClosure->setEnabled(any && !plan->nonConvexWitness(nodes).empty());
    const bool blocks = m_levels->level() == LevelView::Level::Blocks;
    m_cutAfter->setText(blocks ? tr("Cut &After This Block") : tr("Cut &After This Node"));
    m_cutAfter->setEnabled(any && cutAfterTarget().op.isValid());
    m_removeCut->setEnabled(partitions >= 2 || (plan && m_boundary->currentRow() >= 0));
}

void EditActions::showContextMenu(const QPoint &globalPos, const std::vector<QAction *> &extra)
{
    update();
    if (!m_document->plan())
        return;
    QMenu menu(m_parent);
    menu.addAction(m_newPartition);
    menu.addMenu(m_assignMenu);
    menu.addAction(m_isolate);
    menu.addAction(m_merge);
    menu.addAction(m_setTarget);
    if (m_convexClosure->isEnabled()) {
        menu.addSeparator();
        menu.addAction(m_convexClosure);
    }
    menu.addSeparator();
    menu.addAction(m_cutAfter);
    menu.addAction(m_removeCut);
    menu.addSeparator();
    for (QAction *action : extra)
        menu.addAction(action);
    menu.exec(globalPos);
}

void EditActions::rebuildAssignMenu()
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

void EditActions::newPartitionFromSelection()
{
    std::vector<cleave::NodeId> nodes = selection();
    if (!nodes.empty())
        m_document->undoStack()->push(new NewPartitionFromSelection(m_document, std::move(nodes)));
}

void EditActions::assignSelectionTo(cleave::PartitionId partition)
{
    std::vector<cleave::NodeId> nodes = selection();
    if (!nodes.empty())
        m_document->undoStack()->push(
            new AssignNodesToPartition(m_document, std::move(nodes), partition));
}

void EditActions::isolateSelection()
{
    std::vector<cleave::NodeId> nodes = selection();
    if (nodes.empty())
        return;
    if (!m_document->plan()->nonConvexWitness(nodes).empty()) {
        emit statusMessage(tr("The selection is not convex: a path leaves it and comes back. Use "
                              "Edit ▸ Select Convex Closure first."),
                           10000);
        return;
    }
    m_document->undoStack()->push(new IsolateSelection(m_document, std::move(nodes)));
}

void EditActions::mergeSelectedPartitions()
{
    std::vector<cleave::PartitionId> ids = selectedPartitions();
    if (ids.size() >= 2)
        m_document->undoStack()->push(new MergePartitions(m_document, std::move(ids)));
}

void EditActions::setTargetOfSelection()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan)
        return;
    std::vector<cleave::PartitionId> ids = selectedPartitions();
    if (ids.empty() && m_partitions->currentPartition().isValid())
        ids.push_back(m_partitions->currentPartition());
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
        m_parent, tr("Set Target"),
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

void EditActions::selectConvexClosure()
{
    const std::vector<cleave::NodeId> nodes = selection();
    if (nodes.empty())
        return;
    const std::vector<cleave::NodeId> closure = m_document->plan()->convexClosure(nodes);
    m_canvas->selectNodes(m_levels->shownNodes(closure));
    const std::size_t added = closure.size() - nodes.size();
    emit statusMessage(added == 1 ? tr("Selected the convex closure: 1 node added.")
                                  : tr("Selected the convex closure: %1 nodes added.").arg(added),
                       6000);
}

void EditActions::removeCut()
{
    if (!m_document->plan())
        return;
    const std::vector<cleave::PartitionId> ids = selectedPartitions();
    const int row = m_boundary->currentRow();
    const bool boundaryFirst = m_boundary->view()->hasFocus() && row >= 0;
    if (!boundaryFirst && ids.size() >= 2) {
        if (ids.size() == 2)
            m_document->undoStack()->push(new RemoveCut(m_document, ids[0], ids[1]));
        else
            m_document->undoStack()->push(new MergePartitions(m_document, ids));
        return;
    }
    if (row >= 0) {
        const auto [from, to] = m_boundary->model()->partitionsAt(row);
        if (from.isValid() && to.isValid() && from != to)
            m_document->undoStack()->push(new RemoveCut(m_document, from, to));
        return;
    }
    emit statusMessage(
        tr("Select nodes on both sides of a cut, or a boundary tensor, to remove the cut."), 6000);
}

} // namespace cleave::ui
