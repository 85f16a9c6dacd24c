// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Partition ▸ Auto-partition… and the Balance dock, driven like a user: open ResNet-18, fill
// in the dialog with the keyboard, click Run, check the plan and the chart's bars against the
// hand computation of tst_auto, edit by hand and see the bars follow, undo the whole proposal.
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/commands/MergePartitions.h"
#include "ui/dialogs/AutoPartitionDialog.h"
#include "ui/docks/BalanceDock.h"
#include "ui/document/Document.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

using namespace cleave;
using namespace cleave::ui;

namespace {

/// Replaces a line edit's text with typed keys.
void typeInto(QWidget *edit, const QString &text)
{
    QTest::mouseClick(edit, Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

std::vector<std::string> convsOf(const PartitionPlan &plan, std::size_t index)
{
    std::vector<std::string> keys;
    for (NodeId n : plan.nodesOf(plan.partitions()[index].id)) {
        if (plan.graph().node(n).op == "nn.conv2d")
            keys.push_back(plan.graph().key(n));
    }
    return keys;
}

} // namespace

class TestAutoUi : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void autoPartitionThroughTheDialog();
    void browseFillsTheFilePaths();
};

void TestAutoUi::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_auto_ui"));
    QSettings().clear();
}

void TestAutoUi::autoPartitionThroughTheDialog()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.openFile(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay")));
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    Document *doc = w.document();
    QCOMPARE(doc->plan()->partitionCount(), std::size_t { 1 });
    const int undoBefore = doc->undoStack()->count();

    auto *balance = w.findChild<BalanceDock *>(QStringLiteral("balanceDock"));
    QVERIFY(balance);
    QCOMPARE(balance->chart()->bars().size(), std::size_t { 1 });

    auto *action = w.findChild<QAction *>(QStringLiteral("autoPartitionAction"));
    QVERIFY(action);
    action->trigger();
    AutoPartitionDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = w.findChild<AutoPartitionDialog *>()) != nullptr && dialog->isVisible());

    auto *stages = dialog->findChild<QSpinBox *>(QStringLiteral("stagesSpin"));
    typeInto(stages, QStringLiteral("3"));
    QCOMPARE(stages->value(), 3);
    typeInto(dialog->findChild<QLineEdit *>(QStringLiteral("latencyEdit")),
             QStringLiteral(CLEAVE_TESTDATA_DIR "/auto/resnet18_latency.json"));
    typeInto(dialog->findChild<QLineEdit *>(QStringLiteral("bandwidthEdit")),
             QStringLiteral("1e9"));
    typeInto(dialog->findChild<QLineEdit *>(QStringLiteral("linkLatencyEdit")),
             QStringLiteral("10"));
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("runButton")),
                      Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(w.findChild<AutoPartitionDialog *>() == nullptr, 30000);

    // The plan of the hand computation (tst_auto::resnet18ThreeStagesByHand).
    const PartitionPlan &plan = *doc->plan();
    QCOMPARE(plan.partitionCount(), std::size_t { 3 });
    QCOMPARE(convsOf(plan, 0),
             (std::vector<std::string> { "%0", "%5", "%9", "%14", "%18", "%23", "%29" }));
    QCOMPARE(convsOf(plan, 1),
             (std::vector<std::string> { "%27", "%35", "%39", "%44", "%48", "%50" }));
    QCOMPARE(convsOf(plan, 2),
             (std::vector<std::string> { "%56", "%60", "%65", "%69", "%71", "%77", "%81" }));
    QCOMPARE(doc->undoStack()->count(), undoBefore + 1);

    // The chart: compute 700 / 600 / 700 µs; transfers in: none, two tensors (2 x 10 µs +
    // 802816 bytes at 10^18 B/s), one tensor (10 µs + 200704 bytes); the last is the bottleneck.
    const std::vector<StageBar> &bars = balance->chart()->bars();
    QCOMPARE(bars.size(), std::size_t { 3 });
    QCOMPARE(bars[0].computeUs, 700.0);
    QCOMPARE(bars[1].computeUs, 600.0);
    QCOMPARE(bars[2].computeUs, 700.0);
    QCOMPARE(bars[0].transferInUs, 0.0);
    QVERIFY(std::abs(bars[1].transferInUs - (20.0 + 802816e-12)) < 1e-9);
    QVERIFY(std::abs(bars[2].transferInUs - (10.0 + 200704e-12)) < 1e-9);
    QVERIFY(!bars[0].bottleneck && !bars[1].bottleneck && bars[2].bottleneck);
    // Stage 0 sends the two tensors stage 1 reads: its transfer out equals stage 1's in.
    QVERIFY(std::abs(bars[0].transferOutUs - bars[1].transferInUs) < 1e-9);

    // A hand edit (merging the last two stages, as the Partitions dock does) updates the bars
    // at once: 600 + 700 µs of compute, and the merged stage now receives only stage 0's two
    // tensors.
    doc->undoStack()->push(
        new MergePartitions(doc, { plan.partitions()[1].id, plan.partitions()[2].id }));
    QCOMPARE(balance->chart()->bars().size(), std::size_t { 2 });
    QCOMPARE(balance->chart()->bars()[1].computeUs, 1300.0);
    QVERIFY(std::abs(balance->chart()->bars()[1].transferInUs - (20.0 + 802816e-12)) < 1e-9);

    // Undo the merge, then the auto-partition: ONE step restores the one-partition plan.
    doc->undoStack()->undo();
    QCOMPARE(doc->plan()->partitionCount(), std::size_t { 3 });
    QCOMPARE(balance->chart()->bars().size(), std::size_t { 3 });
    doc->undoStack()->undo();
    QCOMPARE(doc->plan()->partitionCount(), std::size_t { 1 });
    QCOMPARE(doc->undoStack()->index(), undoBefore);
    QCOMPARE(balance->chart()->bars().size(), std::size_t { 1 });
    QCOMPARE(balance->chart()->bars()[0].computeUs, 2000.0);
    QCOMPARE(balance->chart()->bars()[0].transferInUs, 0.0);
    // Redo brings the proposal back.
    doc->undoStack()->redo();
    QCOMPARE(convsOf(*doc->plan(), 2).size(), std::size_t { 7 });
}

// Issue 32 (low): the dialog's device and latency fields have a Browse… button; the chooser
// starts in the model's folder and the picked file lands in the field.
void TestAutoUi::browseFillsTheFilePaths()
{
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.openFile(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay")));
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 30000);
    w.findChild<QAction *>(QStringLiteral("autoPartitionAction"))->trigger();
    AutoPartitionDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = w.findChild<AutoPartitionDialog *>()) != nullptr && dialog->isVisible());
    auto *browse = dialog->findChild<QPushButton *>(QStringLiteral("latencyEditBrowse"));
    QVERIFY(browse);
    QVERIFY(!browse->autoDefault());
    QVERIFY(dialog->findChild<QPushButton *>(QStringLiteral("devicesEditBrowse")));
    const QString picked = QStringLiteral(CLEAVE_TESTDATA_DIR "/auto/resnet18_latency.json");
    QString startedIn;
    QTimer::singleShot(0, this, [&] {
        auto *chooser = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
        QVERIFY(chooser);
        startedIn = chooser->directory().absolutePath();
        chooser->selectFile(picked);
        QMetaObject::invokeMethod(chooser, "accept"); // QFileDialog::accept is protected
    });
    QTest::mouseClick(browse, Qt::LeftButton);
    QCOMPARE(startedIn, QDir(QStringLiteral(CLEAVE_SAMPLES_DIR)).absolutePath());
    QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("latencyEdit"))->text(),
             QDir::toNativeSeparators(picked));
    dialog->reject();
}

QTEST_MAIN(TestAutoUi)
#include "tst_auto_ui.moc"
