// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Model ▸ Cost & Targets, the function chooser and the Diagnostics dock's fix, driven like a
// user on the real widgets: op-support lists loaded through the file dialog (a broken one is
// refused with file:line:col), a partition's target typed into the targets table, unsupported
// ops drawn in red, a latency table filling the Partitions dock's column and the Balance dock,
// fusion options re-forming the blocks, another function of a Relax module partitioned, an
// input marked as a parameter from its diagnostic and exported through param_connection; every
// setting undoable, marking the document modified, and restored from the saved project.
#include "CanvasStroke.h"
#include "TestSupport.h"
#include "core/auto/AutoPlan.h"
#include "core/formats/RuntimeCheck.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/dialogs/CostTargetsDialog.h"
#include "ui/dialogs/ExportDialog.h"
#include "ui/dialogs/MeasureDialog.h"
#include "ui/docks/BalanceDock.h"
#include "ui/docks/DiagnosticsDock.h"
#include "ui/docks/FunctionChooser.h"
#include "ui/docks/PartitionsDock.h"
#include "ui/document/Document.h"
#include "ui/models/DiagnosticListModel.h"
#include "ui/models/PartitionListModel.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace cleave::ui;
using cleave::NodeId;

namespace {

const QString stopFusion = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/stop_fusion.relay"));

bool writeText(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

QByteArray readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// Answers the next file dialog with `path`: the path entered as the file name, then the dialog
/// accepted (its own accept(), which checks that the file exists, as its Open button does; the
/// button itself waits for the dialog's background directory listing, which makes clicking it
/// racy).
void answerFileDialog(const QString &path)
{
    auto *timer = new QTimer(qApp);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, path] {
        QFileDialog *dialog = nullptr;
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (auto *d = qobject_cast<QFileDialog *>(w); d && d->isVisible())
                dialog = d;
        }
        if (!dialog)
            return;
        timer->stop();
        timer->deleteLater();
        // What a user types into the file name field (selectFile() leaves a focused field as it
        // is), then the dialog's own accept().
        if (auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit")))
            name->setText(path);
        else
            dialog->selectFile(path);
        static_cast<QDialog *>(dialog)->accept();
        if (dialog->isVisible()) {
            qWarning("the file dialog did not take %s", qPrintable(path));
            dialog->reject();
        }
    });
    timer->start(20);
}

int nodeItemCount(const CanvasWidget *canvas)
{
    canvas->makeAllItems(); // the tiles paint without items
    const QList<QGraphicsItem *> items = canvas->view()->scene()->items();
    return static_cast<int>(std::count_if(items.begin(), items.end(), [](QGraphicsItem *item) {
        return qgraphicsitem_cast<NodeItem *>(item) != nullptr;
    }));
}

NodeId key(const MainWindow &w, const char *name)
{
    return cleave::test::node(*w.document()->graph(), name);
}

template <typename T>
T *child(const QObject *parent, const char *name)
{
    T *found = parent->findChild<T *>(QLatin1String(name));
    if (!found)
        qFatal("no child %s", name);
    return found;
}

void click(QWidget *widget)
{
    QVERIFY(widget->isVisible());
    QVERIFY(widget->isEnabled());
    // A check box reacts on its indicator and label, not on the stretched space beside them.
    const QPoint at = qobject_cast<QCheckBox *>(widget) ? QPoint(8, widget->height() / 2)
                                                        : widget->rect().center();
    QTest::mouseClick(widget, Qt::LeftButton, {}, at);
}

void showTab(CostTargetsDialog *page, int tab)
{
    QTabBar *bar = child<QTabWidget>(page, "costTargetsTabs")->tabBar();
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(tab).center());
    QCOMPARE(bar->currentIndex(), tab);
}

/// Answers the next message box with `button` (a click on it, as a user would).
void answerMessageBox(QMessageBox::StandardButton button)
{
    auto *timer = new QTimer(qApp);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, button] {
        for (QWidget *w : QApplication::topLevelWidgets()) {
            auto *box = qobject_cast<QMessageBox *>(w);
            if (!box || !box->isVisible())
                continue;
            timer->stop();
            timer->deleteLater();
            QTest::mouseClick(box->button(button), Qt::LeftButton);
            return;
        }
    });
    timer->start(20);
}

/// Replaces a field's text as a user does: select all, type.
void typeInto(QWidget *field, const QString &text)
{
    field->setFocus();
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(field, text);
}

int rowWithCode(const MainWindow &w, const char *code)
{
    return w.diagnosticsDock()->model()->findCode(QString::fromLatin1(code));
}

} // namespace

class TestCostTargets : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void opSupportMarksUnsupportedOps();
    void latencyFillsColumnAndBalance();
    void fusionOptionsReformBlocks();
    void chooseFunctionOfRelaxModule();
    void diagnosticFixMarksParameter();
    void measureLoadsTableAsOneUndoStep();
    void runReportBesidePrediction();

private:
    void openAndWait(MainWindow &w, const QString &path);
    // Model ▸ Cost & Targets…, clicked in the open menu.
    CostTargetsDialog *openPage(MainWindow &w);
    // Clicks the Model menu's action `name` in the open menu; false when it is not there.
    bool clickModelAction(MainWindow &w, const char *name);
    void strokeAcross(MainWindow &w, NodeId from, NodeId to);
    void keyOnWindow(MainWindow &w, Qt::Key key, Qt::KeyboardModifiers modifiers);
};

void TestCostTargets::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_costtargets"));
}

void TestCostTargets::init()
{
    QSettings().clear();
}

void TestCostTargets::openAndWait(MainWindow &w, const QString &path)
{
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
}

bool TestCostTargets::clickModelAction(MainWindow &w, const char *name)
{
    QApplication::setActiveWindow(&w);
    QMenuBar *bar = w.menuBar();
    QAction *modelMenu = nullptr;
    for (QAction *a : bar->actions()) {
        if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Model"))
            modelMenu = a;
    }
    if (!modelMenu)
        return false;
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(modelMenu).center());
    if (!QTest::qWaitFor([] { return QApplication::activePopupWidget() != nullptr; }))
        return false;
    auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
    auto *action = w.findChild<QAction *>(QLatin1String(name));
    if (!menu || !action || !action->isEnabled())
        return false;
    QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(action).center());
    return true;
}

CostTargetsDialog *TestCostTargets::openPage(MainWindow &w)
{
    if (!clickModelAction(w, "costTargetsAction"))
        return nullptr;
    auto *page = w.findChild<CostTargetsDialog *>(QStringLiteral("costTargetsDialog"));
    if (page && !QTest::qWaitForWindowExposed(page))
        return nullptr;
    return page;
}

void TestCostTargets::strokeAcross(MainWindow &w, NodeId from, NodeId to)
{
    keyOnWindow(w, Qt::Key_C, {});
    // Across the edge, short enough to miss the skip connection beside the main path.
    QVERIFY2(cleave::test::strokeAcrossEdge(w.canvas(), from, to), "the edge is not on screen");
    QTest::keyClick(&w, Qt::Key_V);
}

void TestCostTargets::keyOnWindow(MainWindow &w, Qt::Key key, Qt::KeyboardModifiers modifiers)
{
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, key, modifiers);
}

void TestCostTargets::opSupportMarksUnsupportedOps()
{
    QTemporaryDir dir;
    // Every op of stop_fusion.relay but nn.relu (the file has six: %3 %6 %10 %13 %17 %20).
    const QString good = dir.filePath(QStringLiteral("dnnl.json"));
    QVERIFY(writeText(good, R"({"target": "dnnl", "ops": ["multiply", "nn.conv2d",
        "nn.bias_add", "annotation.stop_fusion", "nn.global_avg_pool2d", "nn.batch_flatten",
        "nn.dense", "nn.softmax"]})"));
    // "ops" holds a number: line 3, column 24 (the 7).
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QVERIFY(writeText(bad, "{\n  \"target\": \"dnnl\",\n  \"ops\": [\"nn.conv2d\", 7]\n}\n"));

    {
        MainWindow w;
        openAndWait(w, stopFusion);
        CostTargetsDialog *page = openPage(w);
        QVERIFY(page);
        QVERIFY(!w.document()->isModified());

        answerFileDialog(bad);
        click(child<QPushButton>(page, "loadOpSupportButton"));
        QTRY_VERIFY(!page->errorText().isEmpty());
        QVERIFY2(page->errorText().startsWith(QDir::toNativeSeparators(bad)
                                              + QStringLiteral(":3:24: error:"))
                     || page->errorText().startsWith(bad + QStringLiteral(":3:24: error:")),
                 qPrintable(page->errorText()));
        QVERIFY(w.document()->settings().opSupport.empty());
        QCOMPARE(w.document()->undoStack()->count(), 0);

        answerFileDialog(good);
        click(child<QPushButton>(page, "loadOpSupportButton"));
        QTRY_COMPARE(w.document()->settings().opSupport.size(), std::size_t(1));
        QVERIFY(page->errorText().isEmpty());
        QCOMPARE(child<QListWidget>(page, "opSupportList")->count(), 1);
        QVERIFY(child<QListWidget>(page, "opSupportList")
                    ->item(0)
                    ->text()
                    .contains(QStringLiteral("dnnl (8 ops)")));
        QVERIFY(w.document()->isModified());
        // The plan's target is still llvm, which no list covers: nothing is checked yet.
        QVERIFY(w.canvas()->problemNodes().empty());

        // The single partition's target, typed into the targets table.
        QTableView *targets = page->targetsView();
        const QModelIndex cell = targets->model()->index(0, PartitionListModel::TargetColumn);
        const QPoint at = targets->visualRect(cell).center();
        QTest::mouseClick(targets->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(targets->viewport(), Qt::LeftButton, {}, at);
        auto *editor = targets->findChild<QComboBox *>(QStringLiteral("targetEditor"));
        QVERIFY(editor);
        QVERIFY(editor->findText(QStringLiteral("dnnl")) >= 0); // offered from the list
        editor->lineEdit()->selectAll();
        QTest::keyClicks(editor->lineEdit(), QStringLiteral("dnnl"));
        QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
        QCOMPARE(w.document()->plan()->partitions().front().target, std::string("dnnl"));

        std::vector<NodeId> relus = cleave::test::nodes(*w.document()->graph(),
                                                        { "%3", "%6", "%10", "%13", "%17", "%20" });
        std::sort(relus.begin(), relus.end());
        QCOMPARE(w.canvas()->problemNodes(), relus);
        const int row = rowWithCode(w, "target.unsupported_op");
        QVERIFY(row >= 0);
        const QString message
            = QString::fromStdString(w.diagnosticsDock()->model()->diagnosticAt(row)->message);
        QVERIFY2(message.startsWith(QStringLiteral(
                     "target dnnl of partition stage0 does not support nn.relu (6 nodes")),
                 qPrintable(message));

        // Unloading the list clears the marks; undo brings them back.
        auto *list = child<QListWidget>(page, "opSupportList");
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(0)).center());
        click(child<QPushButton>(page, "unloadOpSupportButton"));
        QVERIFY(w.document()->settings().opSupport.empty());
        QVERIFY(w.canvas()->problemNodes().empty());
        QCOMPARE(rowWithCode(w, "target.unsupported_op"), -1);
        keyOnWindow(w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.document()->settings().opSupport.size(), std::size_t(1));
        QCOMPARE(w.canvas()->problemNodes(), relus);

        QVERIFY(w.saveProject(dir.filePath(QStringLiteral("net.cleave"))));
        const nlohmann::json saved = nlohmann::json::parse(
            readText(dir.filePath(QStringLiteral("net.cleave"))).toStdString());
        // Stored relative to the project, like the model.
        QCOMPARE(saved["settings"]["op_support"].dump(), std::string("[\"dnnl.json\"]"));
    }

    // Reopened: the list, the target and the red ops are back.
    MainWindow w;
    openAndWait(w, dir.filePath(QStringLiteral("net.cleave")));
    QCOMPARE(w.document()->settings().opSupport.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(w.document()->settings().opSupport.front()->path),
             QDir::cleanPath(good));
    QCOMPARE(w.document()->plan()->partitions().front().target, std::string("dnnl"));
    std::vector<NodeId> relus
        = cleave::test::nodes(*w.document()->graph(), { "%3", "%6", "%10", "%13", "%17", "%20" });
    std::sort(relus.begin(), relus.end());
    QTRY_COMPARE(w.canvas()->problemNodes(), relus);
    QVERIFY(!w.document()->isModified());
}

void TestCostTargets::latencyFillsColumnAndBalance()
{
    QTemporaryDir dir;
    // An entry for every op of stop_fusion.relay: 6 conv2d × 10 + dense 4.5 + 20 other ops ×
    // 0.5 (multiply 1, bias_add 7, relu 6, stop_fusion 3, pool 1, flatten 1, softmax 1) = 74.5.
    const QString table = dir.filePath(QStringLiteral("latency.json"));
    QVERIFY(writeText(table, R"({"cleave_latency": 1, "unit": "us", "ops": {
        "nn.conv2d": 10.0, "nn.dense": 4.5, "multiply": 0.5, "nn.bias_add": 0.5,
        "nn.relu": 0.5, "annotation.stop_fusion": 0.5, "nn.global_avg_pool2d": 0.5,
        "nn.batch_flatten": 0.5, "nn.softmax": 0.5}})"));
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QVERIFY(writeText(broken, "{\"cleave_latency\": 1,\n \"ops\": {\"nn.conv2d\": }}\n"));

    MainWindow w;
    openAndWait(w, stopFusion);
    QTableView *partitions = w.partitionsDock()->view();
    QVERIFY(partitions->isColumnHidden(PartitionListModel::LatencyColumn));
    CostTargetsDialog *page = openPage(w);
    QVERIFY(page);
    showTab(page, 1);

    answerFileDialog(broken);
    click(child<QPushButton>(page, "loadLatencyButton"));
    QTRY_VERIFY(!page->errorText().isEmpty());
    QVERIFY2(page->errorText().contains(QStringLiteral("broken.json:2:")),
             qPrintable(page->errorText()));
    QVERIFY(!w.document()->settings().latency);

    answerFileDialog(table);
    click(child<QPushButton>(page, "loadLatencyButton"));
    QTRY_VERIFY(w.document()->settings().latency != nullptr);
    QVERIFY(!partitions->isColumnHidden(PartitionListModel::LatencyColumn));
    PartitionListModel *model = w.partitionsDock()->model();
    QCOMPARE(model->index(0, PartitionListModel::LatencyColumn).data().toString(),
             QStringLiteral("74.5 µs"));
    auto *balance = w.findChild<BalanceDock *>();
    QVERIFY(balance);
    QCOMPARE(balance->chart()->bars().size(), std::size_t(1));
    QCOMPARE(balance->chart()->bars()[0].computeUs, 74.5);

    // A cut after the first stop_fusion (%7 -> %8): stage0 holds multiply, 2 conv2d, 2
    // bias_add, 2 relu and the stop_fusion = 20 + 6 × 0.5 = 23.0; stage1 the other 51.5.
    strokeAcross(w, key(w, "%7"), key(w, "%8"));
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));
    QCOMPARE(model->index(0, PartitionListModel::LatencyColumn).data().toString(),
             QStringLiteral("23.0 µs"));
    QCOMPARE(model->index(1, PartitionListModel::LatencyColumn).data().toString(),
             QStringLiteral("51.5 µs"));
    QCOMPARE(balance->chart()->bars()[0].computeUs, 23.0);
    QCOMPARE(balance->chart()->bars()[1].computeUs, 51.5);
    QVERIFY(balance->chart()->bars()[1].bottleneck);

    click(child<QPushButton>(page, "unloadLatencyButton"));
    QVERIFY(!w.document()->settings().latency);
    QVERIFY(partitions->isColumnHidden(PartitionListModel::LatencyColumn));
    QVERIFY(!model->index(0, PartitionListModel::LatencyColumn).data().isValid());

    // Without the table the dock costs FLOPs at its rate again: the cost graph it reused for the
    // cut is built anew, so its bars are those of a cost graph built afresh for the same plan.
    const cleave::PartitionPlan &plan = *w.document()->plan();
    cleave::DeviceSpec device;
    device.gflops = balance->settings().gflops;
    const cleave::CostGraph fresh
        = cleave::CostGraph::build(plan.view(), { device }, balance->settings().link);
    const std::vector<cleave::StageCost> stages
        = fresh.evaluate(cleave::stagesOfPlan(plan, fresh), plan.partitionCount());
    QCOMPARE(balance->chart()->bars().size(), std::size_t(2));
    QVERIFY(stages[0].computeUs != 23.0);
    QCOMPARE(balance->chart()->bars()[0].computeUs, stages[0].computeUs);
    QCOMPARE(balance->chart()->bars()[1].computeUs, stages[1].computeUs);

    // Issue 32 (low): the next model opens with the default settings, and the latency column
    // of the table loaded for this one goes with it.
    answerFileDialog(table);
    click(child<QPushButton>(page, "loadLatencyButton"));
    QTRY_VERIFY(w.document()->settings().latency != nullptr);
    QVERIFY(!partitions->isColumnHidden(PartitionListModel::LatencyColumn));
    page->close();
    w.document()->undoStack()->setClean(); // no "save changes?" prompt for this test
    openAndWait(w, QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay")));
    QVERIFY(w.document()->filePath().endsWith(QStringLiteral("resnet18.relay")));
    QVERIFY(!w.document()->settings().latency);
    QVERIFY(partitions->isColumnHidden(PartitionListModel::LatencyColumn));
}

void TestCostTargets::fusionOptionsReformBlocks()
{
    MainWindow w;
    openAndWait(w, stopFusion);
    keyOnWindow(w, Qt::Key_2, Qt::ControlModifier); // Fused Blocks
    QCOMPARE(w.level(), MainWindow::Level::Blocks);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    const int before = nodeItemCount(w.canvas());
    const Document *doc = w.document();
    // stop_fusion (%7) is opaque: a block of its own, apart from the relu (%6) before it.
    QVERIFY(doc->blockOf(key(w, "%7")) != doc->blockOf(key(w, "%6")));

    // The Summary dock's "Fused blocks: N" line follows the fusion options.
    const auto *facts = w.findChild<QLabel *>(QStringLiteral("summaryFacts"));
    QVERIFY(facts);
    const auto summaryBlocks = [facts] {
        const QRegularExpressionMatch m
            = QRegularExpression(QStringLiteral("Fused blocks: (\\d+)")).match(facts->text());
        return m.hasMatch() ? m.captured(1).toInt() : -1;
    };
    const int blocksBefore = summaryBlocks();
    QCOMPARE(blocksBefore, int(doc->blocks().size()));

    CostTargetsDialog *page = openPage(w);
    QVERIFY(page);
    showTab(page, 1);
    auto *transparent = child<QCheckBox>(page, "transparentStopFusionCheck");
    QVERIFY(!transparent->isChecked());
    click(transparent);
    QVERIFY(doc->settings().transparentStopFusion);
    QVERIFY(doc->isModified());
    // Elementwise now: each of the three stop_fusion ops joins the conv2d → bias_add → relu
    // block before it (a conv2d or the pool after it cannot join a block holding a conv2d).
    QCOMPARE(doc->blockOf(key(w, "%7")), doc->blockOf(key(w, "%4")));
    QCOMPARE(doc->blockOf(key(w, "%14")), doc->blockOf(key(w, "%11")));
    QCOMPARE(doc->blockOf(key(w, "%21")), doc->blockOf(key(w, "%18")));
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    QCOMPARE(nodeItemCount(w.canvas()), before - 3);
    QCOMPARE(summaryBlocks(), blocksBefore - 3); // three stop_fusion blocks joined others
    QVERIFY(child<QLabel>(page, "blocksCountLabel")
                ->text()
                .startsWith(QString::number(doc->blocks().size())));

    keyOnWindow(w, Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(!doc->settings().transparentStopFusion);
    QVERIFY(!transparent->isChecked());
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    QCOMPARE(nodeItemCount(w.canvas()), before);
    QCOMPARE(summaryBlocks(), blocksBefore);
}

void TestCostTargets::chooseFunctionOfRelaxModule()
{
    const QString module = cleave::test::corpusDir("relax").filePath(
        QStringLiteral("llama7b-1layer_mlc-before-quantize_2023.relax.py"));
    if (!QFileInfo::exists(module))
        QSKIP("the Relax corpus is not there");
    QTemporaryDir dir;
    {
        MainWindow w;
        openAndWait(w, module);
        auto *chooser = w.findChild<FunctionChooser *>(QStringLiteral("functionChooser"));
        QVERIFY(chooser);
        QVERIFY(chooser->isVisible()); // in the toolbar: the module has several functions
        // The four @R.function of the module: no main, so the one with the most ops (encoding,
        // 58) is partitioned and listed first, marked, then the others in file order.
        QCOMPARE(chooser->count(), 4);
        const QStringList names
            = { QStringLiteral("encoding"), QStringLiteral("create_kv_cache"),
                QStringLiteral("decoding"), QStringLiteral("softmax_with_temperature") };
        for (int i = 0; i < 4; ++i)
            QVERIFY2(chooser->itemText(i).startsWith(names[i] + QStringLiteral(" (")),
                     qPrintable(chooser->itemText(i)));
        QCOMPARE(chooser->currentIndex(), 0);
        QVERIFY(chooser->itemText(0).endsWith(QStringLiteral("— opened first")));
        QVERIFY2(
            chooser->toolTip().contains(QStringLiteral("encoding is its largest public function")),
            qPrintable(chooser->toolTip()));

        // End picks the last entry, as a user would from the keyboard.
        chooser->setFocus();
        QTest::keyClick(chooser, Qt::Key_End);
        const cleave::Graph &g = *w.document()->graph();
        QCOMPARE(g.function(w.document()->plan()->function()).name,
                 std::string("softmax_with_temperature"));
        QVERIFY(w.document()->isModified());
        // softmax_with_temperature: parameters logits and temperature, bindings lv121 =
        // R.divide and lv122 = R.nn.softmax (gv3 = lv122 is an alias): 4 nodes drawn.
        QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
        QCOMPARE(nodeItemCount(w.canvas()), 4);

        keyOnWindow(w, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(g.function(w.document()->plan()->function()).name, std::string("encoding"));
        QCOMPARE(chooser->currentIndex(), 0);
        keyOnWindow(w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(chooser->currentIndex(), 3);
        QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
        QCOMPARE(nodeItemCount(w.canvas()), 4);
        QVERIFY(w.saveProject(dir.filePath(QStringLiteral("llama.cleave"))));
    }
    MainWindow w;
    openAndWait(w, dir.filePath(QStringLiteral("llama.cleave")));
    QCOMPARE(w.document()->graph()->function(w.document()->plan()->function()).name,
             std::string("softmax_with_temperature"));
    QCOMPARE(nodeItemCount(w.canvas()), 4);
    QCOMPARE(w.findChild<FunctionChooser *>(QStringLiteral("functionChooser"))->currentIndex(), 3);
}

void TestCostTargets::diagnosticFixMarksParameter()
{
    // %scale has the shape of the data it scales, so nothing says it is a weight: read on
    // both sides of the cut, the export would forward it through stage0.
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("scaled.relay"));
    QVERIFY(writeText(model, R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %scale: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %0 = multiply(%x, %scale) /* ty=Tensor[(1, 8), float32] */;
  %1 = nn.relu(%0) /* ty=Tensor[(1, 8), float32] */;
  multiply(%1, %scale) /* ty=Tensor[(1, 8), float32] */
}
)"));
    MainWindow w;
    openAndWait(w, model);
    const cleave::Graph &g = *w.document()->graph();
    NodeId last;
    for (NodeId n : g.function(g.mainFunction()).nodes) {
        if (g.node(n).isOperator() && g.node(n).op == "multiply" && n != key(w, "%0"))
            last = n;
    }
    QVERIFY(last.isValid());
    strokeAcross(w, key(w, "%1"), last);
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));
    int row = rowWithCode(w, "pipeline.routed_input");
    QVERIFY(row >= 0);

    // The row's context menu offers the fix; applying it removes the finding.
    DiagnosticsDock *dock = w.diagnosticsDock();
    dock->show();
    dock->raise();
    QTableView *view = dock->view();
    QTRY_VERIFY(view->isVisible());
    const QPoint at = view->visualRect(view->model()->index(row, 2)).center();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(dock->fixButton()->text(), QStringLiteral("Fix: Treat scale as a parameter"));
    QVERIFY(dock->fixButton()->isEnabled());
    QContextMenuEvent menuEvent(QContextMenuEvent::Mouse, at, view->viewport()->mapToGlobal(at));
    QApplication::sendEvent(view->viewport(), &menuEvent);
    QTRY_VERIFY(QApplication::activePopupWidget() != nullptr);
    auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
    QVERIFY(menu);
    auto *apply = menu->findChild<QAction *>(QStringLiteral("applyFixAction"));
    QVERIFY(apply);
    QCOMPARE(apply->text(), QStringLiteral("Treat scale as a parameter"));
    QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(apply).center());
    QCOMPARE(rowWithCode(w, "pipeline.routed_input"), -1);
    QCOMPARE(w.document()->settings().params, std::vector<std::string> { "scale" });
    QVERIFY(w.document()->isModified());

    // Undo brings the finding back; the Fix button applies it again.
    keyOnWindow(w, Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(w.document()->settings().params.empty());
    row = rowWithCode(w, "pipeline.routed_input");
    QVERIFY(row >= 0);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                      view->visualRect(view->model()->index(row, 2)).center());
    click(dock->fixButton());
    QCOMPARE(rowWithCode(w, "pipeline.routed_input"), -1);
    QCOMPARE(w.document()->settings().params, std::vector<std::string> { "scale" });

    // The export feeds scale to both modules as a parameter, never through the data path.
    ExportDialog *dialog = w.showExportDialog();
    QVERIFY(dialog);
    const QString out = dir.filePath(QStringLiteral("out"));
    dialog->setFolder(out);
    click(dialog->exportButton());
    QVERIFY2(dialog->verified(), qPrintable(dialog->summary()->toPlainText()));
    const nlohmann::json config = nlohmann::json::parse(
        readText(out + QStringLiteral("/pipeline_config.json")).toStdString());
    QCOMPARE(config["param_connection"].dump(),
             std::string("[{\"global_param_name\":\"scale@mod0\",\"mod_idx\":0},"
                         "{\"global_param_name\":\"scale@mod1\",\"mod_idx\":1}]"));
    QCOMPARE(config["input_connection"].dump(),
             std::string("[{\"global_interface_name\":\"x\",\"mod_idx\":0,"
                         "\"module_interface_name\":\"x\"}]"));
    // Lifting constants, ticked in the export dialog, is a project setting too.
    auto *lift = child<QCheckBox>(dialog, "exportLiftConstants");
    QVERIFY(!lift->isChecked());
    click(lift);
    QVERIFY(w.document()->settings().liftConstants);
    QCOMPARE(dialog->options().liftConstants, true);
    QCOMPARE(dialog->options().params, std::vector<std::string> { "scale" });
    dialog->close();

    // Saved with the project.
    const QString project = dir.filePath(QStringLiteral("scaled.cleave"));
    QVERIFY(w.saveProject(project));
    MainWindow reopened;
    openAndWait(reopened, project);
    QCOMPARE(reopened.document()->settings().params, std::vector<std::string> { "scale" });
    QVERIFY(reopened.document()->settings().liftConstants);
    QCOMPARE(rowWithCode(reopened, "pipeline.routed_input"), -1);
}

// Model ▸ Measure on This Machine… on the ONNX sample: ONNX Runtime's profiler runs in a separate
// process, and its table becomes the document's latency table in one undo step: every operator
// node gets a measured time (> 0 µs). A cancelled second run keeps the table and its file as they
// were. Disabled for a Relay model (measuring runs ONNX models).
void TestCostTargets::measureLoadsTableAsOneUndoStep()
{
    std::string tried;
    if (cleave::findPythonWith("onnxruntime, onnx, numpy", tried).empty())
        QSKIP(qPrintable(QStringLiteral("no Python with onnxruntime (tried %1): run "
                                        "packaging/pydeps.sh")
                             .arg(QString::fromStdString(tried))));
    QTemporaryDir dir;
    const QString table = dir.filePath(QStringLiteral("measured.json"));
    MainWindow w;
    openAndWait(w, stopFusion);
    QVERIFY(!w.findChild<QAction *>(QStringLiteral("measureAction"))->isEnabled());
    openAndWait(w, QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet_inception.onnx")));
    QVERIFY(clickModelAction(w, "measureAction"));
    MeasureDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = w.findChild<MeasureDialog *>(QStringLiteral("measureDialog"))));
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    // The default goes beside the model.
    QVERIFY2(
        dialog->outputPath().endsWith(QStringLiteral("/samples/resnet_inception.latency.json")),
        qPrintable(dialog->outputPath()));
    typeInto(child<QLineEdit>(dialog, "measureOutput"), table);
    typeInto(child<QSpinBox>(dialog, "measureRuns"), QStringLiteral("3"));
    QCOMPARE(dialog->outputPath(), table);
    QUndoStack *undo = w.document()->undoStack();
    const int steps = undo->count();
    // Enter in the dialog measures (Measure is its default button, not Close).
    QTest::keyClick(child<QLineEdit>(dialog, "measureOutput"), Qt::Key_Return);
    QVERIFY(dialog->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isRunning(), 120000);
    QVERIFY2(w.document()->settings().latency != nullptr, qPrintable(dialog->statusText()));
    QCOMPARE(QString::fromStdString(w.document()->settings().latencyPath), table);
    QCOMPARE(undo->count(), steps + 1);
    const cleave::Graph &g = *w.document()->graph();
    const cleave::LatencyTable &measured = *w.document()->settings().latency;
    int operators = 0;
    for (cleave::NodeId n : g.function(g.mainFunction()).nodes) {
        if (!g.node(n).isOperator())
            continue;
        ++operators;
        const auto us = measured.latency(g, n);
        QVERIFY2(us && *us > 0, g.key(n).c_str());
    }
    QCOMPARE(operators, 40); // the sample's 40 ONNX nodes (samples/gen_onnx_sample.py)
    QVERIFY(measured.calibration().has_value());
    QVERIFY(dialog->statusText().contains(QStringLiteral("Measured 40 nodes")));
    undo->undo();
    QVERIFY(!w.document()->settings().latency);
    undo->redo();
    QVERIFY(w.document()->settings().latency != nullptr);

    // A long run, cancelled: the table and its file stay as they were.
    const QByteArray before = readText(table);
    const auto loaded = w.document()->settings().latency;
    typeInto(child<QSpinBox>(dialog, "measureRuns"), QStringLiteral("10000"));
    answerMessageBox(QMessageBox::Yes); // "measured.json exists. Replace it?"
    click(child<QPushButton>(dialog, "measureStart"));
    QTRY_VERIFY_WITH_TIMEOUT(child<QProgressBar>(dialog, "measureProgress")->isVisible(), 60000);
    click(child<QPushButton>(dialog, "measureCancel"));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isRunning(), 30000);
    QVERIFY2(dialog->statusText().contains(QStringLiteral("cancelled")),
             qPrintable(dialog->statusText()));
    QCOMPARE(readText(table), before);
    QCOMPARE(w.document()->settings().latency, loaded);
    QCOMPARE(undo->count(), steps + 1);
}

// Balance ▸ Load Run Report…: the JSON an export's run_pipeline.py --bench writes puts each
// stage's measured time beside the predicted one (matched by name), with the measured bottleneck
// and the pipelining gain; a report of another plan says so; a broken one is refused with its
// position; Clear takes it away.
void TestCostTargets::runReportBesidePrediction()
{
    QTemporaryDir dir;
    MainWindow w;
    openAndWait(w, stopFusion);
    strokeAcross(w, key(w, "%7"), key(w, "%8"));
    const cleave::PartitionPlan *plan = w.document()->plan();
    QCOMPARE(plan->partitionCount(), std::size_t(2));
    const QString first = QString::fromStdString(plan->partitions()[0].name);
    const QString second = QString::fromStdString(plan->partitions()[1].name);
    auto *balance = w.findChild<BalanceDock *>();
    QVERIFY(balance);
    balance->show();
    balance->raise();
    QTRY_VERIFY(child<QPushButton>(balance, "loadRunReportButton")->isVisible());

    const QString report = dir.filePath(QStringLiteral("bench.json"));
    QVERIFY(writeText(report,
                      QStringLiteral(R"({"cleave_run": 1, "runtime": "onnxruntime",
        "runtime_version": "1.30.0", "mode": "threads", "host": "lab", "items": 20,
        "stages": [{"name": "%1", "measured_us": 123.5, "predicted_us": 100.0},
                   {"name": "%2", "measured_us": 456.5, "predicted_us": 400.0}],
        "bottleneck": "%2", "bottleneck_us": 456.5, "whole_us": 560.0,
        "throughput_per_s": 2000.0, "whole_throughput_per_s": 1000.0})")
                          .arg(first, second)
                          .toUtf8()));
    answerFileDialog(report);
    click(child<QPushButton>(balance, "loadRunReportButton"));
    QTRY_VERIFY(!balance->runReportText().isEmpty());
    const auto &bars = balance->chart()->bars();
    QCOMPARE(bars.size(), std::size_t(2));
    QCOMPARE(bars[0].measuredUs.value_or(-1), 123.5);
    QCOMPARE(bars[1].measuredUs.value_or(-1), 456.5);
    const QString text = balance->runReportText();
    QVERIFY2(text.contains(QStringLiteral("onnxruntime 1.30.0, threads, lab")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("bottleneck 456.5 µs (%1)").arg(second)),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2000.0 inferences/s, 2.00× the whole model")),
             qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("another plan")));

    // A report of other stages: nothing matches, and the dock says so.
    const QString other = dir.filePath(QStringLiteral("other.json"));
    QVERIFY(writeText(other, R"({"stages": [{"name": "a", "measured_us": 1.0}]})"));
    QVERIFY(balance->loadRunReport(other));
    // A stage without its time: refused where it is (line 2, its object at column 3).
    const QString partial = dir.filePath(QStringLiteral("partial.json"));
    QVERIFY(writeText(partial, "{\"stages\": [\n  {\"name\": \"a\"}, {\"name\": \"b\"}]}\n"));
    QVERIFY(!balance->loadRunReport(partial));
    QVERIFY2(child<QLabel>(balance, "balanceRunSummary")
                 ->text()
                 .contains(QStringLiteral("partial.json:2:3: error: stage 0 needs a \"name\"")),
             qPrintable(child<QLabel>(balance, "balanceRunSummary")->text()));
    QVERIFY(balance->loadRunReport(other));
    QVERIFY(!balance->chart()->bars()[0].measuredUs.has_value());
    QVERIFY2(balance->runReportText().contains(QStringLiteral("names 0 of the plan's 2 stages")),
             qPrintable(balance->runReportText()));

    // Broken JSON: refused with its position; the previous report stays.
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QVERIFY(writeText(broken, "{\"stages\": [\n  {\"name\": }]}\n"));
    answerFileDialog(broken);
    click(child<QPushButton>(balance, "loadRunReportButton"));
    QTRY_VERIFY(child<QLabel>(balance, "balanceRunSummary")
                    ->text()
                    .contains(QStringLiteral("broken.json:2:")));

    click(child<QPushButton>(balance, "clearRunReportButton"));
    QVERIFY(balance->runReportText().isEmpty());
    QVERIFY(!balance->chart()->bars()[0].measuredUs.has_value());
}

QTEST_MAIN(TestCostTargets)
#include "tst_costtargets.moc"
