// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/BlockGraph.h"
#include "core/graph/Ids.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/project/ProjectFile.h"

#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QStackedWidget;
class QTimer;
class QTreeView;

namespace cleave::ui {

class BoundaryDock;
class CanvasWidget;
class DiagnosticsDock;
class Document;
class ExportDialog;
class ModelOutlineModel;
class PartitionsDock;
class PropertiesDock;
class SearchBar;
class SummaryDock;
class BalanceDock;

/// The editor window: the graph canvas in the centre; the Partitions, Properties, Boundary
/// tensors, Diagnostics, Summary and Outline docks; the search bar (Ctrl+F); File (open models
/// and projects, recent files, save, export), Edit (undo/redo, the plan edits) and View menus;
/// a toolbar with the tools; a status bar with the model, its size, the partitions and the
/// validation state. Plan edits are undo commands on the document's stack. A file dropped on
/// the window is opened. Unsaved work is autosaved every minute to a recovery file.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a model or a project (`.cleave`, or any file whose content is a Cleave project).
    /// Asks about unsaved changes first. On failure shows the diagnostics in an error dialog,
    /// keeps what was open, and returns false.
    bool openFile(const QString &path);
    /// Opens a project: its model, its plan (after asking when the model's checksum changed) and
    /// its view. False (with an error dialog) when anything fails; the document is then untouched.
    bool openProject(const QString &path);
    /// Saves the document as a project at `path` (atomically). False with an error dialog.
    bool saveProject(const QString &path);
    /// Saves to the current project, asking for a path when there is none.
    bool save();
    bool saveAs();

    /// Writes the recovery file now when there are unsaved changes (removes it otherwise).
    void autosave();
    /// Offers the recovery file of a session that did not close cleanly; true when restored.
    bool offerRecovery();
    /// Where unsaved work is autosaved (in QStandardPaths::AppDataLocation).
    [[nodiscard]] static QString recoveryFilePath();

    /// Shows the export dialog (window-modal, not blocking) and returns it.
    ExportDialog *showExportDialog();

    [[nodiscard]] Document *document() const { return m_document; }
    [[nodiscard]] CanvasWidget *canvas() const { return m_canvas; }
    [[nodiscard]] ModelOutlineModel *outlineModel() const { return m_outlineModel; }
    [[nodiscard]] QTreeView *outlineView() const { return m_outlineView; }
    [[nodiscard]] SummaryDock *summaryDock() const { return m_summaryDock; }
    [[nodiscard]] PartitionsDock *partitionsDock() const { return m_partitionsDock; }
    [[nodiscard]] BoundaryDock *boundaryDock() const { return m_boundaryDock; }
    [[nodiscard]] DiagnosticsDock *diagnosticsDock() const { return m_diagnosticsDock; }
    [[nodiscard]] PropertiesDock *propertiesDock() const { return m_propertiesDock; }
    [[nodiscard]] SearchBar *searchBar() const { return m_searchBar; }

    /// The most recently opened files, newest first (at most maxRecentFiles).
    [[nodiscard]] static QStringList recentFiles();
    static constexpr int maxRecentFiles = 10;

    /// What the canvas shows: every operator, or one node per fused block (FuseOps kernels,
    /// expandable in place). Plans, cuts and selections always act on the operators.
    enum class Level { Ops, Blocks };
    void setLevel(Level level);
    [[nodiscard]] Level level() const { return m_level; }
    /// At Blocks level: the block-level graph on the canvas (nullptr at Ops level).
    [[nodiscard]] const cleave::BlockGraph *blockGraph() const { return m_blockGraph.get(); }

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createDocks();
    void createActions();
    void createMenus();
    void connectCanvas();
    void showOpenDialog();
    void showAbout();
    void rebuildRecentMenu();
    void rememberRecentFile(const QString &path);
    void forgetRecentFile(const QString &path);
    void onGraphChanged();
    void onPlanChanged();
    void onLayoutFinished(bool ok, const QString &message);
    void updateTitle();
    void updateStatus();
    void updateEditActions();
    void showContextMenu(const QPoint &globalPos);
    void rebuildAssignMenu();
    bool openModel(const QString &path);
    /// True when it is fine to replace or close the document (saved, discarded, or unchanged).
    bool maybeSave();
    void showError(const QString &title, const QString &text);
    [[nodiscard]] cleave::ProjectViewState viewState() const;
    void applyViewState(const cleave::ProjectViewState &state);

    // Edits on the current selection; each pushes one undo command.
    void newPartitionFromSelection();
    void assignSelectionTo(cleave::PartitionId partition);
    void isolateSelection();
    void mergeSelectedPartitions();
    void setTargetOfSelection();
    void selectConvexClosure();
    void removeCut();
    [[nodiscard]] std::vector<cleave::NodeId> selection() const;
    [[nodiscard]] std::vector<cleave::PartitionId> selectedPartitions() const;

    // The ops / blocks level (MainWindowLevels.cpp).
    void createLevelActions();
    /// Lays out the graph at the current level (blocks recomputed when the graph changed).
    void showGraphAtLevel(bool graphChanged);
    /// Gives the canvas the plan, converted to blocks at Blocks level.
    void showPlanAtLevel();
    void expandBlock(cleave::NodeId shown);
    void collapseAllBlocks();
    /// The model's nodes behind canvas nodes (identity at Ops level).
    [[nodiscard]] std::vector<cleave::NodeId> modelNodes(const std::vector<cleave::NodeId> &shown) const;
    /// The canvas nodes showing model nodes (identity at Ops level).
    [[nodiscard]] std::vector<cleave::NodeId> shownNodes(const std::vector<cleave::NodeId> &model) const;
    /// The canvas edges standing for model edges; edges inside a block have none.
    [[nodiscard]] std::vector<cleave::PlanEdge> shownEdges(const std::vector<cleave::PlanEdge> &model) const;
    void focusModelNodes(const std::vector<cleave::NodeId> &nodes);

    Document *m_document = nullptr;
    CanvasWidget *m_canvas = nullptr;
    ModelOutlineModel *m_outlineModel = nullptr;
    QStackedWidget *m_central = nullptr;
    QLabel *m_emptyHint = nullptr;
    QTreeView *m_outlineView = nullptr;
    QDockWidget *m_outlineDock = nullptr;
    SummaryDock *m_summaryDock = nullptr;
    BalanceDock *m_balanceDock = nullptr; // issue 15
    PartitionsDock *m_partitionsDock = nullptr;
    BoundaryDock *m_boundaryDock = nullptr;
    DiagnosticsDock *m_diagnosticsDock = nullptr;
    PropertiesDock *m_propertiesDock = nullptr;
    SearchBar *m_searchBar = nullptr;
    QLabel *m_statusModel = nullptr;
    QLabel *m_statusNodes = nullptr;
    QLabel *m_statusPartitions = nullptr;
    QLabel *m_statusValidation = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_assignMenu = nullptr;
    QTimer *m_autosaveTimer = nullptr;
    std::optional<cleave::ProjectViewState> m_pendingView;

    QAction *m_saveAction = nullptr;
    QAction *m_saveAsAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
    QAction *m_selectToolAction = nullptr;
    QAction *m_cutToolAction = nullptr;
    QAction *m_fitAction = nullptr;
    QAction *m_findAction = nullptr;
    QAction *m_newPartitionAction = nullptr;
    QAction *m_isolateAction = nullptr;
    QAction *m_mergeAction = nullptr;
    QAction *m_setTargetAction = nullptr;
    QAction *m_convexClosureAction = nullptr;
    QAction *m_removeCutAction = nullptr;
    QAction *m_opsLevelAction = nullptr;
    QAction *m_blocksLevelAction = nullptr;
    QAction *m_collapseBlocksAction = nullptr;

    Level m_level = Level::Ops;
    std::vector<cleave::FusedBlock> m_blocks; ///< Of the model's main function.
    std::vector<std::size_t> m_expanded; ///< Blocks shown as their ops at Blocks level.
    std::unique_ptr<cleave::BlockGraph> m_blockGraph;
    std::optional<cleave::PartitionPlan> m_blockPlan;
    cleave::BoundaryTable m_blockBoundary;
};

} // namespace cleave::ui
