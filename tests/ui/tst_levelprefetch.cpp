// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The Fused Blocks level is prepared in the background once a model is shown: Ctrl+2 then
// shows the prepared block graph without a new layout and keeps the focused node in place,
// Ctrl+1 comes back without one either; another model or an expanded block is never shown
// from a stale preparation; a model whose blocks are all single operators prepares nothing.
#include "TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/document/Document.h"
#include "ui/document/LevelPrefetch.h"
#include "ui/document/LevelView.h"

#include <QAction>
#include <QApplication>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using cleave::NodeId;
using cleave::ui::LevelView;
using cleave::ui::MainWindow;

namespace {

// Two dense layers: FuseOps puts each dense (OutEWiseFusable) and the elementwise ops after it
// into one kernel, {%0 %1} and {%2 %3 %4}. Drawn: 3 parameters + 5 operators at Operators
// level, 3 parameters + 2 blocks at Fused Blocks level.
const char *twoDense = "#[version = \"0.0.5\"]\n"
                       "def @main(%x: Tensor[(1, 16), float32], %w1: Tensor[(16, 16), float32],\n"
                       "          %w2: Tensor[(16, 16), float32]) {\n"
                       "  %0 = nn.dense(%x, %w1, units=16);\n"
                       "  %1 = nn.relu(%0);\n"
                       "  %2 = nn.dense(%1, %w2, units=16);\n"
                       "  %3 = sigmoid(%2);\n"
                       "  %4 = exp(%3);\n"
                       "  %4\n"
                       "}\n";

// A dense with two elementwise ops, then a softmax (OutEWiseFusable: it starts a kernel of
// its own, the sigmoid's group being a dense's): {%0 %1 %2} and {%3}. Drawn: 2 parameters + 4
// operators, or 2 parameters + 2 blocks; with the first block expanded, 2 + 3 + 1.
const char *denseSoftmax
    = "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 16), float32], %w: Tensor[(16, 16), float32]) {\n"
      "  %0 = nn.dense(%x, %w, units=16);\n"
      "  %1 = nn.relu(%0);\n"
      "  %2 = sigmoid(%1);\n"
      "  %3 = nn.softmax(%2);\n"
      "  %3\n"
      "}\n";

// Two dense layers back to back: two kernels of one operator each, the same drawing at both
// levels.
const char *singleOps = "#[version = \"0.0.5\"]\n"
                        "def @main(%x: Tensor[(1, 16), float32], %w1: Tensor[(16, 16), float32],\n"
                        "          %w2: Tensor[(16, 16), float32]) {\n"
                        "  %0 = nn.dense(%x, %w1, units=16);\n"
                        "  %1 = nn.dense(%0, %w2, units=16);\n"
                        "  %1\n"
                        "}\n";

// The node items in the canvas' scene.
int drawnNodes(const MainWindow &window)
{
    window.canvas()->makeAllItems();
    const QList<QGraphicsItem *> items = window.canvas()->view()->scene()->items();
    return static_cast<int>(std::count_if(items.begin(), items.end(), [](QGraphicsItem *item) {
        return qgraphicsitem_cast<cleave::ui::NodeItem *>(item) != nullptr;
    }));
}

bool near(const QPoint &a, const QPoint &b, int tolerance)
{
    return std::abs(a.x() - b.x()) <= tolerance && std::abs(a.y() - b.y()) <= tolerance;
}

QString where(const QPoint &p)
{
    return QStringLiteral("(%1, %2)").arg(p.x()).arg(p.y());
}

} // namespace

class TestLevelPrefetch : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void switchTakesPreparedLevel();
    void anotherModelIsPreparedAgain();
    void expandedBlockIsNotTakenFromPreparation();
    void singleOpBlocksPrepareNothing();

private:
    QString write(const char *name, const char *text);
    /// Shows `window` with no disk cache for layouts (each test lays out afresh) and waits
    /// until it is active.
    static void showWithoutDiskCache(MainWindow &window);
    /// Opens `path` in `window` and waits until it is drawn and its blocks are prepared.
    static void openAndPrepare(MainWindow &window, const QString &path);
    /// Writes `text` as `name`, shows `window` (showWithoutDiskCache) and opens it there
    /// (openAndPrepare).
    void showAndPrepare(MainWindow &window, const char *name, const char *text);

    QTemporaryDir m_dir;
};

void TestLevelPrefetch::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_levelprefetch"));
    QSettings().clear();
    QVERIFY(m_dir.isValid());
}

QString TestLevelPrefetch::write(const char *name, const char *text)
{
    const QString path = m_dir.filePath(QString::fromLatin1(name));
    return cleave::test::writeAll(path, text) ? path : QString();
}

void TestLevelPrefetch::showWithoutDiskCache(MainWindow &window)
{
    window.canvas()->setCacheDirectory({});
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
}

void TestLevelPrefetch::openAndPrepare(MainWindow &window, const QString &path)
{
    QVERIFY(window.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(window.levelView()->isBlocksPrepared(), 30000);
}

void TestLevelPrefetch::showAndPrepare(MainWindow &window, const char *name, const char *text)
{
    const QString path = write(name, text);
    QVERIFY(!path.isEmpty());
    showWithoutDiskCache(window);
    if (QTest::currentTestFailed())
        return;
    openAndPrepare(window, path);
}

void TestLevelPrefetch::switchTakesPreparedLevel()
{
    MainWindow window;
    showAndPrepare(window, "two_dense.relay", twoDense);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(drawnNodes(window), 8);
    const cleave::ui::PreparedLevel *prepared = window.levelView()->preparedBlocks();
    QVERIFY(prepared->laidOut);
    QCOMPARE(prepared->blocks->kernelCount(), std::size_t(2));

    // Focus %3 (the sigmoid, inside the second block) as a user does: Ctrl+F, its id, Enter.
    const cleave::Graph &graph = *window.document()->graph();
    const NodeId sigmoid = graph.findByKey("%3");
    QVERIFY(sigmoid.isValid());
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    auto *field = window.findChild<QLineEdit *>(QStringLiteral("searchField"));
    QVERIFY(field && field->isVisible());
    QTest::keyClicks(field, QStringLiteral("%3"));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId> { sigmoid });
    QGraphicsView *view = window.canvas()->view();
    const QPoint before = window.canvas()->viewportPosOfNode(sigmoid);
    const qreal zoom = view->transform().m11();

    // Ctrl+2: the prepared block graph itself, drawn from memory (no layout started).
    QSignalSpy started(window.canvas(), &cleave::ui::CanvasWidget::layoutStarted);
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(window.level(), MainWindow::Level::Blocks);
    QCOMPARE(window.blockGraph(), prepared->blocks.get());
    // Its drawing opened at the place: the block is where %3 was before the items are all made
    // (this small graph's items are made at once, the selection follows on the next turn).
    const NodeId sigmoidBlock = window.levelView()->shownNodes({ sigmoid }).front();
    const QPoint opened = window.canvas()->viewportPosOfNode(sigmoidBlock);
    QVERIFY2(near(opened, before, 3),
             qPrintable(where(opened) + QStringLiteral(" vs ") + where(before)));
    QVERIFY(!window.canvas()->isLayoutReady());
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(started.count(), 0);
    QCOMPARE(drawnNodes(window), 5);
    // The block of %2 %3 %4, selected, where %3 was, at the same zoom.
    const std::vector<NodeId> selected = window.canvas()->selectedNodes();
    QCOMPARE(selected.size(), std::size_t(1));
    QCOMPARE(window.blockGraph()->originalNodes(selected.front()),
             (std::vector<NodeId> { graph.findByKey("%2"), sigmoid, graph.findByKey("%4") }));
    const QPoint blockPos = window.canvas()->viewportPosOfNode(selected.front());
    QVERIFY2(near(blockPos, before, 3),
             qPrintable(where(blockPos) + QStringLiteral(" vs ") + where(before)));
    QCOMPARE(view->transform().m11(), zoom);

    // Ctrl+1: the operators' layout is still in memory; %3 itself again, in its place.
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(window.level(), MainWindow::Level::Ops);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(started.count(), 0);
    QCOMPARE(drawnNodes(window), 8);
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId> { sigmoid });
    const QPoint back = window.canvas()->viewportPosOfNode(sigmoid);
    QVERIFY2(near(back, before, 3),
             qPrintable(where(back) + QStringLiteral(" vs ") + where(before)));

    // And Ctrl+2 again: the same prepared level, still without a layout.
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(window.blockGraph(), prepared->blocks.get());
    QCOMPARE(started.count(), 0);
    QCOMPARE(drawnNodes(window), 5);
}

void TestLevelPrefetch::anotherModelIsPreparedAgain()
{
    const QString first = write("two_dense.relay", twoDense);
    const QString second = write("dense_softmax.relay", denseSoftmax);
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    MainWindow window;
    showWithoutDiskCache(window);
    if (QTest::currentTestFailed())
        return;
    openAndPrepare(window, first);
    if (QTest::currentTestFailed())
        return;
    const std::shared_ptr<const cleave::BlockGraph> stale
        = window.levelView()->preparedBlocks()->blocks;

    // Another model: what was prepared for the first one is dropped, the second's is prepared.
    QVERIFY(window.openFile(second));
    QVERIFY(window.levelView()->preparedBlocks() == nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(window.levelView()->isBlocksPrepared(), 30000);
    const cleave::ui::PreparedLevel *prepared = window.levelView()->preparedBlocks();
    QVERIFY(prepared->blocks != stale);
    QCOMPARE(prepared->source.get(), window.document()->graph());
    QCOMPARE(drawnNodes(window), 6);

    QSignalSpy started(window.canvas(), &cleave::ui::CanvasWidget::layoutStarted);
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(started.count(), 0);
    QCOMPARE(window.blockGraph(), prepared->blocks.get());
    QCOMPARE(drawnNodes(window), 4);
    const cleave::Graph &graph = *window.document()->graph();
    const NodeId softmax = window.levelView()->shownNodes({ graph.findByKey("%3") }).front();
    QCOMPARE(window.blockGraph()->originalNodes(softmax),
             std::vector<NodeId> { graph.findByKey("%3") });
}

void TestLevelPrefetch::expandedBlockIsNotTakenFromPreparation()
{
    MainWindow window;
    showAndPrepare(window, "dense_softmax.relay", denseSoftmax);
    if (QTest::currentTestFailed())
        return;
    const cleave::Graph &graph = *window.document()->graph();
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(drawnNodes(window), 4);

    // Double-click the block {%0 %1 %2}: it opens in place into its three operators.
    const NodeId block = window.levelView()->shownNodes({ graph.findByKey("%1") }).front();
    const QPoint pos = window.canvas()->viewportPosOfNode(block);
    QVERIFY(!pos.isNull());
    QTest::mouseDClick(window.canvas()->view()->viewport(), Qt::LeftButton, {}, pos);
    QVERIFY(window.levelView()->hasExpandedBlocks());
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(drawnNodes(window), 6);

    // Operators and back: the expanded block stays open, not the prepared (collapsed) level.
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QVERIFY(window.blockGraph() != window.levelView()->preparedBlocks()->blocks.get());
    QCOMPARE(drawnNodes(window), 6);

    // Collapse All: the prepared level again, laid out already.
    QSignalSpy started(window.canvas(), &cleave::ui::CanvasWidget::layoutStarted);
    auto *collapse = window.findChild<QAction *>(QStringLiteral("collapseBlocksAction"));
    QVERIFY(collapse && collapse->isEnabled());
    collapse->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(window.blockGraph(), window.levelView()->preparedBlocks()->blocks.get());
    QCOMPARE(started.count(), 0);
    QCOMPARE(drawnNodes(window), 4);
}

void TestLevelPrefetch::singleOpBlocksPrepareNothing()
{
    const QString path = write("single_ops.relay", singleOps);
    QVERIFY(!path.isEmpty());
    MainWindow window;
    showWithoutDiskCache(window);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(window.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(window.document()->blocks().size(), std::size_t(2));
    QCOMPARE(drawnNodes(window), 5);
    // The first frame has been painted and the events after it handled: nothing was started.
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.canvas()->view()->viewport()->repaint();
    QTest::qWait(50);
    QVERIFY(!window.levelView()->prefetch()->isRunning());
    QVERIFY(!window.levelView()->isBlocksPrepared());
    QVERIFY(!window.levelView()->prepareBlocks(window.canvas()->layoutCache()));
}

QTEST_MAIN(TestLevelPrefetch)
#include "tst_levelprefetch.moc"
