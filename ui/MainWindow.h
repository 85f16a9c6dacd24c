// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/document/LevelView.h"
#include "ui/document/LoadCard.h"
#include "ui/document/ProjectSession.h"

#include <QMainWindow>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QStackedWidget;
class QTimer;
class QTreeView;

namespace cleave::ui {

class BoundaryDock;
class CompareDock;
class CanvasViewState;
class CanvasWidget;
class DiagnosticsDock;
class Document;
class EditActions;
class LayoutOverlay;
class LevelPlace;
class ExportDialog;
class ModelOutlineModel;
class PartitionsDock;
class PropertiesDock;
class SearchBar;
class SummaryDock;
class BalanceDock;
class WelcomePage;

/// The editor window: menus, docks and their wiring. The canvas in the centre shows the
/// LevelView of the Document; the Partitions, Properties, Boundary tensors, Diagnostics, Summary
/// and Outline docks follow the document; the search bar (Ctrl+F); File (the ProjectSession:
/// open, recent files, save, export), Edit (undo/redo, the EditActions) and View menus; a
/// toolbar; a status bar with the model, its size, the partitions and the validation state.
/// A file dropped on the window is opened.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a model or a project (ProjectSession::openFile()).
    bool openFile(const QString &path) { return m_session->openFile(path); }
    bool saveProject(const QString &path) { return m_session->saveProject(path); }
    bool offerRecovery() { return m_session->offerRecovery(); }

    /// Shows the export dialog (window-modal, not blocking) and returns it.
    ExportDialog *showExportDialog();

    [[nodiscard]] Document *document() const { return m_document; }
    [[nodiscard]] ProjectSession *session() const { return m_session; }
    [[nodiscard]] LevelView *levelView() const { return m_levels; }
    [[nodiscard]] CanvasWidget *canvas() const { return m_canvas; }
    [[nodiscard]] ModelOutlineModel *outlineModel() const { return m_outlineModel; }
    [[nodiscard]] QTreeView *outlineView() const { return m_outlineView; }
    [[nodiscard]] SummaryDock *summaryDock() const { return m_summaryDock; }
    [[nodiscard]] PartitionsDock *partitionsDock() const { return m_partitionsDock; }
    [[nodiscard]] BoundaryDock *boundaryDock() const { return m_boundaryDock; }
    [[nodiscard]] DiagnosticsDock *diagnosticsDock() const { return m_diagnosticsDock; }
    [[nodiscard]] PropertiesDock *propertiesDock() const { return m_propertiesDock; }
    [[nodiscard]] SearchBar *searchBar() const { return m_searchBar; }
    [[nodiscard]] CompareDock *compareDock() const { return m_compareDock; }
    [[nodiscard]] WelcomePage *welcomePage() const { return m_emptyHint; }
    /// The card shown over the window while a model is imported (phase, progress, Cancel).
    [[nodiscard]] LayoutOverlay *loadCard() const { return m_loadCard->overlay(); }

    using Level = LevelView::Level;
    [[nodiscard]] Level level() const { return m_levels->level(); }
    [[nodiscard]] const cleave::BlockGraph *blockGraph() const { return m_levels->blockGraph(); }

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createDocks();
    void createActions();
    void createMenus();
    /// The tool bar: file, undo, tools, levels, edits, search and the function chooser.
    void createToolBar(QAction *open);
    void connectDocks();
    void connectCanvas();
    void showOpenDialog();
    void showAbout();
    void rebuildRecentMenu();
    void onGraphChanged();
    void updateTitle();
    void updateStatus();
    void focusModelNodes(const std::vector<cleave::NodeId> &nodes);

    Document *m_document = nullptr;
    LevelView *m_levels = nullptr;
    ProjectSession *m_session = nullptr;
    CanvasWidget *m_canvas = nullptr;
    CanvasViewState *m_viewState = nullptr;
    EditActions *m_edits = nullptr;
    ModelOutlineModel *m_outlineModel = nullptr;
    QStackedWidget *m_central = nullptr;
    WelcomePage *m_emptyHint = nullptr;
    LevelPlace *m_levelPlace = nullptr; ///< Keeps the user's place across level switches.
    LoadCard *m_loadCard = nullptr; ///< Progress and Cancel while a model is imported.
    QTreeView *m_outlineView = nullptr;
    QDockWidget *m_outlineDock = nullptr;
    SummaryDock *m_summaryDock = nullptr;
    BalanceDock *m_balanceDock = nullptr; // issue 15
    PartitionsDock *m_partitionsDock = nullptr;
    BoundaryDock *m_boundaryDock = nullptr;
    DiagnosticsDock *m_diagnosticsDock = nullptr;
    CompareDock *m_compareDock = nullptr;
    PropertiesDock *m_propertiesDock = nullptr;
    SearchBar *m_searchBar = nullptr;
    QLabel *m_statusModel = nullptr;
    QLabel *m_statusNodes = nullptr;
    QLabel *m_statusPartitions = nullptr;
    QLabel *m_statusValidation = nullptr;
    QMenu *m_recentMenu = nullptr;

    QAction *m_saveAction = nullptr;
    QAction *m_saveAsAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
    QAction *m_selectToolAction = nullptr;
    QAction *m_cutToolAction = nullptr;
    QAction *m_fitAction = nullptr;
    QAction *m_minimapAction = nullptr;
    QAction *m_findAction = nullptr;
    QAction *m_opsLevelAction = nullptr;
    QAction *m_blocksLevelAction = nullptr;
    QAction *m_collapseBlocksAction = nullptr;
};

} // namespace cleave::ui
