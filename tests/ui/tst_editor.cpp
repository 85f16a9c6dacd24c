// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The editor window driven like a user, on the real widgets: open ResNet-18, cut with a mouse
// stroke, read the docks, undo/redo with the keyboard, rubber-band select and isolate, search,
// save and reopen a project, export and verify, recovery after a crash, unsaved-changes prompts.
#include "CanvasStroke.h"
#include "TestSupport.h"
#include "core/formats/Exporter.h"
#include "core/partition/PlanFile.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/dialogs/ExportDialog.h"
#include "ui/docks/BoundaryDock.h"
#include "ui/docks/DiagnosticsDock.h"
#include "ui/docks/PartitionsDock.h"
#include "ui/docks/PropertiesDock.h"
#include "ui/docks/SearchBar.h"
#include "ui/document/Document.h"
#include "ui/models/BoundaryTensorModel.h"
#include "ui/models/DiagnosticListModel.h"
#include "ui/models/NodePropertiesModel.h"
#include "ui/models/PartitionListModel.h"

#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <memory>

using namespace cleave::ui;
using cleave::NodeId;

namespace {

const QString resnet = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"));

// Answers the next message box by clicking the button whose text contains `button` (or the
// standard button), and keeps its text.
class MessageBoxAnswer : public QObject
{
public:
    explicit MessageBoxAnswer(QString button)
        : m_button(std::move(button))
    {
        auto *timer = new QTimer(this);
        connect(timer, &QTimer::timeout, this, [this, timer] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box)
                return;
            m_text = box->text();
            for (QAbstractButton *b : box->buttons()) {
                if (b->text().remove(QLatin1Char('&')).contains(m_button)) {
                    timer->stop();
                    b->click();
                    return;
                }
            }
            timer->stop();
            box->reject();
        });
        timer->start(10);
    }
    [[nodiscard]] const QString &text() const { return m_text; }

private:
    QString m_button;
    QString m_text;
};

NodeId key(const MainWindow &w, const char *name)
{
    return cleave::test::node(*w.document()->graph(), name);
}

QString planJson(const MainWindow &w)
{
    return QString::fromStdString(cleave::planToJson(*w.document()->plan()).dump());
}

QString statusText(const MainWindow &w)
{
    QStringList parts;
    for (const char *name :
         { "statusModel", "statusNodes", "statusPartitions", "statusValidation" })
        parts.append(w.findChild<QLabel *>(QString::fromLatin1(name))->text());
    return parts.join(QStringLiteral(" | "));
}

} // namespace

class TestEditor : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cutUndoIsolateSaveExport();
    void contextActionsAndDelete();
    void badgeClickThenDeleteRemovesCut();
    void searchCyclesThroughHits();
    void blocksLevelCutsAndExpands();
    void cutAfterFromContextMenu();
    void blocksStrokeSnapsToBlocks();
    void everySampleOpensCutsAndExports_data();
    void everySampleOpensCutsAndExports();
    void exportRefusesInvalidPlan();
    void projectErrorsKeepDocument();
    void changedModelAsksBeforeApplying();
    void unsavedChangesPrompt();
    void autosaveAndRecovery();
    void exportRunsInTvm();

private:
    // Opens `path` in `w`, shown and active, and waits for the layout.
    void openAndWait(MainWindow &w, const QString &path);
    // Drags the cut tool across the edge `from -> to` (a short stroke through a point of it).
    void strokeAcross(MainWindow &w, NodeId from, NodeId to);
    // Right-clicks `shown` on the canvas and clicks the context menu's action `name`; returns
    // the action's text as the menu showed it (empty when the menu or action was missing).
    QString contextAction(MainWindow &w, NodeId shown, const char *name);
};

void TestEditor::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_editor"));
}

void TestEditor::init()
{
    QSettings().clear();
    QDir(ProjectSession::recoveryDirectory()).removeRecursively();
}

void TestEditor::openAndWait(MainWindow &w, const QString &path)
{
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
}

void TestEditor::strokeAcross(MainWindow &w, NodeId from, NodeId to)
{
    // Across the edge, short enough to miss the skip connection beside the main path.
    QVERIFY2(cleave::test::strokeAcrossEdge(w.canvas(), from, to), "the edge is not on screen");
}

void TestEditor::cutUndoIsolateSaveExport()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow w;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (QAbstractItemModel *model : std::initializer_list<QAbstractItemModel *> {
             w.partitionsDock()->model(), w.boundaryDock()->model(),
             w.boundaryDock()->sortedModel(), w.diagnosticsDock()->model(),
             w.propertiesDock()->model() })
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            model, QAbstractItemModelTester::FailureReportingMode::QtTest));
    openAndWait(w, resnet);
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(1));
    QCOMPARE(statusText(w),
             QStringLiteral("resnet18.relay | 71 ops · 194 nodes | 1 partition | ✓ valid"));

    // C switches to the cut tool; the stroke crosses %13 -> %14, the edge after the first
    // residual add's relu, whose other consumer (%21, the residual add) is cut implicitly.
    QTest::keyClick(&w, Qt::Key_C);
    QCOMPARE(w.canvas()->tool(), CanvasWidget::Tool::Cut);
    // A stroke in the empty corner of the canvas crosses nothing: the plan stays, and the status
    // bar says why.
    QWidget *canvasViewport = w.canvas()->view()->viewport();
    QTest::mousePress(canvasViewport, Qt::LeftButton, {}, QPoint(3, 3));
    QTest::mouseMove(canvasViewport, QPoint(23, 3));
    QTest::mouseRelease(canvasViewport, Qt::LeftButton, {}, QPoint(23, 3));
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(1));
    QCOMPARE(w.statusBar()->currentMessage(),
             QStringLiteral("No edge crossed: draw the cut line across the edges between the nodes "
                            "to separate."));
    const NodeId relu = key(w, "%13");
    strokeAcross(w, relu, key(w, "%14"));
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));
    const QString cut = planJson(w);

    BoundaryTensorModel *boundary = w.boundaryDock()->model();
    QCOMPARE(boundary->rowCount(), 1);
    QCOMPARE(boundary->index(0, BoundaryTensorModel::TensorColumn).data().toString(),
             QStringLiteral("%13"));
    QCOMPARE(boundary->index(0, BoundaryTensorModel::RouteColumn).data().toString(),
             QStringLiteral("stage0 → stage1"));
    const cleave::BoundaryTensor &tensor = w.document()->boundary().tensors[0];
    QCOMPARE(tensor.consumers.size(), std::size_t(1));
    QCOMPARE(tensor.consumers[0].partition, w.document()->plan()->partitions()[1].id);
    QCOMPARE(tensor.consumers[0].nodes, (std::vector<NodeId> { key(w, "%14"), key(w, "%21") }));
    DiagnosticListModel *diagnostics = w.diagnosticsDock()->model();
    // The only warning (see the status line below) and no error: rows are sorted by severity,
    // so it is the first row, above the boundary summary (info).
    const int implied = diagnostics->findCode(QStringLiteral("partition.implied_edge"));
    QCOMPARE(implied, 0);
    QVERIFY(diagnostics->index(implied, DiagnosticListModel::MessageColumn)
                .data()
                .toString()
                .contains(QStringLiteral("%21")));
    QCOMPARE(
        statusText(w),
        QStringLiteral("resnet18.relay | 71 ops · 194 nodes | 2 partitions | ✓ valid, 1 warning"));

    // Double-clicking the warning focuses the nodes it is about.
    QTableView *diagnosticsView = w.diagnosticsDock()->view();
    const QRect row = diagnosticsView->visualRect(
        diagnostics->index(implied, DiagnosticListModel::MessageColumn));
    QSignalSpy focusSpy(w.diagnosticsDock(), &DiagnosticsDock::focusRequested);
    // A real double click: press, release, then the double-click press and its release.
    QTest::mouseClick(diagnosticsView->viewport(), Qt::LeftButton, {}, row.center());
    QTest::mouseDClick(diagnosticsView->viewport(), Qt::LeftButton, {}, row.center());
    // Once, for activated (the offscreen platform activates items on double click, not single
    // click; the dock answers activation only, so a group row toggles once).
    QCOMPARE(focusSpy.count(), 1);
    std::vector<NodeId> focused = w.canvas()->selectedNodes();
    std::sort(focused.begin(), focused.end());
    std::vector<NodeId> named = diagnostics->diagnosticAt(implied)->nodes;
    std::sort(named.begin(), named.end());
    QCOMPARE(focused, named);

    // Undo and redo from the keyboard restore both states, docks included.
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(1));
    QCOMPARE(boundary->rowCount(), 0);
    QCOMPARE(diagnostics->findCode(QStringLiteral("partition.implied_edge")), -1);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(planJson(w), cut);
    QCOMPARE(boundary->rowCount(), 1);
    QCOMPARE(diagnostics->findCode(QStringLiteral("partition.implied_edge")), 0);

    // Selecting the boundary row centres the edge; V, then a rubber band around the second
    // residual block's main path (%14 .. %20), then I isolates it.
    w.boundaryDock()->view()->selectRow(0);
    QTest::keyClick(&w, Qt::Key_V);
    QCOMPARE(w.canvas()->tool(), CanvasWidget::Tool::Select);
    const std::vector<NodeId> block { key(w, "%14"), key(w, "%15"), key(w, "%16"), key(w, "%17"),
                                      key(w, "%18"), key(w, "%19"), key(w, "%20") };
    w.canvas()->centerOnNode(key(w, "%17"));
    w.canvas()->selectNodes({});
    QRect band;
    for (NodeId n : block)
        band |= QRect(w.canvas()->viewportPosOfNode(n), QSize(1, 1));
    QWidget *viewport = w.canvas()->view()->viewport();
    const QPoint from = QPoint(band.left() - 90, band.top() - 12);
    const QPoint to = QPoint(band.right() + 90, band.bottom() + 12);
    QVERIFY(viewport->rect().contains(from) && viewport->rect().contains(to));
    QTest::mousePress(viewport, Qt::LeftButton, {}, from);
    QTest::mouseMove(viewport, (from + to) / 2);
    QTest::mouseMove(viewport, to);
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, to);
    std::vector<NodeId> selected;
    for (NodeId n : w.canvas()->selectedNodes()) {
        if (w.document()->plan()->view().isAssignable(n))
            selected.push_back(n);
    }
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, block);
    // Properties sums the selection up (issue 32: it showed only its first node): the block's
    // five operators by kind (resnet18.relay lines 17-23: two conv2d, two batch_norm, one relu;
    // the two projections are no operators), and its seven assignable nodes in stage1 (the
    // constants the band also caught are in no partition).
    NodePropertiesModel *properties = w.propertiesDock()->model();
    QCOMPARE(properties->value(QStringLiteral("Selection"), QStringLiteral("Nodes")),
             QString::number(w.canvas()->selectedNodes().size()));
    QCOMPARE(properties->value(QStringLiteral("Selection"), QStringLiteral("Operators")),
             QStringLiteral("5"));
    QCOMPARE(properties->value(QStringLiteral("Selection"), QStringLiteral("Ops")),
             QStringLiteral("nn.batch_norm ×2, nn.conv2d ×2, nn.relu ×1"));
    QCOMPARE(properties->value(QStringLiteral("Selection"), QStringLiteral("Partitions")),
             QStringLiteral("stage1 ×7"));
    QCOMPARE(properties->value(QStringLiteral("Nodes"), QStringLiteral("%17")),
             QStringLiteral("nn.relu"));
    QTest::keyClick(&w, Qt::Key_I);
    const cleave::PartitionPlan &plan = *w.document()->plan();
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    QCOMPARE(plan.nodeCount(plan.partitionOf(block[0])), block.size());
    QCOMPARE(w.partitionsDock()->model()->rowCount(), 3);
    QCOMPARE(w.document()->errorCount(), 0);
    const QString isolated = planJson(w);

    // Save, reopen in a fresh window: the same plan.
    const QString project = dir.filePath(QStringLiteral("resnet.cleave"));
    QVERIFY(w.saveProject(project));
    QVERIFY(!w.document()->isModified());
    QCOMPARE(w.windowTitle(), QStringLiteral("resnet.cleave[*] — Cleave"));
    {
        MainWindow again;
        openAndWait(again, project);
        QCOMPARE(planJson(again), isolated);
        QCOMPARE(again.document()->projectPath(), QDir::cleanPath(project));
        QCOMPARE(again.canvas()->tool(), CanvasWidget::Tool::Select);
        QVERIFY(!again.document()->isModified());
    }

    // Export everything (with both pictures) through the dialog, then verify the folder.
    ExportDialog *dialog = w.showExportDialog();
    QVERIFY(dialog);
    const QString out = dir.filePath(QStringLiteral("export"));
    dialog->setFolder(out);
    dialog->findChild<QCheckBox *>(QStringLiteral("exportSvg"))->setChecked(true);
    dialog->findChild<QCheckBox *>(QStringLiteral("exportPng"))->setChecked(true);
    QVERIFY(dialog->exportButton()->isEnabled());
    QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
    const QStringList written = dialog->writtenFiles();
    for (const QString &file :
         { QStringLiteral("pipeline_config.json"), QStringLiteral("partitions.json"),
           QStringLiteral("build_pipeline.py"), QStringLiteral("graph.svg"),
           QStringLiteral("graph.png") }) {
        QVERIFY2(written.contains(file), qPrintable(written.join(QLatin1Char(' '))));
        QVERIFY2(QFileInfo(QDir(out).filePath(file)).size() > 0, qPrintable(file));
    }
    int modules = 0;
    for (const QString &file : written)
        modules += file.endsWith(QStringLiteral(".relay")) ? 1 : 0;
    QCOMPARE(modules, 3);
    QVERIFY(dialog->summary()->toPlainText().startsWith(QStringLiteral("Exported 3 partitions")));
    QVERIFY(dialog->verified());
    QVERIFY(
        dialog->summary()->toPlainText().contains(QStringLiteral("Recomposition check passed")));
    const cleave::VerifyResult verified = cleave::verifyExport(out.toStdString());
    QVERIFY2(verified.ok, verified.firstDifference.c_str());
    dialog->close();
}

// Issue 32 (low): clicking a cut's tensor badge selects that boundary tensor, and Delete then
// removes the cut, as the boundary dock's row would.
void TestEditor::badgeClickThenDeleteRemovesCut()
{
    MainWindow w;
    openAndWait(w, resnet);
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, key(w, "%13"), key(w, "%14"));
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));
    QTest::keyClick(&w, Qt::Key_V);
    QCOMPARE(w.canvas()->tool(), CanvasWidget::Tool::Select);

    QGraphicsView *view = w.canvas()->view();
    QTRY_VERIFY([&] {
        for (QGraphicsItem *item : view->scene()->items())
            if (item->type() == cleave::ui::BadgeItem::Type && item->isVisible())
                return true;
        return false;
    }());
    const cleave::ui::BadgeItem *badge = nullptr;
    for (QGraphicsItem *item : view->scene()->items()) {
        if (item->type() == cleave::ui::BadgeItem::Type && item->isVisible())
            badge = static_cast<const cleave::ui::BadgeItem *>(item);
    }
    QVERIFY(badge);
    // The badge keeps its screen size: its rectangle is in pixels around its anchor.
    const QPoint at
        = view->mapFromScene(badge->scenePos()) + badge->boundingRect().center().toPoint();
    QVERIFY(view->viewport()->rect().contains(at));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(w.boundaryDock()->currentRow(), 0);
    QCOMPARE(w.statusBar()->currentMessage(),
             QStringLiteral("Boundary tensor selected: Delete removes its cut."));
    QVERIFY(w.canvas()->selectedNodes().empty());
    QTest::keyClick(&w, Qt::Key_Delete);
    QCOMPARE(w.document()->undoStack()->undoText(), QStringLiteral("Remove cut"));
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(1));
}

void TestEditor::contextActionsAndDelete()
{
    MainWindow w;
    openAndWait(w, resnet);
    QUndoStack *stack = w.document()->undoStack();

    // P: a new partition from the selection.
    w.canvas()->selectNodes({ key(w, "%5"), key(w, "%6"), key(w, "%7") });
    QTest::keyClick(&w, Qt::Key_P);
    QCOMPARE(stack->count(), 1);
    const cleave::PartitionPlan &plan = *w.document()->plan();
    QCOMPARE(plan.nodeCount(plan.partitionOf(key(w, "%5"))), std::size_t(3));
    const std::size_t parts = plan.partitionCount();

    // A selection across two partitions: M merges them.
    w.canvas()->selectNodes({ key(w, "%4"), key(w, "%5") });
    QTest::keyClick(&w, Qt::Key_M);
    QCOMPARE(stack->count(), 2);
    QCOMPARE(plan.partitionCount(), parts - 1);
    stack->undo();
    QCOMPARE(plan.partitionCount(), parts);

    // Delete on the same selection removes the cut between them.
    QTest::keyClick(&w, Qt::Key_Delete);
    QCOMPARE(stack->count(), 2);
    QCOMPARE(stack->undoText(), QStringLiteral("Remove cut"));
    QCOMPARE(plan.partitionOf(key(w, "%4")), plan.partitionOf(key(w, "%5")));

    // A non-convex selection: Isolate refuses (nothing pushed), the convex closure fixes it.
    w.canvas()->selectNodes({ key(w, "%13"), key(w, "%21") });
    QTest::keyClick(&w, Qt::Key_I);
    QCOMPARE(stack->count(), 2);
    QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("not convex")));
    auto *closure = w.findChild<QAction *>(QStringLiteral("convexClosureAction"));
    QVERIFY(closure && closure->isEnabled());
    closure->trigger();
    // The closure of {%13, %21}: every path between them, %13 .. %21 (the second residual block).
    QCOMPARE(w.canvas()->selectedNodes().size(), std::size_t(9));
    QTest::keyClick(&w, Qt::Key_I);
    QCOMPARE(stack->count(), 3);
    QCOMPARE(stack->undoText(), QStringLiteral("Isolate 9 nodes"));

    // Assign ▸ stage0 (the submenu lists the partitions) moves the selection back.
    w.canvas()->selectNodes({ key(w, "%14") });
    auto *assign = w.findChild<QMenu *>(QStringLiteral("assignMenu"));
    QVERIFY(assign && assign->isEnabled());
    emit assign->aboutToShow();
    QCOMPARE(assign->actions().size(), int(plan.partitionCount()));
    QVERIFY(assign->actions().constFirst()->text().startsWith(QStringLiteral("stage0  (llvm)")));
    assign->actions().constFirst()->trigger();
    QCOMPARE(plan.partitionOf(key(w, "%14")), plan.partitions()[0].id);
    stack->undo();

    // T asks for the target of the selection's partition.
    QTimer::singleShot(50, this, [] {
        if (auto *input = qobject_cast<QInputDialog *>(QApplication::activeModalWidget())) {
            input->setTextValue(QStringLiteral("cuda"));
            input->accept();
        }
    });
    QTest::keyClick(&w, Qt::Key_T);
    QCOMPARE(plan.partitions()[plan.indexOf(plan.partitionOf(key(w, "%14")))].target,
             std::string("cuda"));
    QCOMPARE(stack->undoText(), QStringLiteral("Set target to cuda"));
    stack->undo();

    // Renaming in the Partitions dock is one undoable command.
    PartitionListModel *partitions = w.partitionsDock()->model();
    QVERIFY(partitions->setData(partitions->index(0, PartitionListModel::NameColumn),
                                QStringLiteral("stem")));
    QCOMPARE(plan.partitions()[0].name, std::string("stem"));
    QApplication::setActiveWindow(&w); // back from the target dialog
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(plan.partitions()[0].name, std::string("stage0"));
}

void TestEditor::blocksLevelCutsAndExpands()
{
    MainWindow w;
    openAndWait(w, resnet);
    QVERIFY(!w.blockGraph());
    // Ctrl+2: one node per FuseOps kernel (62 for ResNet-18 with unfolded batch norms).
    QTest::keyClick(&w, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(w.level(), MainWindow::Level::Blocks);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    const cleave::BlockGraph *blocks = w.blockGraph();
    QVERIFY(blocks);
    QCOMPARE(blocks->kernelCount(), std::size_t(62));
    const NodeId reluBlock = blocks->shownAs(key(w, "%13"));
    const NodeId convBlock = blocks->shownAs(key(w, "%14"));
    // fused_add_nn_relu: the batch norm's projection %11, the residual add %12, the relu %13.
    QCOMPARE(blocks->originalNodes(reluBlock),
             (std::vector<NodeId> { key(w, "%11"), key(w, "%12"), key(w, "%13") }));

    // A cut stroke across the block edge cuts the op edge behind it, exactly as at Ops level.
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, reluBlock, convBlock);
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));
    QCOMPARE(w.boundaryDock()->model()->rowCount(), 1);
    QCOMPARE(w.document()->boundary().tensors[0].tensor.node, key(w, "%13"));
    QCOMPARE(w.canvas()->selectedNodes().size(), std::size_t(0));

    // Double-clicking a block expands it in place: its nodes become nodes of their own.
    QTest::keyClick(&w, Qt::Key_V);
    const QPoint at = w.canvas()->viewportPosOfNode(reluBlock);
    QVERIFY(!at.isNull());
    QTest::mouseDClick(w.canvas()->view()->viewport(), Qt::LeftButton, {}, at);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    blocks = w.blockGraph();
    QCOMPARE(blocks->kernelCount(), std::size_t(63)); // 61 blocks + add + relu
    QVERIFY(blocks->shownAs(key(w, "%12")) != blocks->shownAs(key(w, "%13")));
    // The plan survives every level change; Ctrl+1 goes back to the operators.
    QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    QVERIFY(!w.blockGraph());
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));
}

QString TestEditor::contextAction(MainWindow &w, NodeId shown, const char *name)
{
    w.canvas()->centerOnNode(shown);
    QWidget *viewport = w.canvas()->view()->viewport();
    const QPoint at = w.canvas()->viewportPosOfNode(shown);
    if (at.isNull())
        return {};
    QString text;
    // The menu runs its own event loop: a timer finds it, and clicks the action like a user.
    auto *timer = new QTimer(&w);
    connect(timer, &QTimer::timeout, &w, [&text, timer, name, &w] {
        auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
        if (!menu)
            return;
        timer->stop();
        auto *action = w.findChild<QAction *>(QLatin1String(name));
        if (!action || !menu->actions().contains(action) || !action->isEnabled()) {
            menu->close();
            return;
        }
        text = action->text().remove(QLatin1Char('&'));
        QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(action).center());
    });
    timer->start(20);
    QTest::mouseMove(viewport, at);
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, viewport->mapToGlobal(at));
    QApplication::sendEvent(viewport, &event);
    delete timer;
    return text;
}

void TestEditor::cutAfterFromContextMenu()
{
    MainWindow w;
    openAndWait(w, resnet);
    const cleave::PartitionPlan &plan = *w.document()->plan();

    // Ops level: right-click the max pool %4 ▸ Cut After This Node. Everything after it in
    // program order moves: the boundary is %4 alone (1×64×56×56 float32, 802,816 B), which
    // the first residual block reads twice (conv %5 and the skip into add %12).
    QCOMPARE(contextAction(w, key(w, "%4"), "cutAfterAction"),
             QStringLiteral("Cut After This Node"));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(plan.partitionOf(key(w, "%3")), plan.partitionOf(key(w, "%4")));
    QVERIFY(plan.partitionOf(key(w, "%4")) != plan.partitionOf(key(w, "%5")));
    QCOMPARE(w.document()->boundary().tensors.size(), std::size_t(1));
    QCOMPARE(w.document()->boundary().tensors[0].tensor.node, key(w, "%4"));
    QCOMPARE(*w.document()->boundary().tensors[0].bytes, std::int64_t(64 * 56 * 56 * 4));
    QCOMPARE(w.document()->undoStack()->undoText(), QStringLiteral("Cut after %4"));
    QVERIFY(w.document()->diagnostics().end()
            == std::find_if(
                w.document()->diagnostics().begin(), w.document()->diagnostics().end(),
                [](const cleave::Diagnostic &d) { return d.code == "partition.implied_edge"; }));

    // Blocks level: right-click the block add + relu (%11 %12 %13) ▸ Cut After This Block:
    // the later blocks move, and only %13 (802,816 B) crosses, read by conv %14 and add %21.
    QTest::keyClick(&w, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    const NodeId reluBlock = w.blockGraph()->shownAs(key(w, "%13"));
    QCOMPARE(contextAction(w, reluBlock, "cutAfterAction"), QStringLiteral("Cut After This Block"));
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    QCOMPARE(plan.partitionOf(key(w, "%11")), plan.partitionOf(key(w, "%13")));
    QVERIFY(plan.partitionOf(key(w, "%13")) != plan.partitionOf(key(w, "%14")));
    QCOMPARE(w.document()->undoStack()->undoText(), QStringLiteral("Cut after block add_nn_relu"));
    std::vector<NodeId> crossing;
    for (const cleave::BoundaryTensor &b : w.document()->boundary().tensors)
        crossing.push_back(b.tensor.node);
    QCOMPARE(crossing, (std::vector<NodeId> { key(w, "%4"), key(w, "%13") }));
    // Undo takes it back in one step.
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(plan.partitionCount(), std::size_t(2));

    // After the last operator (the softmax the function returns) there is nothing to cut: no
    // undo step, and the status bar says why.
    QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    const NodeId last = plan.view().order().back();
    QCOMPARE(w.document()->graph()->node(last).op, std::string("nn.softmax"));
    const int index = w.document()->undoStack()->index();
    QCOMPARE(contextAction(w, last, "cutAfterAction"), QStringLiteral("Cut After This Node"));
    QCOMPARE(w.document()->undoStack()->index(), index);
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QVERIFY2(w.statusBar()->currentMessage().startsWith(QStringLiteral("Nothing to cut")),
             qPrintable(w.statusBar()->currentMessage()));
}

void TestEditor::blocksStrokeSnapsToBlocks()
{
    MainWindow w;
    openAndWait(w, resnet);
    QTest::keyClick(&w, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    const cleave::BlockGraph *blocks = w.blockGraph();
    const NodeId poolBlock = blocks->shownAs(key(w, "%4"));
    const NodeId reluBlock = blocks->shownAs(key(w, "%13"));
    // The skip edge from the max pool into the block add + relu (%11 = %10.0, %12 = add(%11, %4),
    // %13) stands for %4 -> %12. Cutting that op edge alone would move %12 and %13 and leave the
    // projection %11 behind, splitting the kernel; on the Fused Blocks view the cut snaps to the
    // block's boundary and %11 goes with it.
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, poolBlock, reluBlock);
    const cleave::PartitionPlan &plan = *w.document()->plan();
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QVERIFY(plan.partitionOf(key(w, "%4")) != plan.partitionOf(key(w, "%12")));
    QCOMPARE(plan.partitionOf(key(w, "%11")), plan.partitionOf(key(w, "%12")));
    QCOMPARE(plan.partitionOf(key(w, "%10")), plan.partitionOf(key(w, "%4")));
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("snapped to block")),
             qPrintable(w.statusBar()->currentMessage()));
    // The same edge cut at Ops level splits the block (what the snap prevents).
    cleave::PartitionPlan loose(*w.document()->graph(), plan.function());
    loose.cutAcrossEdges({ loose.edgeBetween(key(w, "%4"), key(w, "%12")) });
    QVERIFY(loose.partitionOf(key(w, "%11")) != loose.partitionOf(key(w, "%12")));
}

void TestEditor::searchCyclesThroughHits()
{
    MainWindow w;
    openAndWait(w, resnet);
    QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
    SearchBar *bar = w.searchBar();
    QVERIFY(bar->isVisible());
    QTRY_VERIFY(bar->field()->hasFocus());
    QTest::keyClicks(bar->field(), QStringLiteral("add"));
    QCOMPARE(bar->hits().size(), std::size_t(9));
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("searchCount"))->text(),
             QStringLiteral("9 matches"));
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(w.canvas()->selectedNodes(), std::vector<NodeId> { key(w, "%12") });
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(w.canvas()->selectedNodes(), std::vector<NodeId> { key(w, "%21") });
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("searchCount"))->text(),
             QStringLiteral("2 of 9"));
    QTest::keyClick(bar->field(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(w.canvas()->selectedNodes(), std::vector<NodeId> { key(w, "%12") });
    QCOMPARE(w.propertiesDock()->model()->value(QStringLiteral("Node"), QStringLiteral("Op")),
             QStringLiteral("add"));
    QTest::keyClick(bar->field(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
}

void TestEditor::everySampleOpensCutsAndExports_data()
{
    // Every sample cut in the middle of its main path exports (Relay or ONNX modules) and the
    // export recomposes the source: a failed check fails the row. `operators` counts the
    // assignable nodes of @main: every top-level binding except fn literals, plus the result.
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("operators");
    const QDir samples(QStringLiteral(CLEAVE_SAMPLES_DIR));
    QCOMPARE(samples.entryList({ QStringLiteral("*.relay"), QStringLiteral("*.onnx") }, QDir::Files,
                               QDir::Name),
             (QStringList { QStringLiteral("byoc_dnnl_partitioned.relay"),
                            QStringLiteral("inception_block.relay"),
                            QStringLiteral("resnet18.relay"), QStringLiteral("resnet_fused.relay"),
                            QStringLiteral("resnet_inception.onnx"),
                            QStringLiteral("stop_fusion.relay") }));
    auto row = [&samples](const char *name, int operators) {
        QTest::newRow(name) << samples.filePath(QString::fromLatin1(name)) << operators;
    };
    row("byoc_dnnl_partitioned.relay", 8); // %0 .. %6 and the softmax
    row("inception_block.relay", 53); // %0 .. %51 and the softmax
    row("resnet18.relay", 91); // %0 .. %89 (71 op calls, 20 batch-norm projections), softmax
    row("resnet_fused.relay", 9); // 8 kernel calls bound among 9 fn literals, the result call
    row("resnet_inception.onnx", 40); // its 40 ONNX nodes
    row("stop_fusion.relay", 27); // %0 .. %25 and the softmax
}

void TestEditor::everySampleOpensCutsAndExports()
{
    QFETCH(QString, file);
    QFETCH(int, operators);
    MainWindow w;
    openAndWait(w, file);
    // Cut the first edge between two operators of the main path with a mouse stroke, undo,
    // redo, then export and verify.
    const cleave::PartitionPlan &plan = *w.document()->plan();
    const std::vector<NodeId> &order = plan.view().assignableNodes();
    QCOMPARE(int(order.size()), operators);
    const NodeId consumer = order[order.size() / 2];
    NodeId producer;
    for (const cleave::TensorRef in : w.document()->graph()->node(consumer).inputs) {
        if (in.isValid() && plan.view().isAssignable(in.node))
            producer = in.node;
    }
    QVERIFY(producer.isValid());
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, producer, consumer);
    // One cut line across one edge splits the single partition in two.
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const QString cut = planJson(w);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(plan.partitionCount(), std::size_t(1));
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(planJson(w), cut);

    QTemporaryDir dir;
    ExportDialog *dialog = w.showExportDialog();
    dialog->setFolder(dir.filePath(QStringLiteral("out")));
    // Relay and ONNX both have a module writer, and the cut is valid: the second partition is the
    // consumer and everything downstream of it, so no edge runs back (no cycle, both convex).
    QCOMPARE(w.document()->errorCount(), 0);
    QVERIFY(dialog->exportButton()->isEnabled());
    const bool exported = dialog->runExport();
    const QString summary = dialog->summary()->toPlainText();
    QVERIFY2(exported, qPrintable(summary));
    QVERIFY(dialog->writtenFiles().contains(QStringLiteral("pipeline_config.json")));
    // The dialog reports what the core recomposition check says, and the check passes.
    QVERIFY2(dialog->verified(), qPrintable(summary));
    const cleave::VerifyResult verified
        = cleave::verifyExport(dir.filePath(QStringLiteral("out")).toStdString());
    QVERIFY2(verified.ok, verified.firstDifference.c_str());
    dialog->close();
}

void TestEditor::exportRefusesInvalidPlan()
{
    MainWindow w;
    openAndWait(w, resnet);
    // Cut after %12, then put %5 (early in stage0) into stage1: the two stages now feed each
    // other, which no pipeline can run.
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, key(w, "%12"), key(w, "%13"));
    const cleave::PartitionPlan &plan = *w.document()->plan();
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(w.document()->errorCount(), 0);
    w.canvas()->selectNodes({ key(w, "%5") });
    emit w.findChild<QMenu *>(QStringLiteral("assignMenu"))->aboutToShow();
    w.findChild<QMenu *>(QStringLiteral("assignMenu"))->actions().at(1)->trigger();
    QCOMPARE(plan.partitionOf(key(w, "%5")), plan.partitions()[1].id);
    // Three errors: the cycle stage0 -> stage1 -> stage0 (one per cycle), and both partitions
    // non-convex (%4 -> %5 -> %6 leaves stage0 and comes back; %5 -> %6 .. %12 -> %13 leaves
    // stage1 and comes back). %5 alone in stage1 is disconnected, which is only a warning.
    QCOMPARE(w.document()->errorCount(), 3);
    QVERIFY2(statusText(w).contains(QStringLiteral("2 partitions | ✗ ")),
             qPrintable(statusText(w)));

    QTemporaryDir dir;
    ExportDialog *dialog = w.showExportDialog();
    dialog->setFolder(dir.filePath(QStringLiteral("out")));
    QVERIFY(!dialog->exportButton()->isEnabled());
    const QString refusal = dialog->findChild<QLabel *>(QStringLiteral("exportRefusal"))->text();
    QVERIFY2(refusal.startsWith(QStringLiteral("The plan is invalid, so it cannot be exported.")),
             qPrintable(refusal));
    QVERIFY2(refusal.contains(QStringLiteral("[partition.cycle]")), qPrintable(refusal));
    QVERIFY(!dialog->runExport());
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("out"))));
    // The dialog exports through the document's plan pipeline, the one place that refuses an
    // invalid plan (as cleave-cli's verbs do): asked directly, it refuses too.
    const cleave::ExportResult refused = w.document()->pipeline()->exportPlan(
        plan, {}, dir.filePath(QStringLiteral("out")).toStdString());
    QVERIFY(!refused.ok);
    QCOMPARE(refused.diagnostics.front().code, std::string("export.invalid_plan"));
    QCOMPARE(refused.diagnostics.at(1).code, std::string("partition.cycle"));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("out"))));

    // Undo (the dialog is window-modal, so through the stack) makes the plan valid again and
    // the open dialog follows.
    w.document()->undoStack()->undo();
    QCOMPARE(w.document()->errorCount(), 0);
    QVERIFY(dialog->exportButton()->isEnabled());
    QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("exportRefusal"))->isHidden());
    dialog->close();
}

// A Relax model cut in two with the cut tool, exported through the dialog with "Run in TVM
// after export": the dialog lists the Relax artefacts (build_relax.py, placed.relax.py, no
// pipeline_config.json), finds the Python environment with TVM, and TVM builds and runs both
// modules and the whole source module: every output matches (the two stages compute what the
// model computes, so the difference is exactly 0).
void TestEditor::exportRunsInTvm()
{
    QProcess pydeps;
    pydeps.start(QStringLiteral(CLEAVE_SOURCE_DIR "/packaging/pydeps.sh"),
                 { QStringLiteral("--print") });
    if (!pydeps.waitForFinished(60000) || pydeps.exitCode() != 0)
        QSKIP("no Python environment with TVM (packaging/pydeps.sh has not made it)");
    const QString python = QString::fromUtf8(pydeps.readAllStandardOutput()).trimmed();
    qputenv("CLEAVE_PYTHON", python.toUtf8());
    MainWindow w;
    openAndWait(w, QStringLiteral(CLEAVE_TESTDATA_DIR "/relax_run/mlp_softmax.relax.py"));
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, key(w, "r"), key(w, "s"));
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));

    QTemporaryDir dir;
    ExportDialog *dialog = w.showExportDialog();
    dialog->setFolder(dir.filePath(QStringLiteral("out")));
    auto *pipeline = dialog->findChild<QCheckBox *>(QStringLiteral("exportPipelineConfig"));
    QVERIFY(!pipeline->isEnabled() && !pipeline->isChecked());
    QVERIFY(dialog->findChild<QCheckBox *>(QStringLiteral("exportBuildScript"))
                ->text()
                .contains(QStringLiteral("build_relax.py")));
    QVERIFY(dialog->findChild<QCheckBox *>(QStringLiteral("exportByoc"))
                ->text()
                .contains(QStringLiteral("byoc.relax.py")));
    QVERIFY(dialog->findChild<QCheckBox *>(QStringLiteral("exportAlways"))
                ->text()
                .startsWith(QStringLiteral("placed.relax.py")));
    QTRY_VERIFY_WITH_TIMEOUT(dialog->runtimeProbed(), 120000);
    auto *run = dialog->findChild<QCheckBox *>(QStringLiteral("exportRunRuntime"));
    QVERIFY2(run->isEnabled(), qPrintable(run->text()));
    QVERIFY(run->text().contains(python));
    if (!run->isChecked())
        QTest::mouseClick(run, Qt::LeftButton, {}, QPoint(8, run->height() / 2));
    QVERIFY(run->isChecked());
    QSignalSpy finished(dialog, &ExportDialog::runtimeCheckFinished);
    QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
    const QStringList written = dialog->writtenFiles();
    for (const QString &file :
         { QStringLiteral("mod0.relax.py"), QStringLiteral("mod1.relax.py"),
           QStringLiteral("partitions.json"), QStringLiteral("build_relax.py"),
           QStringLiteral("placed.relax.py") })
        QVERIFY2(written.contains(file), qPrintable(written.join(QLatin1Char(' '))));
    QVERIFY(!written.contains(QStringLiteral("pipeline_config.json")));
    QVERIFY2(dialog->verified(), qPrintable(dialog->summary()->toPlainText()));
    QVERIFY(dialog->runtimeRunning());
    QVERIFY(
        dialog->findChild<QProgressBar *>(QStringLiteral("exportRuntimeProgress"))->isVisible());
    QVERIFY(finished.wait(300000));
    const QString summary = dialog->summary()->toPlainText();
    QVERIFY2(finished.first().first().toBool(), qPrintable(summary));
    QVERIFY(dialog->runtimePassed());
    QVERIFY2(summary.contains(QRegularExpression(
                 QStringLiteral("TVM [0-9.a-z]+ ran 2 partition\\(s\\): every output matches the "
                                "source model's"))),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("output 0: ok, max relative difference 0")),
             qPrintable(summary));
    QVERIFY(
        !dialog->findChild<QProgressBar *>(QStringLiteral("exportRuntimeProgress"))->isVisible());
    // The report went to a temporary file: the folder holds what the export wrote.
    QVERIFY(!QDir(dir.filePath(QStringLiteral("out")))
                 .entryList()
                 .contains(QStringLiteral(".cleave-runtime-report.json")));
    dialog->close();
    qunsetenv("CLEAVE_PYTHON");
}

void TestEditor::projectErrorsKeepDocument()
{
    QTemporaryDir dir;
    MainWindow w;
    openAndWait(w, resnet);
    w.canvas()->selectNodes({ key(w, "%5") });
    QTest::keyClick(&w, Qt::Key_P);
    const QString before = planJson(w);
    const cleave::Graph *graph = w.document()->graph();
    const QString project = dir.filePath(QStringLiteral("saved.cleave"));
    QVERIFY(w.saveProject(project));

    // A corrupted project: a clear error with file:line:col, nothing changes, the file stays.
    const QString broken = dir.filePath(QStringLiteral("broken.cleave"));
    QFile file(broken);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"cleave_project\": 1,\n \"model\": {\"path\": \"x\"}, \"plan\": [\n");
    file.close();
    {
        MessageBoxAnswer answer(QStringLiteral("OK"));
        QVERIFY(!w.openFile(broken));
        QVERIFY2(answer.text().contains(broken
                                        + QStringLiteral(":3:1: error: the project file "
                                                         "is not valid JSON")),
                 qPrintable(answer.text()));
    }
    QCOMPARE(w.document()->graph(), graph);
    QCOMPARE(planJson(w), before);
    QCOMPARE(w.document()->projectPath(), QDir::cleanPath(project));
    QVERIFY(QFileInfo::exists(broken));

    // A project whose plan names nodes the model does not have.
    QFile saved(project);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QByteArray text = saved.readAll();
    saved.close();
    text.replace("\"%5\"", "\"%999\"");
    const QString foreign = dir.filePath(QStringLiteral("foreign.cleave"));
    QFile out(foreign);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text);
    out.close();
    {
        MessageBoxAnswer answer(QStringLiteral("OK"));
        QVERIFY(!w.openFile(foreign));
        QVERIFY2(answer.text().contains(QStringLiteral("%999")), qPrintable(answer.text()));
    }
    QCOMPARE(w.document()->graph(), graph);
    QCOMPARE(planJson(w), before);
}

void TestEditor::changedModelAsksBeforeApplying()
{
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("net.relay"));
    QVERIFY(QFile::copy(resnet, model));
    const QString project = dir.filePath(QStringLiteral("net.cleave"));
    QString cut;
    {
        MainWindow w;
        openAndWait(w, model);
        w.canvas()->selectNodes({ key(w, "%30"), key(w, "%32") });
        QTest::keyClick(&w, Qt::Key_P);
        cut = planJson(w);
        QVERIFY(w.saveProject(project));
    }
    QFile file(model);
    QVERIFY(file.open(QIODevice::Append));
    file.write("\n// edited after saving the project\n");
    file.close();

    MainWindow w;
    openAndWait(w, resnet);
    {
        MessageBoxAnswer answer(QStringLiteral("Cancel"));
        QVERIFY(!w.openFile(project));
        QVERIFY(answer.text().contains(QStringLiteral("changed since the project was saved")));
    }
    QCOMPARE(w.document()->filePath(), resnet);
    {
        MessageBoxAnswer answer(QStringLiteral("Apply Anyway"));
        QVERIFY(w.openFile(project));
    }
    QCOMPARE(w.document()->filePath(), QDir::cleanPath(model));
    // Same partitions; the recorded checksum is the new model's once saved again.
    QCOMPARE(QString::fromStdString(cleave::planToJson(*w.document()->plan())["partitions"].dump()),
             QString::fromStdString(nlohmann::json::parse(cut.toStdString())["partitions"].dump()));
}

void TestEditor::unsavedChangesPrompt()
{
    MainWindow w;
    openAndWait(w, resnet);
    w.canvas()->selectNodes({ key(w, "%5") });
    QTest::keyClick(&w, Qt::Key_P);
    QVERIFY(w.document()->isModified());
    QVERIFY(w.windowTitle().contains(QStringLiteral("[*]")));
    QVERIFY(w.isWindowModified());
    const QString edited = planJson(w);
    const QString other
        = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/inception_block.relay"));
    {
        MessageBoxAnswer answer(QStringLiteral("Cancel"));
        QVERIFY(!w.openFile(other));
        QVERIFY(answer.text().contains(QStringLiteral("unsaved changes")));
    }
    QCOMPARE(planJson(w), edited);
    {
        MessageBoxAnswer answer(QStringLiteral("Cancel"));
        QVERIFY(!w.close());
    }
    QVERIFY(w.isVisible());
    {
        MessageBoxAnswer answer(QStringLiteral("Discard"));
        QVERIFY(w.openFile(other));
    }
    QCOMPARE(w.document()->fileName(), QStringLiteral("inception_block.relay"));
    QVERIFY(!w.document()->isModified());
}

void TestEditor::autosaveAndRecovery()
{
    QString recovery;
    QString edited;
    {
        auto w = std::make_unique<MainWindow>();
        recovery = w->session()->recoveryFilePath();
        openAndWait(*w, resnet);
        w->session()->autosave(); // nothing to recover yet
        QVERIFY(!QFileInfo::exists(recovery));
        w->canvas()->selectNodes({ key(*w, "%5"), key(*w, "%6") });
        QTest::keyClick(w.get(), Qt::Key_P);
        edited = planJson(*w);
        w->session()->autosave();
        QVERIFY(QFileInfo::exists(recovery));
        // The "crash": the window goes away without closing.
    }
    QVERIFY(QFileInfo::exists(recovery));
    {
        MainWindow w;
        w.show();
        MessageBoxAnswer answer(QStringLiteral("Restore"));
        QVERIFY(w.offerRecovery());
        QVERIFY(answer.text().contains(QStringLiteral("resnet18.relay")));
        QCOMPARE(planJson(w), edited);
        QVERIFY(w.document()->isModified());
        QVERIFY(w.document()->projectPath().isEmpty());
        QVERIFY(!ProjectSession::recentFiles().contains(QDir::cleanPath(recovery)));
        // The restored work is this window's recovery now; a clean close (discarding) removes it.
        QVERIFY(QFileInfo::exists(w.session()->recoveryFilePath()));
        recovery = w.session()->recoveryFilePath();
        MessageBoxAnswer discard(QStringLiteral("Discard"));
        QVERIFY(w.close());
    }
    QVERIFY(!QFileInfo::exists(recovery));
    MainWindow w;
    QVERIFY(!w.offerRecovery());
}

QTEST_MAIN(TestEditor)
#include "tst_editor.moc"
