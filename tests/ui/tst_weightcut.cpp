// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// A cut drawn with the mouse on a model whose weights arrive as inputs (SAM ViT-H, Relax) moves
// what --cut-after at the same layer moves; the module opens its largest public function; the
// implied edges of a cut read as one expandable row in Diagnostics.
#include "CanvasStroke.h"
#include "SceneItems.h"
#include "TestSupport.h"
#include "TiedWeights.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/docks/DiagnosticsDock.h"
#include "ui/document/Document.h"
#include "ui/models/DiagnosticListModel.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest/QtTest>

using namespace cleave;
using namespace cleave::ui;

namespace {

std::int64_t boundaryBytes(const BoundaryTable &boundary)
{
    std::int64_t bytes = 0;
    for (const PartitionInterface &i : boundary.interfaces)
        bytes += i.bytesOut;
    return bytes;
}

} // namespace

class TestWeightCut : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void samStrokeMovesWhatCutAfterMoves();
    void impliedEdgesAreOneExpandableRow();
    void tiedWeightIsRecomputedOnTheCanvas();

private:
    void openAndWait(MainWindow &w, const QString &path);
};

void TestWeightCut::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_weightcut"));
}

void TestWeightCut::openAndWait(MainWindow &w, const QString &path)
{
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 120000);
}

void TestWeightCut::samStrokeMovesWhatCutAfterMoves()
{
    const QString path = test::corpusDir("relax").filePath(
        QStringLiteral("sam-vit-h_pytorch_metadata_2023.relax.py"));
    if (!QFile::exists(path))
        QSKIP("the SAM ViT-H corpus module is missing");
    MainWindow w;
    openAndWait(w, path);
    const Graph &g = *w.document()->graph();
    // No main: forward (2,787 ops) opens, not _initialize_effect, and the chooser says why.
    QCOMPARE(g.function(w.document()->plan()->function()).name, std::string("forward"));
    auto *chooser = w.findChild<QComboBox *>(QStringLiteral("functionChooser"));
    QVERIFY(chooser);
    QVERIFY(chooser->currentText().startsWith(QLatin1String("forward (2787 ops)")));
    QVERIFY2(chooser->toolTip().contains(QLatin1String("largest public function")),
             qPrintable(chooser->toolTip()));

    // A stroke across the edge leaving add507 (the residual add closing vision block 17) into
    // the next block's layer norm.
    const NodeId add507 = test::node(g, "@forward:add507");
    const NodeId norm99 = test::node(g, "@forward:layer_norm99");
    QTest::keyClick(&w, Qt::Key_C);
    QVERIFY(test::strokeAcrossEdge(w.canvas(), add507, norm99));
    QTest::keyClick(&w, Qt::Key_V);
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));

    // --cut-after at the same add (the 180th R.add of forward), in the engine.
    PartitionPlan cutAfter(g, w.document()->plan()->function());
    cutAfter.cutAfterOp("relax.add", 179);
    const std::int64_t expected = 1LL * 64 * 64 * 1280 * 4; // add507: 1×64×64×1280 float32
    QCOMPARE(boundaryBytes(computeBoundary(cutAfter)), expected);
    const std::int64_t drawn = boundaryBytes(w.document()->boundary());
    QVERIFY2(
        drawn >= expected * 9 / 10 && drawn <= expected * 11 / 10,
        qPrintable(
            QStringLiteral("the stroke moves %1 B, --cut-after %2 B").arg(drawn).arg(expected)));
    // Weights stay where they are read: no stage reads a weight through the boundary.
    QCOMPARE(w.diagnosticsDock()->model()->findCode(QStringLiteral("partition.weight_crossing")),
             -1);
    QVERIFY(!w.findChild<QLabel *>(QStringLiteral("statusValidation"))
                 ->text()
                 .contains(QLatin1String("implied cuts move")));
}

void TestWeightCut::impliedEdgesAreOneExpandableRow()
{
    MainWindow w;
    openAndWait(w, QStringLiteral(CLEAVE_SAMPLES_DIR "/inception_block.relay"));
    const Graph &g = *w.document()->graph();
    // A stroke across the first branch's edge into the tuple %25 that the concatenation reads:
    // the other three branches (%22: 1×128×56×56, %23 and %24: 1×32×56×56 float32) are severed
    // too without being crossed: 3 implied edges, 1,605,632 + 2 × 401,408 B = 2.3 MiB.
    QTest::keyClick(&w, Qt::Key_C);
    QVERIFY(test::strokeAcrossEdge(w.canvas(), test::node(g, "%21"), test::node(g, "%25")));
    QTest::keyClick(&w, Qt::Key_V);
    QCOMPARE(w.document()->plan()->partitionCount(), std::size_t(2));
    DiagnosticListModel *model = w.diagnosticsDock()->model();
    const int group = model->findCode(QStringLiteral("partition.implied_edges"));
    QVERIFY(model->isGroupRow(group));
    const QString message
        = model->data(model->index(group, DiagnosticListModel::MessageColumn)).toString();
    QVERIFY2(message.startsWith(QStringLiteral("▸ 3 edges also cut (implied")),
             qPrintable(message));
    QVERIFY2(message.endsWith(QLatin1String("3 tensors, 2.3 MiB")), qPrintable(message));
    // Collapsed, the three edges are hidden behind it; activating the row (Enter) shows them.
    QCOMPARE(model->findCode(QStringLiteral("partition.implied_edge")), -1);
    const int collapsed = model->rowCount();
    QAbstractItemView *view = w.diagnosticsDock()->findChild<QAbstractItemView *>();
    QVERIFY(view);
    view->setCurrentIndex(model->index(group, DiagnosticListModel::MessageColumn));
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Return);
    QVERIFY(model->isGroupExpanded());
    QCOMPARE(model->rowCount(), collapsed + 3);
    QCOMPARE(model->findCode(QStringLiteral("partition.implied_edge")), group + 1);
}

void TestWeightCut::tiedWeightIsRecomputedOnTheCanvas()
{
    // One transposed, scaled weight %1 read by three dense layers (ALBERT-style tying).
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("tied.relay"));
    QVERIFY(test::writeAll(path, test::tiedWeightsRelay));
    MainWindow w;
    openAndWait(w, path);
    const Graph &g = *w.document()->graph();
    // Two strokes between the layers: three stages, and %1 stays with its first reader %2.
    QTest::keyClick(&w, Qt::Key_C);
    QVERIFY(test::strokeAcrossEdge(w.canvas(), test::node(g, "%3"), test::node(g, "%4")));
    QVERIFY(test::strokeAcrossEdge(w.canvas(), test::node(g, "%5"), test::node(g, "%6")));
    QTest::keyClick(&w, Qt::Key_V);
    const PartitionPlan &plan = *w.document()->plan();
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    // Only the two 1x8 float32 activations cross (32 B each); stage1 and stage2 compute %1
    // again rather than receive its 256 B.
    QCOMPARE(boundaryBytes(w.document()->boundary()), std::int64_t(64));
    QVERIFY(w.diagnosticsDock()->model()->findCode(QStringLiteral("partition.weight_duplicated"))
            >= 0);
    // The canvas says it on the edges %1 -> %4 and %1 -> %6, which keep their normal stroke.
    std::map<std::pair<NodeId, NodeId>, QString> recomputed;
    for (const BadgeItem *badge : test::itemsOf<BadgeItem>(w.canvas()->view()->scene())) {
        if (badge->text().contains(QLatin1String("recomputed")))
            recomputed[{ badge->edge().tensor.node, badge->edge().consumer }] = badge->text();
    }
    const std::map<std::pair<NodeId, NodeId>, QString> expected {
        { { test::node(g, "%1"), test::node(g, "%4") }, QStringLiteral("%1 recomputed in stage1") },
        { { test::node(g, "%1"), test::node(g, "%6") }, QStringLiteral("%1 recomputed in stage2") },
    };
    QCOMPARE(recomputed, expected);
    for (const EdgeItem *edge : test::itemsOf<EdgeItem>(w.canvas()->view()->scene())) {
        if (edge->edge().tensor.node == test::node(g, "%1"))
            QVERIFY(!edge->boundaryColour().isValid());
        if (edge->edge().tensor.node == test::node(g, "%3"))
            QVERIFY(edge->boundaryColour().isValid()); // a real crossing: bold
    }
}

QTEST_MAIN(TestWeightCut)
#include "tst_weightcut.moc"
