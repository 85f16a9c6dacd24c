// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// File ▸ Compare with…, driven through the menu bar with the mouse: the sample against the
// copy with the three edits tst_cli_diff uses lists exactly those three nodes (what changed,
// before → after), rings exactly them on the canvas in the "changed" colour, focuses a node
// when its entry is clicked, and Clear removes list and rings. A copy with a node removed and
// one added shows each kind in its own colour.
#include "ModelEdits.h"
#include "TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/docks/CompareDock.h"
#include "ui/document/Document.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QGraphicsView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using cleave::NodeId;
using cleave::ui::CompareDock;
using cleave::ui::MainWindow;
using Kind = cleave::NodeDifference::Kind;

namespace {

const QString sample = QStringLiteral(CLEAVE_SAMPLES_DIR "/stop_fusion.relay");

QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &text)
{
    const QString path = dir.filePath(QLatin1String(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

void openAndWait(MainWindow &window, const QString &path)
{
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
}

/// Clicks `action` in the menu-bar menu titled `menuTitle` (both with the mouse).
void clickMenuAction(MainWindow &window, const QString &menuTitle, QAction *action)
{
    QMenuBar *bar = window.menuBar();
    QAction *menuAction = nullptr;
    for (QAction *a : bar->actions()) {
        if (a->text().remove(QLatin1Char('&')) == menuTitle)
            menuAction = a;
    }
    QVERIFY(menuAction);
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(menuAction).center());
    QTRY_VERIFY(QApplication::activePopupWidget() != nullptr);
    auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
    QVERIFY(menu);
    QVERIFY(menu->actions().contains(action));
    QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(action).center());
    QTRY_VERIFY(QApplication::activePopupWidget() == nullptr);
}

NodeId key(const MainWindow &window, const char *k)
{
    return cleave::test::node(*window.document()->graph(), k);
}

/// The nodes of the shown function that carry a ring, with its colour.
std::map<std::string, QColor> marks(const MainWindow &window)
{
    std::map<std::string, QColor> out;
    const cleave::Graph &graph = *window.document()->graph();
    for (NodeId n : graph.function(graph.mainFunction()).nodes) {
        const QColor mark = window.canvas()->nodeMark(n);
        if (mark.isValid())
            out.emplace(graph.key(n), mark);
    }
    return out;
}

void clickRow(QTreeWidget *list, QTreeWidgetItem *item)
{
    list->scrollToItem(item);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(item).center());
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void threeEditsListedRingedAndFocused();
    void removedAndAddedHaveTheirColours();
    void unreadableModelSaysWhy();
};

void TestCompare::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_compare"));
    QSettings().clear();
}

void TestCompare::threeEditsListedRingedAndFocused()
{
    QTemporaryDir dir;
    const QString copy
        = writeFile(dir, "edited.relay",
                    cleave::test::stopFusionWithThreeEdits(cleave::test::readFileOrAbort(sample)));
    MainWindow window;
    openAndWait(window, sample);
    CompareDock *dock = window.compareDock();
    QVERIFY(!dock->isVisible());
    int asked = 0;
    dock->setPathProvider([&] {
        ++asked;
        return copy;
    });
    clickMenuAction(window, QStringLiteral("File"), dock->compareAction());
    QCOMPARE(asked, 1);
    QVERIFY(dock->isVisible());

    // Exactly the three edited nodes, each with the one thing that changed.
    QTreeWidget *list = dock->list();
    QCOMPARE(list->topLevelItemCount(), 3);
    const struct
    {
        const char *key, *op, *what, *change;
    } expected[] = {
        { "%3", "sigmoid", "op", "nn.relu → sigmoid" },
        { "%22", "nn.global_avg_pool2d", "attribute layout", "(none) → \"NCHW\"" },
        { "%25", "nn.bias_add", "attribute axis", "-1 → 1" },
    };
    for (int i = 0; i < 3; ++i) {
        const QTreeWidgetItem *row = list->topLevelItem(i);
        QCOMPARE(row->text(0), QString::fromUtf8(expected[i].key));
        QCOMPARE(row->text(1), QString::fromUtf8(expected[i].op));
        QCOMPARE(row->text(2), QStringLiteral("changed"));
        QCOMPARE(row->childCount(), 1);
        QCOMPARE(row->child(0)->text(1), QString::fromUtf8(expected[i].what));
        QCOMPARE(row->child(0)->text(2), QString::fromUtf8(expected[i].change));
    }
    QCOMPARE(dock->legend(),
             QStringList({ QStringLiteral("added 0"), QStringLiteral("removed 0"),
                           QStringLiteral("changed 3") }));

    // Exactly those three ringed on the canvas, in the colour of "changed".
    const QColor changed = CompareDock::kindColour(Kind::Changed);
    QCOMPARE(changed, QColor(0x9b, 0x4d, 0xca));
    const std::map<std::string, QColor> ringed = marks(window);
    QCOMPARE(ringed.size(), std::size_t(3));
    QCOMPARE(ringed.at("%3"), changed);
    QCOMPARE(ringed.at("%22"), changed);
    QCOMPARE(ringed.at("%25"), changed);
    // An SVG export of the canvas carries the same three rings in that colour.
    QTemporaryDir svgDir;
    const QString svgPath = svgDir.filePath(QStringLiteral("compare.svg"));
    QString error;
    QVERIFY2(window.canvas()->exportImage(svgPath, &error), qPrintable(error));
    QFile svgFile(svgPath);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(svgFile.readAll());
    QCOMPARE(svg.count(QStringLiteral("class=\"mark\"")), 3);
    QCOMPARE(svg.count(QStringLiteral("stroke=\"#9b4dca\" stroke-width=\"3.5\"")), 3);

    // Clicking an entry selects its node and brings it into view.
    window.canvas()->view()->setTransform(QTransform::fromScale(1, 1));
    window.canvas()->view()->centerOn(-5000, -5000);
    clickRow(list, list->topLevelItem(1));
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId>({ key(window, "%22") }));
    const QPoint at = window.canvas()->viewportPosOfNode(key(window, "%22"));
    QVERIFY(window.canvas()->view()->viewport()->rect().contains(at));
    // A change row focuses its node too.
    clickRow(list, list->topLevelItem(0)->child(0));
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId>({ key(window, "%3") }));

    // Clear: no list, no rings.
    QTest::mouseClick(dock->clearButton(), Qt::LeftButton);
    QCOMPARE(list->topLevelItemCount(), 0);
    QVERIFY(marks(window).empty());
    QVERIFY(!dock->clearButton()->isEnabled());
    QCOMPARE(dock->legend(),
             QStringList({ QStringLiteral("added 0"), QStringLiteral("removed 0"),
                           QStringLiteral("changed 0") }));
}

void TestCompare::removedAndAddedHaveTheirColours()
{
    // %21 (a stop_fusion) removed, the pool reading %20 directly; a relu %26 added before the
    // softmax result.
    QByteArray text = cleave::test::readFileOrAbort(sample);
    cleave::test::replaceOnce(
        text, "  %21 = annotation.stop_fusion(%20) /* ty=Tensor[(1, 64, 16, 16), float32] */;\n",
        "");
    cleave::test::replaceOnce(text, "nn.global_avg_pool2d(%21)", "nn.global_avg_pool2d(%20)");
    cleave::test::replaceOnce(
        text, "  nn.softmax(%25) /*",
        "  %26 = nn.relu(%25) /* ty=Tensor[(1, 10), float32] */;\n  nn.softmax(%26) /*");
    QTemporaryDir dir;
    const QString copy = writeFile(dir, "removed_added.relay", text);
    MainWindow window;
    openAndWait(window, sample);
    CompareDock *dock = window.compareDock();
    dock->setPathProvider([&] { return copy; });
    clickMenuAction(window, QStringLiteral("File"), dock->compareAction());

    QTreeWidget *list = dock->list();
    QCOMPARE(list->topLevelItemCount(), 4);
    QStringList rows;
    for (int i = 0; i < list->topLevelItemCount(); ++i)
        rows << QStringLiteral("%1 %2 %3")
                    .arg(list->topLevelItem(i)->text(2), list->topLevelItem(i)->text(0),
                         list->topLevelItem(i)->text(1));
    // In the open model's order, then the added node.
    QCOMPARE(rows,
             QStringList({ QStringLiteral("removed %21 annotation.stop_fusion"),
                           QStringLiteral("changed %22 nn.global_avg_pool2d"),
                           QStringLiteral("changed %ret nn.softmax"),
                           QStringLiteral("added %26 nn.relu") }));
    QCOMPARE(list->topLevelItem(1)->child(0)->text(2), QStringLiteral("%21 → %20"));
    QCOMPARE(list->topLevelItem(2)->child(0)->text(2), QStringLiteral("%25 → %26"));
    QCOMPARE(dock->legend(),
             QStringList({ QStringLiteral("added 1"), QStringLiteral("removed 1"),
                           QStringLiteral("changed 2") }));
    const std::map<std::string, QColor> ringed = marks(window);
    QCOMPARE(ringed.size(), std::size_t(3));
    QCOMPARE(ringed.at("%21"), QColor(0xd9, 0x30, 0x25));
    QCOMPARE(ringed.at("%22"), QColor(0x9b, 0x4d, 0xca));
    QCOMPARE(ringed.at("%ret"), QColor(0x9b, 0x4d, 0xca));
    // The added relu is not in the open model: its entry focuses the node it reads, %25.
    clickRow(list, list->topLevelItem(3));
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId>({ key(window, "%25") }));

    // Opening another model ends the comparison.
    QVERIFY(window.openFile(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay")));
    QCOMPARE(list->topLevelItemCount(), 0);
    QVERIFY(!dock->isComparing());
}

void TestCompare::unreadableModelSaysWhy()
{
    QTemporaryDir dir;
    const QString empty = writeFile(dir, "empty.relay", QByteArray());
    MainWindow window;
    openAndWait(window, sample);
    CompareDock *dock = window.compareDock();
    QVERIFY(!dock->compareWith(empty));
    QVERIFY(dock->isVisible());
    QCOMPARE(dock->list()->topLevelItemCount(), 0);
    QVERIFY(marks(window).empty());
    const QString header = dock->findChild<QLabel *>(QStringLiteral("compareHeader"))->text();
    QVERIFY2(header.contains(QStringLiteral("empty.relay")), qPrintable(header));
    QVERIFY2(header.contains(QStringLiteral("empty")), qPrintable(header));
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
