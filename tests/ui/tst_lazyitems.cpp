// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The canvas makes node and edge items only where hit tests need them (per tile, around the
// mouse), keeps their state per node and edge, and answers selection, rubber band and cut
// strokes from the layout.
#include "ChainCanvas.h"
#include "SceneItems.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/far/FarPicture.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/ItemTile.h"
#include "ui/canvas/view/CanvasView.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <vector>

using namespace cleave;
using cleave::ui::CanvasWidget;
using test::itemsOf;

Q_DECLARE_METATYPE(std::vector<cleave::EdgeRef>)

namespace {

// 2000 steps of the gated chain: 1 + 3 × 2000 = 6001 nodes on 1 + 2 × 2000 = 4001 ranks; per
// step relu and sigmoid read the step's input and multiply reads both: 4 × 2000 = 8000 edges.
constexpr std::size_t steps = 2000;
constexpr std::size_t nodeCount = 1 + 3 * steps;
// A zoom the far picture stands for on this drawing (some 4000 ranks tall: its picture's scale
// is limited by the longest side of 8192 pixels to about 0.03, and it covers up to twice that).
constexpr qreal farZoom = 0.05;

bool isMade(QGraphicsScene *scene, NodeId node)
{
    const auto nodes = itemsOf<ui::NodeItem>(scene);
    return std::any_of(nodes.begin(), nodes.end(),
                       [node](const ui::NodeItem *n) { return n->nodeId() == node; });
}

} // namespace

class TestLazyItems : public QObject, private test::ChainCanvas
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void farViewMakesNoItemsYetSelects();
    void zoomMakesNoItems();
    void capHoldsAcrossMouseMoves();
    void cutStrokeAcrossUnmadeEdge();

private:
    [[nodiscard]] std::size_t itemCount() const
    {
        return itemsOf<ui::NodeItem>(scene()).size() + itemsOf<ui::EdgeItem>(scene()).size();
    }
};

void TestLazyItems::initTestCase()
{
    qRegisterMetaType<std::vector<EdgeRef>>();
    QVERIFY(prepare(steps));
}

void TestLazyItems::init()
{
    // The drawing opens far out, on the middle of the chain.
    const NodeId middle = chain.multiply[steps / 2];
    QVERIFY(open("lazy-chain", [middle](CanvasWidget &c) {
        c.setOpeningPlace(
            { [middle] { return middle; }, c.view()->viewport()->rect().center(), farZoom });
    }));
}

void TestLazyItems::cleanup()
{
    close();
}

void TestLazyItems::farViewMakesNoItemsYetSelects()
{
    auto *view = static_cast<ui::CanvasView *>(canvas->view());
    QCOMPARE(view->zoom(), farZoom);
    // Opened and painted far out: the tiles are there, none of their children.
    viewport()->repaint();
    QVERIFY(view->lastPaintWasFar());
    QVERIFY(!itemsOf<ui::ItemTile>(scene()).empty());
    QCOMPARE(itemCount(), std::size_t(0));
    QCOMPARE(canvas->itemsMade(), std::size_t(0));
    // Fit (F): the whole drawing, still far out, still no item. The drawing fills the
    // viewport's height; a taller window (the view keeps its centre) leaves room around it.
    QTest::keyClick(viewport(), Qt::Key_F);
    QVERIFY(view->zoom() < farZoom);
    canvas->resize(900, 1000);
    QTRY_VERIFY(viewport()->height() > 900);
    viewport()->repaint();
    QCOMPARE(itemCount(), std::size_t(0));

    // The selection is the canvas's, per node: it answers for nodes without items.
    std::vector<NodeId> some { chain.relu[3], chain.sigmoid[1500], chain.multiply[1999] };
    std::sort(some.begin(), some.end());
    QSignalSpy changed(canvas.get(), &CanvasWidget::selectionChanged);
    canvas->selectNodes(some);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(canvas->selectedNodes(), some);
    QCOMPARE(itemCount(), std::size_t(0));

    // A rubber band dragged over the whole drawing selects every node of the chain: 6001.
    const QRect all = viewport()->rect();
    const QPoint from = all.topLeft() + QPoint(2, 2);
    const QPoint to = all.bottomRight() - QPoint(2, 2);
    QTest::mousePress(viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(viewport(), (from + to) / 2);
    QTest::mouseMove(viewport(), to);
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, to);
    const std::vector<NodeId> selected = canvas->selectedNodes();
    QCOMPARE(selected.size(), nodeCount);
    std::vector<NodeId> every { chain.data };
    for (std::size_t k = 0; k < steps; ++k)
        every.insert(every.end(), { chain.relu[k], chain.sigmoid[k], chain.multiply[k] });
    std::sort(every.begin(), every.end());
    QCOMPARE(selected, every);
    // The band was drawn over the far picture: still no item.
    QCOMPARE(itemCount(), std::size_t(0));

    // A press on empty space (left of the drawing, which fit centres) empties the selection.
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, QPoint(3, all.center().y()));
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>());
}

void TestLazyItems::zoomMakesNoItems()
{
    // relu_1000 is selected while it has no item, then the view zooms onto it with the
    // keyboard (+, 1.25× a step about the viewport's centre, where the node is placed).
    const NodeId target = chain.relu[1000];
    canvas->selectNodes({ target });
    canvas->placeNode(target, viewport()->rect().center(), farZoom);
    QVERIFY(!isMade(scene(), target));
    auto *view = static_cast<ui::CanvasView *>(canvas->view());
    // 0.05 × 1.25^10 = 0.47: labels readable.
    for (int i = 0; i < 10; ++i) {
        QTest::keyClick(viewport(), Qt::Key_Plus);
        viewport()->repaint();
    }
    QVERIFY(view->zoom() > 0.45);
    QVERIFY(!view->lastPaintWasFar());
    // The tiles painted every step of the zoom from the layout: no item was made.
    QCOMPARE(canvas->itemsMade(), std::size_t(0));
    QCOMPARE(itemCount(), std::size_t(0));
    // Asked for, the node's item is made (with its tile's) and shows the selection made
    // before it existed.
    const ui::NodeItem *item = canvas->nodeItem(target);
    QVERIFY(item != nullptr);
    QVERIFY(item->isInSelection());
    QVERIFY(isMade(scene(), chain.sigmoid[1000]));
    QVERIFY(!isMade(scene(), chain.relu[10]));
    // Centring on a node far away highlights it, without an item; asked for, its item is made
    // highlighted.
    const NodeId far = chain.multiply[1990];
    canvas->centerOnNode(far);
    viewport()->repaint();
    QVERIFY(!isMade(scene(), far));
    const ui::NodeItem *farItem = canvas->nodeItem(far);
    QVERIFY(farItem != nullptr);
    QVERIFY(farItem->isHighlighted());
    QVERIFY(!farItem->isInSelection());
}

void TestLazyItems::capHoldsAcrossMouseMoves()
{
    // A cap of 600 items (the chain's tiles hold 187 or 188 nodes, or 250 edges), then a pan
    // down the whole drawing at zoom 0.45 with the middle button, one viewport height (660
    // pixels) a drag, the mouse resting on the viewport's middle after each.
    constexpr std::size_t cap = 600;
    canvas->setItemCap(cap);
    canvas->placeNode(chain.data, QPoint(450, 60), 0.45);
    auto *view = static_cast<ui::CanvasView *>(canvas->view());
    QScrollBar *bar = view->verticalScrollBar();
    const QPoint rest(450, 350);
    // The mouse on the input at the top first: its tile's items are made.
    QTest::mouseMove(viewport(), canvas->viewportPosOfNode(chain.data));
    QVERIFY(isMade(scene(), chain.data));
    std::size_t seen = 0;
    int drags = 0;
    while (bar->value() < bar->maximum() && drags < 1000) {
        const QPoint start(450, 680);
        QTest::mousePress(viewport(), Qt::MiddleButton, {}, start);
        QTest::mouseMove(viewport(), start - QPoint(0, 660));
        QTest::mouseRelease(viewport(), Qt::MiddleButton, {}, start - QPoint(0, 660));
        ++drags;
        viewport()->repaint();
        QTest::mouseMove(viewport(), rest + QPoint(drags % 2, 0));
        // Over the cap only by the items of the tiles under the mouse (never dropped).
        const QPointF p = view->mapToScene(rest + QPoint(drags % 2, 0));
        const QRectF around(p - QPointF(4, 4), QSizeF(8, 8));
        std::size_t underMouse = 0;
        for (const ui::ItemTile *tile : itemsOf<ui::ItemTile>(scene()))
            if (tile->boundingRect().intersects(around))
                underMouse += static_cast<std::size_t>(tile->childItems().size());
        QVERIFY2(canvas->itemsMade() <= cap + underMouse,
                 qPrintable(QStringLiteral("%1 items, %2 under the mouse")
                                .arg(canvas->itemsMade())
                                .arg(underMouse)));
        QCOMPARE(canvas->itemsMade(), itemCount());
        seen = std::max(seen, canvas->itemsMade());
    }
    // The pan reached the bottom; the items made at the top were dropped on the way.
    QCOMPARE(bar->value(), bar->maximum());
    QVERIFY(drags > 20);
    QVERIFY(!isMade(scene(), chain.data));
    QVERIFY(seen > 0);
}

void TestLazyItems::cutStrokeAcrossUnmadeEdge()
{
    // Between the ranks of relu_k / sigmoid_k and multiply_k run exactly two edges: relu_k and
    // sigmoid_k into multiply_k. A level stroke across them, drawn far out where no edge item
    // exists, crosses both and no other.
    const std::size_t k = 700;
    const EdgeRef fromRelu { TensorRef { chain.relu[k], 0 }, chain.multiply[k] };
    const EdgeRef fromSigmoid { TensorRef { chain.sigmoid[k], 0 }, chain.multiply[k] };
    canvas->setTool(CanvasWidget::Tool::Cut);
    canvas->placeNode(chain.multiply[k], viewport()->rect().center(), farZoom);
    QCOMPARE(itemCount(), std::size_t(0));
    QSignalSpy cut(canvas.get(), &CanvasWidget::cutRequested);
    const QPoint p = canvas->viewportPosOfEdge(fromRelu.tensor, fromRelu.consumer);
    QVERIFY(viewport()->rect().contains(p));
    const QPoint from = p - QPoint(60, 0);
    QTest::mousePress(viewport(), Qt::LeftButton, {}, from);
    for (int i = 1; i <= 12; ++i)
        QTest::mouseMove(viewport(), from + QPoint(10 * i, 0));
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, p + QPoint(60, 0));
    QCOMPARE(cut.count(), 1);
    auto crossed = cut.at(0).at(0).value<std::vector<EdgeRef>>();
    std::sort(crossed.begin(), crossed.end());
    std::vector<EdgeRef> expected { fromRelu, fromSigmoid };
    std::sort(expected.begin(), expected.end());
    QCOMPARE(crossed, expected);
    QCOMPARE(itemCount(), std::size_t(0));
}

QTEST_MAIN(TestLazyItems)
#include "tst_lazyitems.moc"
