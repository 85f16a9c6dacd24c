// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The level switch keeps the user's place: a node focused at Operators level is, after Ctrl+2,
// its fused block, selected, at the same spot of the viewport and the same zoom; Ctrl+1 brings
// back the node itself.
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/document/Document.h"

#include <QApplication>
#include <QDir>
#include <QGraphicsView>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include <algorithm>

using cleave::NodeId;
using cleave::ui::MainWindow;

namespace {

const QString resnet18 = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"));

// Within `tolerance` pixels on both axes.
bool near(const QPoint &a, const QPoint &b, int tolerance)
{
    return std::abs(a.x() - b.x()) <= tolerance && std::abs(a.y() - b.y()) <= tolerance;
}

QString where(const QPoint &p)
{
    return QStringLiteral("(%1, %2)").arg(p.x()).arg(p.y());
}

} // namespace

class TestLevelPlace : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void switchKeepsFocusedNode();
    void switchKeepsPlaceWithoutSelection();
};

void TestLevelPlace::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_levelplace"));
    QSettings().clear();
}

void TestLevelPlace::switchKeepsFocusedNode()
{
    MainWindow window;
    window.canvas()->setCacheDirectory({});
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.openFile(resnet18));
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    const cleave::Graph &graph = *window.document()->graph();
    // resnet18's first residual add %12 and the relu %13 reading it: FuseOps puts an
    // elementwise op into the block of the broadcast op it reads, so both are one kernel.
    const NodeId add = graph.findByKey("%12");
    const NodeId relu = graph.findByKey("%13");
    QVERIFY(add.isValid() && relu.isValid());

    // Focus %12 as a user does: Ctrl+F, its id, Enter.
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    auto *field = window.findChild<QLineEdit *>(QStringLiteral("searchField"));
    QVERIFY(field && field->isVisible());
    QTest::keyClicks(field, QStringLiteral("%12"));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId> { add });
    QGraphicsView *view = window.canvas()->view();
    const QPoint centre = view->viewport()->rect().center();
    QVERIFY2(near(window.canvas()->viewportPosOfNode(add), centre, 2),
             qPrintable(where(window.canvas()->viewportPosOfNode(add))));
    const qreal zoom = view->transform().m11();

    // Ctrl+2: the block holding %12 and %13, selected, where %12 was, at the same zoom.
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(window.level(), MainWindow::Level::Blocks);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    const std::vector<NodeId> blocks = window.canvas()->selectedNodes();
    QCOMPARE(blocks.size(), std::size_t(1));
    const std::vector<NodeId> members = window.blockGraph()->originalNodes(blocks.front());
    QVERIFY(std::find(members.begin(), members.end(), add) != members.end());
    QVERIFY(std::find(members.begin(), members.end(), relu) != members.end());
    const QPoint blockPos = window.canvas()->viewportPosOfNode(blocks.front());
    QVERIFY2(near(blockPos, centre, 3),
             qPrintable(where(blockPos) + QStringLiteral(" vs ") + where(centre)));
    QCOMPARE(view->transform().m11(), zoom);

    // Ctrl+1: %12 itself again (not its whole block), in the middle.
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(window.level(), MainWindow::Level::Ops);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId> { add });
    const QPoint back = window.canvas()->viewportPosOfNode(add);
    QVERIFY2(near(back, centre, 3),
             qPrintable(where(back) + QStringLiteral(" vs ") + where(centre)));
    QCOMPARE(view->transform().m11(), zoom);
}

void TestLevelPlace::switchKeepsPlaceWithoutSelection()
{
    MainWindow window;
    window.canvas()->setCacheDirectory({});
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.openFile(resnet18));
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    const cleave::Graph &graph = *window.document()->graph();
    // Scroll %13 (a relu, its block's last op) 100 px left and 50 px above the middle at zoom 1,
    // nothing selected.
    const NodeId relu = graph.findByKey("%13");
    QGraphicsView *view = window.canvas()->view();
    const QPoint spot = view->viewport()->rect().center() - QPoint(100, 50);
    window.canvas()->placeNode(relu, spot, 1.0);
    QVERIFY(window.canvas()->selectedNodes().empty());
    QVERIFY2(near(window.canvas()->viewportPosOfNode(relu), spot, 1),
             qPrintable(where(window.canvas()->viewportPosOfNode(relu))));
    // The place is the node nearest the middle of the view (whichever that is now).
    const NodeId nearest = window.canvas()->nodeNearViewportCentre();
    QVERIFY(nearest.isValid());
    const QPoint before = window.canvas()->viewportPosOfNode(nearest);

    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    // The block showing that node's operators sits where the node sat; nothing gets selected.
    const int block = window.document()->blockOf(nearest);
    QVERIFY(block >= 0);
    const std::vector<NodeId> shown = window.levelView()->shownNodes({ nearest });
    QCOMPARE(shown.size(), std::size_t(1));
    const QPoint after = window.canvas()->viewportPosOfNode(shown.front());
    QVERIFY2(near(after, before, 3),
             qPrintable(where(after) + QStringLiteral(" vs ") + where(before)));
    QVERIFY(window.canvas()->selectedNodes().empty());
    QCOMPARE(view->transform().m11(), 1.0);
}

QTEST_MAIN(TestLevelPlace)
#include "tst_levelplace.moc"
