// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/MainWindow.h"

#include "core/analysis/Cost.h"
#include "core/formats/FormatRegistry.h"
#include "core/validation/CutCost.h"
#include "ui/EditActions.h"
#include "ui/canvas/CanvasViewState.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/LevelPlace.h"
#include "ui/canvas/LevelPrefetchStarter.h"
#include "ui/dialogs/AutoPartitionDialog.h"
#include "ui/dialogs/CostTargetsDialog.h"
#include "ui/dialogs/ExportDialog.h"
#include "ui/dialogs/MeasureDialog.h"
#include "ui/dialogs/ShortcutsDialog.h"
#include "ui/docks/BalanceDock.h"
#include "ui/docks/BoundaryDock.h"
#include "ui/docks/CompareDock.h"
#include "ui/docks/DiagnosticsDock.h"
#include "ui/docks/FunctionChooser.h"
#include "ui/docks/PartitionsDock.h"
#include "ui/docks/PropertiesDock.h"
#include "ui/docks/SearchBar.h"
#include "ui/docks/SummaryDock.h"
#include "ui/document/Document.h"
#include "ui/document/LoadCard.h"
#include "ui/models/ModelOutlineModel.h"
#include "ui/widgets/ThemeMenu.h"
#include "ui/widgets/ThemedIcon.h"
#include "ui/widgets/WelcomePage.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>
#include <QTreeView>

#include <algorithm>

// Resources of a static library must be registered by hand (outside any namespace).
static void initCleaveResources()
{
    Q_INIT_RESOURCE(cleave);
}

namespace cleave::ui {

namespace {

const QString geometryKey = QStringLiteral("mainWindow/geometry");
const QString stateKey = QStringLiteral("mainWindow/state");
const QString minimapKey = QStringLiteral("view/minimap");

QString plural(qsizetype n, const QString &singular, const QString &pluralForm)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : pluralForm);
}

QIcon icon(const char *name)
{
    return themedIcon(name);
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_document(new Document(this))
    , m_levels(new LevelView(m_document, this))
    , m_session(new ProjectSession(m_document, this, this))
    , m_canvas(new CanvasWidget)
    , m_outlineModel(new ModelOutlineModel(this))
    , m_central(new QStackedWidget)
    , m_outlineView(new QTreeView)
    , m_summaryDock(new SummaryDock(this))
    , m_statusModel(new QLabel)
    , m_statusNodes(new QLabel)
    , m_statusPartitions(new QLabel)
    , m_statusValidation(new QLabel)
{
    initCleaveResources();
    setWindowTitle(tr("Cleave"));
    setWindowIcon(QIcon(QStringLiteral(":/cleave/cleave.svg")));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);

    QStringList formats;
    for (const auto &importer : cleave::importers())
        formats.append(QString::fromStdString(importer->formatName()));
    m_emptyHint = new WelcomePage(formats);
    connect(m_emptyHint, &WelcomePage::openRequested, this, &MainWindow::openFile);

    m_canvas->setObjectName(QStringLiteral("canvas"));
    m_canvas->observe(m_levels);
    m_viewState = new CanvasViewState(m_canvas, m_levels, this);
    m_levelPlace = new LevelPlace(m_canvas, m_levels, this);
    new LevelPrefetchStarter(m_canvas, m_levels, this); // the other level, in the background
    m_session->setViewStateProvider([this] { return m_viewState->capture(); });
    m_central->addWidget(m_emptyHint);
    m_central->addWidget(m_canvas);
    setCentralWidget(m_central);

    createDocks();
    createActions();
    createMenus();
    m_emptyHint->setGestureActions(m_cutToolAction, m_selectToolAction, m_exportAction);
    connectDocks();
    connectCanvas();
    m_loadCard = new LoadCard(m_session, m_central, this);

    for (QLabel *label : { m_statusModel, m_statusNodes, m_statusPartitions, m_statusValidation })
        label->setContentsMargins(6, 0, 6, 0);
    m_statusModel->setObjectName(QStringLiteral("statusModel"));
    m_statusNodes->setObjectName(QStringLiteral("statusNodes"));
    m_statusPartitions->setObjectName(QStringLiteral("statusPartitions"));
    m_statusValidation->setObjectName(QStringLiteral("statusValidation"));
    statusBar()->addPermanentWidget(m_statusModel);
    statusBar()->addPermanentWidget(m_statusNodes);
    statusBar()->addPermanentWidget(m_statusPartitions);
    statusBar()->addPermanentWidget(m_statusValidation);

    auto message
        = [this](const QString &text, int timeout) { statusBar()->showMessage(text, timeout); };
    connect(m_document, &Document::graphChanged, this, &MainWindow::onGraphChanged);
    connect(m_document, &Document::blocksChanged, this, [this] { // fusion options, function
        m_summaryDock->setSummary(m_document->summary(), m_document->blocks().size());
    });
    connect(m_document, &Document::planChanged, this, [this] {
        updateStatus();
        m_edits->update();
    });
    connect(m_document, &Document::editRefused, this,
            [message](const QString &text) { message(text, 10000); });
    connect(m_document, &Document::projectPathChanged, this, &MainWindow::updateTitle);
    connect(m_document->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    connect(m_session, &ProjectSession::statusMessage, this, message);
    connect(m_session, &ProjectSession::viewStateLoaded, m_viewState, &CanvasViewState::restore);
    connect(m_session, &ProjectSession::recentFilesChanged, this,
            [this] { m_recentMenu->setEnabled(!ProjectSession::recentFiles().isEmpty()); });
    connect(m_levels, &LevelView::notice, this,
            [message](const QString &text) { message(text, 15000); });
    connect(m_edits, &EditActions::statusMessage, this, message);

    // First run: 1440 x 900, or 90 % of a smaller screen; later runs restore what the user left.
    QSize size(1440, 900);
    if (const QScreen *screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.9);
    resize(size);
    const QSettings settings;
    restoreGeometry(settings.value(geometryKey).toByteArray());
    restoreState(settings.value(stateKey).toByteArray());
    onGraphChanged();
}

MainWindow::~MainWindow()
{
    // The canvas points into the document's plan and the level view: let it go before them.
    m_canvas->observe(nullptr);
    m_canvas->setPlan(nullptr, nullptr);
    m_canvas->setGraph(nullptr, {}, {});
}

void MainWindow::createDocks()
{
    m_partitionsDock = new PartitionsDock(m_document, this);
    m_boundaryDock = new BoundaryDock(m_document, this);
    m_diagnosticsDock = new DiagnosticsDock(m_document, this);
    m_propertiesDock = new PropertiesDock(m_document, this);
    m_outlineDock = new QDockWidget(tr("Outline"), this);
    m_outlineDock->setObjectName(QStringLiteral("outlineDock"));

    m_outlineView->setObjectName(QStringLiteral("modelOutline"));
    m_outlineView->setAccessibleName(tr("Model outline"));
    m_outlineView->setModel(m_outlineModel);
    m_outlineView->setUniformRowHeights(true);
    m_outlineView->setAlternatingRowColors(true);
    m_outlineView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_outlineView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_outlineView->header()->resizeSection(ModelOutlineModel::IdColumn, 160);
    m_outlineView->header()->resizeSection(ModelOutlineModel::KindColumn, 200);
    m_outlineDock->setWidget(m_outlineView);

    addDockWidget(Qt::RightDockWidgetArea, m_partitionsDock);
    addDockWidget(Qt::RightDockWidgetArea, m_propertiesDock);
    tabifyDockWidget(m_propertiesDock, m_summaryDock);
    tabifyDockWidget(m_summaryDock, m_outlineDock);
    m_balanceDock = new BalanceDock(m_document, this);
    tabifyDockWidget(m_outlineDock, m_balanceDock);
    m_propertiesDock->raise();
    addDockWidget(Qt::BottomDockWidgetArea, m_boundaryDock);
    splitDockWidget(m_boundaryDock, m_diagnosticsDock, Qt::Horizontal);
    m_compareDock = new CompareDock(m_document, m_levels, m_canvas, this);
    tabifyDockWidget(m_diagnosticsDock, m_compareDock);
    m_compareDock->hide();
    resizeDocks({ m_partitionsDock }, { 480 }, Qt::Horizontal);
    resizeDocks({ m_boundaryDock }, { 210 }, Qt::Vertical);
    resizeDocks({ m_partitionsDock, m_propertiesDock }, { 170, 430 }, Qt::Vertical);

    m_searchBar = new SearchBar(m_document, this);
    addToolBarBreak(Qt::TopToolBarArea);
    addToolBar(Qt::TopToolBarArea, m_searchBar);
    m_searchBar->hide();
}

void MainWindow::connectDocks()
{
    connect(m_partitionsDock, &PartitionsDock::partitionSelected, this,
            [this](cleave::PartitionId id) {
                m_canvas->highlightPartition(m_levels->shownPartition(id));
            });
    connect(m_boundaryDock, &BoundaryDock::edgeSelected, this, [this](cleave::EdgeRef edge) {
        if (edge.tensor.isValid() && edge.consumer.isValid()) {
            const std::vector<cleave::EdgeRef> shown = m_levels->shownEdges({ edge });
            if (!shown.empty())
                m_canvas->highlightEdge(shown.front().tensor, shown.front().consumer);
        }
        m_edits->update();
    });
    connect(m_diagnosticsDock, &DiagnosticsDock::focusRequested, this,
            &MainWindow::focusModelNodes);
    connect(m_compareDock, &CompareDock::focusRequested, this, &MainWindow::focusModelNodes);
    connect(m_searchBar, &SearchBar::hitActivated, this,
            [this](cleave::NodeId node) { focusModelNodes({ node }); });
}

void MainWindow::createActions()
{
    QUndoStack *stack = m_document->undoStack();
    m_undoAction = stack->createUndoAction(this, tr("&Undo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setIcon(icon("undo"));
    m_redoAction = stack->createRedoAction(this, tr("&Redo"));
    m_redoAction->setShortcuts(
        { QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y) });
    m_redoAction->setIcon(icon("redo"));

    auto *tools = new QActionGroup(this);
    m_selectToolAction = new QAction(icon("select"), tr("&Select Tool"), tools);
    m_selectToolAction->setShortcut(Qt::Key_V);
    m_selectToolAction->setToolTip(tr("Select (V): click, Shift/Ctrl-click, rubber band"));
    m_cutToolAction = new QAction(icon("cut"), tr("&Cut Tool"), tools);
    m_cutToolAction->setShortcut(Qt::Key_C);
    m_cutToolAction->setToolTip(tr("Cut (C): drag a stroke across the edges to cut"));
    m_selectToolAction->setObjectName(QStringLiteral("selectToolAction"));
    m_cutToolAction->setObjectName(QStringLiteral("cutToolAction"));
    for (QAction *a : { m_selectToolAction, m_cutToolAction }) {
        a->setCheckable(true);
        a->setShortcutContext(Qt::WindowShortcut);
    }
    m_selectToolAction->setChecked(true);
    connect(m_selectToolAction, &QAction::triggered, this,
            [this] { m_canvas->setTool(CanvasWidget::Tool::Select); });
    connect(m_cutToolAction, &QAction::triggered, this,
            [this] { m_canvas->setTool(CanvasWidget::Tool::Cut); });
    connect(m_viewState, &CanvasViewState::toolRestored, this, [this](CanvasWidget::Tool tool) {
        (tool == CanvasWidget::Tool::Cut ? m_cutToolAction : m_selectToolAction)->trigger();
    });

    m_fitAction = new QAction(icon("fit"), tr("&Fit to Window"), this);
    m_fitAction->setObjectName(QStringLiteral("fitAction"));
    m_fitAction->setShortcut(Qt::Key_F);
    m_fitAction->setShortcutContext(Qt::WindowShortcut);
    m_fitAction->setToolTip(tr("Fit the graph to the window (F)"));
    connect(m_fitAction, &QAction::triggered, m_canvas, &CanvasWidget::fitToView);

    m_minimapAction = new QAction(tr("Show &Minimap"), this);
    m_minimapAction->setObjectName(QStringLiteral("minimapAction"));
    m_minimapAction->setCheckable(true);
    m_minimapAction->setChecked(QSettings().value(minimapKey, true).toBool());
    m_canvas->setMinimapEnabled(m_minimapAction->isChecked());
    connect(m_minimapAction, &QAction::toggled, this, [this](bool on) {
        m_canvas->setMinimapEnabled(on);
        QSettings().setValue(minimapKey, on);
    });

    m_findAction = new QAction(icon("search"), tr("&Find Node…"), this);
    m_findAction->setShortcut(QKeySequence::Find);
    connect(m_findAction, &QAction::triggered, m_searchBar, &SearchBar::activate);

    auto *levels = new QActionGroup(this);
    m_opsLevelAction = new QAction(tr("&Operators"), levels);
    m_opsLevelAction->setObjectName(QStringLiteral("opsLevelAction"));
    m_opsLevelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    m_opsLevelAction->setToolTip(tr("Show every operator (Ctrl+1)"));
    m_blocksLevelAction = new QAction(tr("Fused &Blocks"), levels);
    m_blocksLevelAction->setObjectName(QStringLiteral("blocksLevelAction"));
    m_blocksLevelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    m_blocksLevelAction->setToolTip(tr("Show one node per fused kernel, as TVM's FuseOps groups "
                                       "them; double-click a block to expand it (Ctrl+2)"));
    for (QAction *a : { m_opsLevelAction, m_blocksLevelAction })
        a->setCheckable(true);
    m_opsLevelAction->setChecked(true);
    m_collapseBlocksAction = new QAction(tr("&Collapse All Blocks"), this);
    m_collapseBlocksAction->setObjectName(QStringLiteral("collapseBlocksAction"));
    m_collapseBlocksAction->setEnabled(false);
    connect(m_opsLevelAction, &QAction::triggered, this,
            [this] { m_levelPlace->switchTo(Level::Ops); });
    connect(m_blocksLevelAction, &QAction::triggered, this,
            [this] { m_levelPlace->switchTo(Level::Blocks); });
    connect(m_collapseBlocksAction, &QAction::triggered, m_levels, &LevelView::collapseAllBlocks);
    connect(m_levels, &LevelView::levelChanged, this, [this](Level level) {
        (level == Level::Ops ? m_opsLevelAction : m_blocksLevelAction)->setChecked(true);
        m_collapseBlocksAction->setEnabled(level == Level::Blocks);
    });

    m_edits
        = new EditActions(m_document, m_levels, m_canvas, m_partitionsDock, m_boundaryDock, this);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(icon("open"), tr("&Open…"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    // Filled when shown: an action must not be deleted while its own trigger is handled.
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    m_recentMenu->setEnabled(!ProjectSession::recentFiles().isEmpty());
    file->addSeparator();
    m_saveAction
        = file->addAction(icon("save"), tr("&Save Project"), m_session, &ProjectSession::save);
    m_saveAction->setShortcut(QKeySequence::Save);
    m_saveAsAction = file->addAction(tr("Save Project &As…"), m_session, &ProjectSession::saveAs);
    m_saveAsAction->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    m_exportAction
        = file->addAction(icon("export"), tr("&Export…"), this, &MainWindow::showExportDialog);
    m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addAction(m_compareDock->compareAction());
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    // Ctrl+Q where the platform binds nothing to Quit (its standard key bindings vary).
    quit->setShortcuts(QKeySequence::keyBindings(QKeySequence::Quit).isEmpty()
                           ? QList<QKeySequence> { QKeySequence(Qt::CTRL | Qt::Key_Q) }
                           : QKeySequence::keyBindings(QKeySequence::Quit));
    quit->setMenuRole(QAction::QuitRole);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);
    edit->addSeparator();
    m_edits->addPlanEdits(edit);
    edit->addAction(m_findAction);

    QMenu *model = menuBar()->addMenu(tr("&Model"));
    model
        ->addAction(tr("&Cost && Targets…"), this,
                    [this] { CostTargetsDialog::showFor(m_document, this); })
        ->setObjectName(QStringLiteral("costTargetsAction"));
    QAction *measure = model->addAction(tr("&Measure on This Machine…"), this, [this] {
        auto *dialog = new MeasureDialog(m_document, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    measure->setObjectName(QStringLiteral("measureAction"));
    measure->setToolTip(tr("Run an ONNX model in ONNX Runtime with its profiler and use every "
                           "node's measured time as its cost"));
    measure->setEnabled(false);
    connect(m_document, &Document::graphChanged, measure, [this, measure] {
        measure->setEnabled(m_document->graph() && cleave::canProfile(*m_document->graph()));
    });

    QMenu *partition = menuBar()->addMenu(tr("&Partition"));
    QAction *autoPartition = partition->addAction(tr("&Auto-partition…"), this, [this] {
        auto *dialog = new AutoPartitionDialog(m_document, m_balanceDock->settings(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &AutoPartitionDialog::applied, m_balanceDock, &BalanceDock::setSettings);
        dialog->open();
    });
    autoPartition->setObjectName(QStringLiteral("autoPartitionAction"));
    // The plan edits live here too, where a user looking for them goes first (Edit keeps them
    // beside Undo).
    partition->addSeparator();
    m_edits->addPlanEdits(partition);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addActions({ m_selectToolAction, m_cutToolAction });
    view->addSeparator();
    view->addActions({ m_opsLevelAction, m_blocksLevelAction, m_collapseBlocksAction });
    view->addSeparator();
    view->addActions({ m_fitAction, m_minimapAction });
    view->addMenu(new ThemeMenu(this));
    view->addSeparator();
    for (QDockWidget *dock : std::initializer_list<QDockWidget *> {
             m_partitionsDock, m_boundaryDock, m_diagnosticsDock, m_propertiesDock, m_summaryDock,
             m_outlineDock, m_balanceDock, m_compareDock })
        view->addAction(dock->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *keys = help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        auto *dialog = new ShortcutsDialog(menuBar(), actions(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    keys->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    keys->setShortcuts(
        { QKeySequence(Qt::Key_Question), QKeySequence(QKeySequence::HelpContents) });
    // The samples of the first-run card, reachable after the card was closed.
    QMenu *samples = help->addMenu(tr("Open &Sample"));
    samples->setObjectName(QStringLiteral("samplesMenu"));
    for (const QString &file : WelcomePage::sampleFiles()) {
        samples->addAction(QFileInfo(file).fileName(), this, [this, file] { openFile(file); })
            ->setObjectName(QStringLiteral("sample:%1").arg(QFileInfo(file).fileName()));
    }
    samples->setEnabled(!samples->isEmpty());
    help->addSeparator();
    QAction *about = help->addAction(tr("&About Cleave"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    QAction *aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);
    createToolBar(open);
}

void MainWindow::createToolBar(QAction *open)
{
    QToolBar *toolbar = addToolBar(tr("Tools"));
    toolbar->setObjectName(QStringLiteral("toolsToolBar"));
    toolbar->setMovable(false);
    toolbar->setIconSize(QSize(20, 20));
    toolbar->addActions({ open, m_saveAction, m_exportAction });
    toolbar->addSeparator();
    toolbar->addActions({ m_undoAction, m_redoAction });
    toolbar->addSeparator();
    toolbar->addActions({ m_selectToolAction, m_cutToolAction, m_fitAction });
    toolbar->addSeparator();
    toolbar->addActions({ m_opsLevelAction, m_blocksLevelAction });
    toolbar->addSeparator();
    toolbar->addActions(
        { m_edits->newPartitionAction(), m_edits->isolateAction(), m_edits->mergeAction() });
    toolbar->addSeparator();
    toolbar->addAction(m_findAction);
    auto *functions = new FunctionChooser(m_document); // shown for modules with several
    QAction *chooseFunction = toolbar->addWidget(functions);
    chooseFunction->setVisible(functions->hasChoice());
    connect(functions, &FunctionChooser::availabilityChanged, chooseFunction, &QAction::setVisible);
    // Every toolbar button says what it does and its key.
    for (QAction *action : toolbar->actions()) {
        const QString key = action->shortcut().toString(QKeySequence::NativeText);
        QString tip = action->toolTip();
        if (!key.isEmpty() && !tip.contains(key))
            tip += QStringLiteral(" (%1)").arg(key);
        action->setToolTip(tip);
    }
}

void MainWindow::connectCanvas()
{
    connect(m_canvas, &CanvasWidget::selectionChanged, this, [this] {
        const std::vector<cleave::NodeId> shown = m_canvas->selectedNodes();
        if (shown.size() > 1) {
            // Several shown nodes (blocks stand for their ops): a summary of their ops.
            m_propertiesDock->setNodes(m_levels->modelNodes(shown));
        } else {
            // A block shows its root op (the last of its nodes) in Properties.
            const std::vector<cleave::NodeId> nodes
                = shown.empty() ? shown : m_levels->modelNodes({ shown.front() });
            m_propertiesDock->setNode(nodes.empty() ? cleave::NodeId {} : nodes.back());
        }
        m_edits->update();
    });
    connect(m_canvas, &CanvasWidget::nodeActivated, this, [this](cleave::NodeId node) {
        if (m_levels->expandBlock(node))
            return;
        const std::vector<cleave::NodeId> nodes = m_levels->modelNodes({ node });
        m_propertiesDock->setNode(nodes.empty() ? node : nodes.back());
        m_propertiesDock->show();
        m_propertiesDock->raise();
    });
    connect(m_canvas, &CanvasWidget::contextMenuRequested, this, [this](const QPoint &pos) {
        m_edits->showContextMenu(pos, { m_undoAction, m_redoAction });
    });
    connect(m_canvas, &CanvasWidget::layoutFinished, this, [this](bool ok, const QString &text) {
        if (!ok && !text.isEmpty())
            statusBar()->showMessage(text, 10000);
    });
    connect(m_document, &Document::edgesImplied, this,
            [this](const std::vector<cleave::EdgeRef> &edges) {
                m_canvas->flashEdges(m_levels->shownEdges(edges));
            });
}

void MainWindow::focusModelNodes(const std::vector<cleave::NodeId> &nodes)
{
    const std::vector<cleave::NodeId> shown = m_levels->shownNodes(nodes);
    if (shown.empty())
        return;
    m_canvas->selectNodes(shown);
    m_canvas->centerOnNode(shown.front());
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Cleave"),
                       tr("<h3>Cleave %1</h3>"
                          "<p>The partition editor for deep-learning computation graphs: open a "
                          "TVM model, cut it into pipeline stages, check the boundaries, "
                          "export the partitions.</p>"
                          "<p>Built with Qt %2.</p>")
                           .arg(QStringLiteral(CLEAVE_VERSION), QString::fromUtf8(qVersion())));
}

void MainWindow::onGraphChanged()
{
    const cleave::Graph *graph = m_document->graph();
    m_viewState->cancel();
    m_outlineModel->setGraph(graph);
    m_summaryDock->setSummary(m_document->summary(), graph ? m_document->blocks().size() : 0);
    if (!graph) {
        m_central->setCurrentWidget(m_emptyHint);
    } else {
        m_central->setCurrentWidget(m_canvas);
        const QModelIndex main = m_outlineModel->functionIndex(graph->mainFunction());
        m_outlineView->expand(main);
        m_outlineView->setCurrentIndex(main);
    }
    m_propertiesDock->setNode({});
    for (QAction *a :
         { m_saveAction, m_saveAsAction, m_exportAction, m_findAction, m_fitAction,
           m_selectToolAction, m_cutToolAction, m_opsLevelAction, m_blocksLevelAction })
        a->setEnabled(graph != nullptr);
    updateTitle();
    updateStatus();
    m_edits->update();
}
void MainWindow::updateTitle()
{
    if (!m_document->hasGraph()) {
        setWindowTitle(tr("Cleave"));
        setWindowModified(false);
        return;
    }
    const QString name = m_document->projectPath().isEmpty()
        ? m_document->fileName()
        : QFileInfo(m_document->projectPath()).fileName();
    setWindowTitle(tr("%1[*] — Cleave").arg(name));
    setWindowModified(m_document->isModified());
}

void MainWindow::updateStatus()
{
    const cleave::Graph *graph = m_document->graph();
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!graph || !plan) {
        for (QLabel *label :
             { m_statusModel, m_statusNodes, m_statusPartitions, m_statusValidation })
            label->clear();
        return;
    }
    m_statusModel->setText(m_document->fileName());
    m_statusModel->setToolTip(QDir::toNativeSeparators(m_document->filePath()));
    // What the canvas shows: the partitioned function.
    const cleave::Function &function = graph->function(plan->function());
    const auto ops
        = std::count_if(function.nodes.begin(), function.nodes.end(),
                        [graph](cleave::NodeId n) { return graph->node(n).isOperator(); });
    m_statusNodes->setText(QStringLiteral("%1 · %2").arg(
        plural(static_cast<qsizetype>(ops), tr("op"), tr("ops")),
        plural(static_cast<qsizetype>(function.nodes.size()), tr("node"), tr("nodes"))));
    m_statusPartitions->setText(
        plural(static_cast<qsizetype>(plan->partitionCount()), tr("partition"), tr("partitions")));
    const int errors = m_document->errorCount();
    const int warnings = m_document->warningCount();
    // A drawn plan whose implied cuts move more than ten times what the user cut is not shown
    // as valid: its cost is.
    const cleave::CutCost cut = cleave::cutCost(*plan, m_document->boundary());
    if (errors == 0 && cut.impliedDominates()) {
        m_statusValidation->setText(
            tr("⚠ implied cuts move %1 (%2 tensors), the cut line %3")
                .arg(QString::fromStdString(cleave::humanBytes(cut.impliedBytes)))
                .arg(cut.impliedTensors)
                .arg(QString::fromStdString(cleave::humanBytes(cut.crossedBytes))));
        m_statusValidation->setStyleSheet(QStringLiteral("color: #9a6700;"));
        return;
    }
    if (errors == 0 && warnings == 0)
        m_statusValidation->setText(tr("✓ valid"));
    else if (errors == 0)
        m_statusValidation->setText(
            tr("✓ valid, %1").arg(plural(warnings, tr("warning"), tr("warnings"))));
    else
        m_statusValidation->setText(tr("✗ %1, %2")
                                        .arg(plural(errors, tr("error"), tr("errors")),
                                             plural(warnings, tr("warning"), tr("warnings"))));
    m_statusValidation->setStyleSheet(errors > 0 ? QStringLiteral("color: #b3261e;") : QString());
}

} // namespace cleave::ui
