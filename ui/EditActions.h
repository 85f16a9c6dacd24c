// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QObject>
#include <QString>

#include <vector>

class QAction;
class QUndoCommand;
class QMenu;
class QPoint;
class QWidget;

namespace cleave::ui {

class BoundaryDock;
class CanvasWidget;
class Document;
class LevelView;
class PartitionsDock;

/// The Edit menu's plan edits on the canvas selection (new partition, assign, isolate, merge,
/// set target, convex closure, remove cut) as actions, each pushing one undo command, and the
/// canvas context menu. The selection is read at the level shown and translated to operators.
/// Actions are enabled when their edit applies to the current selection.
class EditActions : public QObject
{
    Q_OBJECT

public:
    EditActions(Document *document, LevelView *levels, CanvasWidget *canvas,
                PartitionsDock *partitions, BoundaryDock *boundary, QWidget *parent);

    [[nodiscard]] QAction *newPartitionAction() const { return m_newPartition; }
    [[nodiscard]] QAction *isolateAction() const { return m_isolate; }
    [[nodiscard]] QAction *mergeAction() const { return m_merge; }
    [[nodiscard]] QAction *setTargetAction() const { return m_setTarget; }
    [[nodiscard]] QAction *convexClosureAction() const { return m_convexClosure; }
    [[nodiscard]] QAction *removeCutAction() const { return m_removeCut; }
    /// *Cut After This Node* (Ops level) or *Cut After This Block* (Fused Blocks level): the
    /// cut `--cut-after` / `--cut-after-block` makes after the selected node or block.
    [[nodiscard]] QAction *cutAfterAction() const { return m_cutAfter; }
    [[nodiscard]] QMenu *assignMenu() const { return m_assignMenu; }
    /// Adds the plan edits to `menu`: new, assign, isolate, merge, set target, remove cut, then
    /// the convex closure (the Edit and Partition menus hold the same actions).
    void addPlanEdits(QMenu *menu) const;

    /// Enables the actions for the current selection.
    void update();
    /// The context menu over the canvas, with `extra` (undo, redo) at the end.
    void showContextMenu(const QPoint &globalPos, const std::vector<QAction *> &extra);
    /// The assignable operators behind the canvas selection.
    [[nodiscard]] std::vector<cleave::NodeId> selection() const;

signals:
    void statusMessage(const QString &text, int timeoutMs);

private:
    void rebuildAssignMenu();
    void newPartitionFromSelection();
    void assignSelectionTo(cleave::PartitionId partition);
    void isolateSelection();
    void mergeSelectedPartitions();
    void setTargetOfSelection();
    void selectConvexClosure();
    void removeCut();
    void cutAfterSelection();
    /// Pushes `command` on the document's undo stack; false when the stack dropped it (an
    /// obsolete command, deleted by the push: it must not be read afterwards).
    bool pushKept(QUndoCommand *command);
    /// What Cut After acts on: the operator of the selection latest in program order and the
    /// shown node (itself, or its block) holding it; invalid ids when the selection holds no
    /// operator.
    struct CutAfterTarget
    {
        cleave::NodeId shown;
        cleave::NodeId op;
    };
    [[nodiscard]] CutAfterTarget cutAfterTarget() const;
    /// A cut stroke drawn on the canvas (`shownEdges`: the drawn edges it crossed) becomes one
    /// undoable CutAcrossEdges command on the model's edges behind them.
    void cutAcrossEdges(const std::vector<cleave::EdgeRef> &shownEdges);
    [[nodiscard]] std::vector<cleave::PartitionId> selectedPartitions() const;

    Document *m_document;
    LevelView *m_levels;
    CanvasWidget *m_canvas;
    PartitionsDock *m_partitions;
    BoundaryDock *m_boundary;
    QWidget *m_parent;
    QAction *m_newPartition;
    QAction *m_isolate;
    QAction *m_merge;
    QAction *m_setTarget;
    QAction *m_convexClosure;
    QAction *m_removeCut;
    QAction *m_cutAfter;
    QMenu *m_assignMenu;
};

} // namespace cleave::ui
