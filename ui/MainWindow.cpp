// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/MainWindow.h"

#include "core/io/Importer.h"
#include "ui/commands/CutAcrossEdges.h"
#include "ui/dialogs/ExportDialog.h"
#include "ui/dialogs/AutoPartitionDialog.h"
#include "ui/docks/BalanceDock.h"
#include "ui/docks/BoundaryDock.h"
#include "ui/docks/DiagnosticsDock.h"
#include "ui/docks/PartitionsDock.h"
#include "ui/docks/PropertiesDock.h"
#include "ui/docks/SearchBar.h"
#include "ui/docks/SummaryDock.h"
#include "ui/document/Document.h"
#include "ui/models/ModelOutlineModel.h"
#include "ui/scene/CanvasWidget.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
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
constexpr int autosaveIntervalMs = 60 * 1000;

QString plural(qsizetype n, const QString &singular, const QString &pluralForm)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : pluralForm);
}

QIcon icon(const char *name)
{
    return QIcon(QStringLiteral(":/cleave/icons/%1.svg").arg(QLatin1String(name)));
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_document(new Document(this))
    , m_canvas(new CanvasWidget)
    , m_outlineModel(new ModelOutlineModel(this))
    , m_central(new QStackedWidget)
    , m_emptyHint(new QLabel)
    , m_outlineView(new QTreeView)
    , m_summaryDock(new SummaryDock(this))
    , m_statusModel(new QLabel)
    , m_statusNodes(new QLabel)
    , m_statusPartitions(new QLabel)
    , m_statusValidation(new QLabel)
    , m_autosaveTimer(new QTimer(this))
{
    initCleaveResources();
    setWindowTitle(tr("Cleave"));
    setWindowIcon(QIcon(QStringLiteral(":/cleave/cleave.svg")));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);

    QStringList formats;
    for (const auto &importer : cleave::importers())
        formats.append(QString::fromStdString(importer->formatName()));
    m_emptyHint->setObjectName(QStringLiteral("emptyHint"));
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setEnabled(false);
    m_emptyHint->setText(
        tr("Open a model or a project with File ▸ Open… (%1) or drop its file here.\n\n"
           "Formats: %2")
            .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText),
                 formats.join(QStringLiteral(", "))));

    m_canvas->setObjectName(QStringLiteral("canvas"));
    m_central->addWidget(m_emptyHint);
    m_central->addWidget(m_canvas);
    setCentralWidget(m_central);

    createDocks();
    createActions();
    createLevelActions();
    createMenus();
    connectCanvas();

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

    connect(m_document, &Document::graphChanged, this, &MainWindow::onGraphChanged);
    connect(m_document, &Document::planChanged, this, &MainWindow::onPlanChanged);
    connect(m_document, &Document::editRefused, this,
            [this](const QString &message) { statusBar()->showMessage(message, 10000); });
    connect(m_document, &Document::projectPathChanged, this, &MainWindow::updateTitle);
    connect(m_document->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);

    m_autosaveTimer->setInterval(autosaveIntervalMs);
    connect(m_autosaveTimer, &QTimer::timeout, this, &MainWindow::autosave);
    m_autosaveTimer->start();

    resize(1440, 900);
    const QSettings settings;
    restoreGeometry(settings.value(geometryKey).toByteArray());
    restoreState(settings.value(stateKey).toByteArray());
    onGraphChanged();
}

MainWindow::~MainWindow()
{
    // Views and the canvas point into the document's plan: let them go before it.
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
    resizeDocks({ m_partitionsDock }, { 480 }, Qt::Horizontal);
    resizeDocks({ m_boundaryDock }, { 210 }, Qt::Vertical);
    resizeDocks({ m_partitionsDock, m_propertiesDock }, { 170, 430 }, Qt::Vertical);

    m_searchBar = new SearchBar(m_document, this);
    addToolBarBreak(Qt::TopToolBarArea);
    addToolBar(Qt::TopToolBarArea, m_searchBar);
    m_searchBar->hide();

    connect(m_partitionsDock, &PartitionsDock::partitionSelected, this,
            [this](cleave::PartitionId id) {
                // At Blocks level the canvas shows a converted plan with its own ids: same order.
                const cleave::PartitionPlan *plan = m_document->plan();
                if (m_level == Level::Blocks && m_blockPlan && plan && id.isValid()) {
                    const int index = plan->indexOf(id);
                    id = index >= 0 && std::size_t(index) < m_blockPlan->partitionCount()
                        ? m_blockPlan->partitions()[std::size_t(index)].id
                        : cleave::PartitionId {};
                }
                m_canvas->highlightPartition(id);
            });
    connect(m_boundaryDock, &BoundaryDock::edgeSelected, this, [this](cleave::PlanEdge edge) {
        if (edge.tensor.isValid() && edge.consumer.isValid()) {
            const std::vector<cleave::PlanEdge> shown = shownEdges({ edge });
            if (!shown.empty())
                m_canvas->highlightEdge(shown.front().tensor, shown.front().consumer);
        }
        updateEditActions();
    });
    connect(m_diagnosticsDock, &DiagnosticsDock::focusRequested, this,
            [this](const std::vector<cleave::NodeId> &nodes) { focusModelNodes(nodes); });
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
    for (QAction *a : { m_selectToolAction, m_cutToolAction })
        a->setCheckable(true);
    m_selectToolAction->setChecked(true);
    connect(m_selectToolAction, &QAction::triggered, this,
            [this] { m_canvas->setTool(CanvasWidget::Tool::Select); });
    connect(m_cutToolAction, &QAction::triggered, this,
            [this] { m_canvas->setTool(CanvasWidget::Tool::Cut); });

    m_fitAction = new QAction(icon("fit"), tr("&Fit to Window"), this);
    m_fitAction->setToolTip(tr("Fit the graph to the window (F)"));
    connect(m_fitAction, &QAction::triggered, m_canvas, &CanvasWidget::fitToView);

    m_findAction = new QAction(icon("search"), tr("&Find Node…"), this);
    m_findAction->setShortcut(QKeySequence::Find);
    connect(m_findAction, &QAction::triggered, m_searchBar, &SearchBar::activate);

    m_newPartitionAction
        = new QAction(icon("partition"), tr("&New Partition from Selection"), this);
    m_newPartitionAction->setShortcut(Qt::Key_P);
    connect(m_newPartitionAction, &QAction::triggered, this,
            &MainWindow::newPartitionFromSelection);
    m_isolateAction = new QAction(icon("isolate"), tr("&Isolate Selection"), this);
    m_isolateAction->setShortcut(Qt::Key_I);
    connect(m_isolateAction, &QAction::triggered, this, &MainWindow::isolateSelection);
    m_mergeAction = new QAction(icon("merge"), tr("&Merge Partitions"), this);
    m_mergeAction->setShortcut(Qt::Key_M);
    connect(m_mergeAction, &QAction::triggered, this, &MainWindow::mergeSelectedPartitions);
    m_setTargetAction = new QAction(tr("Set &Target…"), this);
    m_setTargetAction->setShortcut(Qt::Key_T);
    connect(m_setTargetAction, &QAction::triggered, this, &MainWindow::setTargetOfSelection);
    m_convexClosureAction = new QAction(tr("Select Con&vex Closure"), this);
    connect(m_convexClosureAction, &QAction::triggered, this, &MainWindow::selectConvexClosure);
    m_removeCutAction = new QAction(tr("&Remove Cut"), this);
    m_removeCutAction->setShortcut(QKeySequence::Delete);
    m_removeCutAction->setToolTip(
        tr("Merge the partitions on both sides of the selected boundary tensor or nodes (Del)"));
    connect(m_removeCutAction, &QAction::triggered, this, &MainWindow::removeCut);

    m_assignMenu = new QMenu(tr("&Assign to Partition"), this);
    m_assignMenu->setObjectName(QStringLiteral("assignMenu"));
    connect(m_assignMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildAssignMenu);

    m_selectToolAction->setObjectName(QStringLiteral("selectToolAction"));
    m_cutToolAction->setObjectName(QStringLiteral("cutToolAction"));
    m_newPartitionAction->setObjectName(QStringLiteral("newPartitionAction"));
    m_isolateAction->setObjectName(QStringLiteral("isolateAction"));
    m_mergeAction->setObjectName(QStringLiteral("mergeAction"));
    m_setTargetAction->setObjectName(QStringLiteral("setTargetAction"));
    m_convexClosureAction->setObjectName(QStringLiteral("convexClosureAction"));
    m_removeCutAction->setObjectName(QStringLiteral("removeCutAction"));
    for (QAction *a : { m_selectToolAction, m_cutToolAction, m_newPartitionAction, m_isolateAction,
                        m_mergeAction, m_setTargetAction, m_removeCutAction })
        a->setShortcutContext(Qt::WindowShortcut);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(icon("open"), tr("&Open…"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    // Filled when shown: an action must not be deleted while its own trigger is handled.
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    m_recentMenu->setEnabled(!recentFiles().isEmpty());
    file->addSeparator();
    m_saveAction = file->addAction(icon("save"), tr("&Save Project"), this, &MainWindow::save);
    m_saveAction->setShortcut(QKeySequence::Save);
    m_saveAsAction = file->addAction(tr("Save Project &As…"), this, &MainWindow::saveAs);
    m_saveAsAction->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    m_exportAction
        = file->addAction(icon("export"), tr("&Export…"), this, &MainWindow::showExportDialog);
    m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);
    edit->addSeparator();
    edit->addAction(m_newPartitionAction);
    edit->addMenu(m_assignMenu);
    edit->addAction(m_isolateAction);
    edit->addAction(m_mergeAction);
    edit->addAction(m_setTargetAction);
    edit->addAction(m_removeCutAction);
    edit->addSeparator();
    edit->addAction(m_convexClosureAction);
    edit->addAction(m_findAction);

    QMenu *partition = menuBar()->addMenu(tr("&Partition"));
    QAction *autoPartition = partition->addAction(tr("&Auto-partition…"), this, [this] {
        auto *dialog = new AutoPartitionDialog(m_document, m_balanceDock->settings(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &AutoPartitionDialog::applied, m_balanceDock, &BalanceDock::setSettings);
        dialog->open();
    });
    autoPartition->setObjectName(QStringLiteral("autoPartitionAction"));

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_selectToolAction);
    view->addAction(m_cutToolAction);
    view->addSeparator();
    view->addAction(m_opsLevelAction);
    view->addAction(m_blocksLevelAction);
    view->addAction(m_collapseBlocksAction);
    view->addSeparator();
    view->addAction(m_fitAction);
    view->addSeparator();
    for (QDockWidget *dock :
         std::initializer_list<QDockWidget *> { m_partitionsDock, m_boundaryDock, m_diagnosticsDock,
                                                m_propertiesDock, m_summaryDock, m_outlineDock })
        view->addAction(dock->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *about = help->addAction(tr("&About Cleave"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    QAction *aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);

    QToolBar *toolbar = addToolBar(tr("Tools"));
    toolbar->setObjectName(QStringLiteral("toolsToolBar"));
    toolbar->setMovable(false);
    toolbar->setIconSize(QSize(20, 20));
    toolbar->addAction(open);
    toolbar->addAction(m_saveAction);
    toolbar->addAction(m_exportAction);
    toolbar->addSeparator();
    toolbar->addAction(m_undoAction);
    toolbar->addAction(m_redoAction);
    toolbar->addSeparator();
    toolbar->addAction(m_selectToolAction);
    toolbar->addAction(m_cutToolAction);
    toolbar->addAction(m_fitAction);
    toolbar->addSeparator();
    toolbar->addAction(m_opsLevelAction);
    toolbar->addAction(m_blocksLevelAction);
    toolbar->addSeparator();
    toolbar->addAction(m_newPartitionAction);
    toolbar->addAction(m_isolateAction);
    toolbar->addAction(m_mergeAction);
    toolbar->addSeparator();
    toolbar->addAction(m_findAction);
}

void MainWindow::connectCanvas()
{
    connect(m_canvas, &CanvasWidget::cutRequested, this,
            [this](const std::vector<cleave::PlanEdge> &edges) {
                // At Blocks level a crossed block edge stands for the op edges behind it.
                const std::vector<cleave::PlanEdge> cut = m_level == Level::Blocks && m_blockGraph
                    ? m_blockGraph->originalEdges(*m_document->graph(), edges)
                    : edges;
                if (!cut.empty())
                    m_document->undoStack()->push(new CutAcrossEdges(m_document, cut));
            });
    connect(m_canvas, &CanvasWidget::selectionChanged, this, [this] {
        const std::vector<cleave::NodeId> shown = m_canvas->selectedNodes();
        // A block shows its root op (the last of its nodes) in Properties.
        const std::vector<cleave::NodeId> nodes
            = shown.empty() ? shown : modelNodes({ shown.front() });
        m_propertiesDock->setNode(nodes.empty() ? cleave::NodeId {} : nodes.back());
        updateEditActions();
    });
    connect(m_canvas, &CanvasWidget::nodeActivated, this, [this](cleave::NodeId node) {
        const std::vector<cleave::NodeId> nodes = modelNodes({ node });
        if (m_level == Level::Blocks && nodes.size() > 1) {
            expandBlock(node);
            return;
        }
        m_propertiesDock->setNode(nodes.empty() ? node : nodes.back());
        m_propertiesDock->show();
        m_propertiesDock->raise();
    });
    connect(m_canvas, &CanvasWidget::contextMenuRequested, this, &MainWindow::showContextMenu);
    connect(m_canvas, &CanvasWidget::layoutFinished, this, &MainWindow::onLayoutFinished);
    connect(m_document, &Document::edgesImplied, this,
            [this](const std::vector<cleave::PlanEdge> &edges) { m_canvas->flashEdges(shownEdges(edges)); });
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
    m_outlineModel->setGraph(graph);
    m_summaryDock->setSummary(m_document->summary());
    m_pendingView.reset();
    showGraphAtLevel(true);
    if (!graph) {
        m_central->setCurrentWidget(m_emptyHint);
    } else {
        m_central->setCurrentWidget(m_canvas);
        const QModelIndex main = m_outlineModel->functionIndex(graph->mainFunction());
        m_outlineView->expand(main);
        m_outlineView->setCurrentIndex(main);
    }
    m_propertiesDock->setNode({});
    for (QAction *a : { m_saveAction, m_saveAsAction, m_exportAction, m_findAction, m_fitAction,
                        m_selectToolAction, m_cutToolAction })
        a->setEnabled(graph != nullptr);
    updateTitle();
    updateStatus();
    updateEditActions();
}

void MainWindow::onPlanChanged()
{
    showPlanAtLevel();
    updateStatus();
    updateEditActions();
}

void MainWindow::onLayoutFinished(bool ok, const QString &message)
{
    if (!ok) {
        if (!message.isEmpty())
            statusBar()->showMessage(message, 10000);
        return;
    }
    if (m_pendingView) {
        const cleave::ProjectViewState pending = *m_pendingView;
        m_pendingView.reset();
        applyViewState(pending);
    }
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
