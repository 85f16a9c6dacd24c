// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Node and edge items are painted by their tile, not one by one by Qt: they carry
// ItemHasNoContents, so that Qt keeps no record of where it painted each (a QHash per painted
// item, kept until the item is deleted), while they still answer hit tests, and a change of
// their look still reaches the screen.
#include "ChainCanvas.h"
#include "SceneItems.h"
#include "TilePaints.h"
#include "ui/scene/CanvasWidget.h"
#include "ui/scene/GraphItems.h"
#include "ui/scene/ItemTile.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QImage>
#include <QPainter>
#include <QScreen>
#include <QScrollBar>
#include <QtTest/QtTest>

#include <algorithm>
#include <array>
#include <vector>

using namespace cleave;
using cleave::ui::CanvasWidget;
using test::itemsOf;
using test::paintCountsThenRepaint;

namespace {

// A child that fills its box and counts its paints.
class CountingItem : public QGraphicsItem
{
public:
    explicit CountingItem(const QRectF &rect)
        : m_rect(rect)
    {
    }
    [[nodiscard]] QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem * /*option*/,
               QWidget * /*widget*/) override
    {
        ++paints;
        painter->fillRect(m_rect, Qt::black);
    }
    int paints = 0;

private:
    QRectF m_rect;
};

// 2000 steps of the gated chain (6001 nodes, 8000 edges, some 4000 ranks tall), as in
// tst_scenetiles.
constexpr std::size_t steps = 2000;

} // namespace

class TestTilePaint : public QObject, private test::ChainCanvas
{
    Q_OBJECT

private slots:
    void initTestCase();
    void tilePaintsItsChildrenInView();
    void panPaintsItemsThroughTheirTiles();
    void clickShowsTheSelectionOnScreen();
    void hoverShowsOnTheEdge();

private:
    /// What the window shows at viewport position `pos` (its backing store, as painted by the
    /// updates so far; a fresh grab of the widget would paint it all again).
    [[nodiscard]] QImage shownImage() const
    {
        return canvas->screen()->grabWindow(canvas->window()->winId()).toImage();
    }
    [[nodiscard]] QColor shownAt(const QPoint &pos) const
    {
        return shownImage().pixelColor(viewport()->mapTo(canvas->window(), pos));
    }
};

void TestTilePaint::initTestCase()
{
    QVERIFY(prepare(steps));
}

void TestTilePaint::tilePaintsItsChildrenInView()
{
    // One tile 1000 wide holding ten boxes 80 wide, 100 apart (x = 0, 100, ..., 900), in a
    // view 350 pixels wide at zoom 1 showing x from 0: boxes 0..3 (up to x = 380) meet it,
    // box 4 (from x = 400) and the rest do not.
    QGraphicsScene scene;
    scene.setItemIndexMethod(QGraphicsScene::NoIndex);
    scene.setSceneRect(0, 0, 1000, 300);
    auto *tile = new ui::ItemTile(QRectF(0, 0, 1000, 100), 1);
    scene.addItem(tile);
    std::array<CountingItem *, 10> boxes {};
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        boxes[i] = new CountingItem(QRectF(100.0 * static_cast<qreal>(i), 30, 80, 40));
        tile->adopt(boxes[i]);
        QVERIFY(boxes[i]->flags() & QGraphicsItem::ItemHasNoContents);
        QCOMPARE(boxes[i]->parentItem(), tile);
    }
    QGraphicsView view(&scene);
    view.setFrameShape(QFrame::NoFrame);
    view.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.setAlignment(Qt::AlignLeft | Qt::AlignTop);
    view.resize(350, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.horizontalScrollBar()->setValue(view.horizontalScrollBar()->minimum());
    QCOMPARE(view.mapToScene(QPoint(0, 0)), QPointF(0, 0));
    for (CountingItem *box : boxes)
        box->paints = 0;
    view.viewport()->repaint();
    for (std::size_t i = 0; i < boxes.size(); ++i)
        QCOMPARE(boxes[i]->paints, i < 4 ? 1 : 0);
    QCOMPARE(tile->lastPaintedChildren(), std::size_t(4));

    // Hit tests see the children as before: box 2 spans x 200..280, y 30..70; between boxes
    // 0 and 1 (x 80..100) lies the tile only.
    const QList<QGraphicsItem *> onBox = view.items(QPoint(240, 50));
    QVERIFY(onBox.contains(boxes[2]));
    const QList<QGraphicsItem *> gap = view.items(QPoint(90, 50));
    QCOMPARE(gap, QList<QGraphicsItem *>({ tile }));

    // A child's new look: its box (100..180) is painted again through the tile, and none of
    // its neighbours (box 0 ends at 80, box 2 starts at 200).
    for (CountingItem *box : boxes)
        box->paints = 0;
    ui::repaintItem(*boxes[1]);
    QTRY_COMPARE(boxes[1]->paints, 1);
    QTest::qWait(50);
    for (std::size_t i = 0; i < boxes.size(); ++i)
        QCOMPARE(boxes[i]->paints, i == 1 ? 1 : 0);
}

void TestTilePaint::panPaintsItemsThroughTheirTiles()
{
    QVERIFY(open("tilepaint-chain"));
    auto *view = canvas->view();
    // At zoom 1 on the top of the chain, then a page down at a time (real key presses): the
    // view scrolls by its height, some 700 pixels, each time.
    canvas->placeNode(chain.data, QPoint(viewport()->width() / 2, 100), 1.0);
    QTest::qWait(50);
    for (int page = 0; page < 12; ++page) {
        if (page > 0)
            QTest::keyClick(view, Qt::Key_PageDown);
        // Until the tiles in view have their children (made within a per-frame budget).
        QTest::qWait(50);
        const auto tiles = itemsOf<ui::ItemTile>(scene());
        auto before = paintCountsThenRepaint(tiles, viewport());
        const QRectF visible = view->mapToScene(viewport()->rect()).boundingRect();
        // Every node and edge item leaves its painting to its tile.
        const auto nodes = itemsOf<ui::NodeItem>(scene());
        const auto edges = itemsOf<ui::EdgeItem>(scene());
        QVERIFY(!nodes.empty());
        for (const ui::NodeItem *n : nodes)
            QVERIFY(n->flags() & QGraphicsItem::ItemHasNoContents);
        for (const ui::EdgeItem *e : edges)
            QVERIFY(e->flags() & QGraphicsItem::ItemHasNoContents);
        // The tiles painted the children of theirs that meet the viewport, and only those:
        // counted from the tiles in view and their children's boxes.
        std::size_t painted = 0;
        std::size_t expected = 0;
        for (const ui::ItemTile *tile : tiles) {
            if (tile->paintCount() == before[tile])
                continue;
            painted += tile->lastPaintedChildren();
            const QRectF exposed = tile->boundingRect() & visible;
            for (const QGraphicsItem *child : tile->childItems())
                expected += child->boundingRect().intersects(exposed) ? 1 : 0;
        }
        QVERIFY(expected > 0);
        QCOMPARE(painted, expected);
    }
    // Every page moved the view down: twelve viewports of the chain were painted.
    QVERIFY(canvas->viewportPosOfNode(chain.data).y() < -10 * viewport()->height());
    close();
}

void TestTilePaint::clickShowsTheSelectionOnScreen()
{
    QVERIFY(open("tilepaint-select"));
    // Zoom 2 on a relu in the middle of the chain: its outline, drawn 2.5 scene units wide
    // in the selection's blue (#1e6fd9) once selected, is 5 pixels wide on screen, so the
    // pixel on the middle of its top side is wholly covered.
    const NodeId relu = chain.relu[steps / 2];
    canvas->placeNode(relu, viewport()->rect().center(), 2.0);
    QTest::qWait(100);
    const ui::NodeItem *item = canvas->nodeItem(relu);
    QVERIFY(item != nullptr);
    const QPoint top
        = canvas->view()->mapFromScene(QPointF(item->rect().center().x(), item->rect().top()));
    const QColor selected(0x1e, 0x6f, 0xd9);
    auto shown = [this, top] { return shownAt(top); };
    QVERIFY(shown() != selected);
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, canvas->viewportPosOfNode(relu));
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>({ relu }));
    QTRY_COMPARE(shown(), selected);
    // A click on the next node moves the selection there: the relu's outline goes back.
    QTest::mouseClick(viewport(), Qt::LeftButton, {},
                      canvas->viewportPosOfNode(chain.multiply[steps / 2]));
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>({ chain.multiply[steps / 2] }));
    QTRY_VERIFY(shown() != selected);
    close();
}

void TestTilePaint::hoverShowsOnTheEdge()
{
    QVERIFY(open("tilepaint-hover"));
    // Zoom 2 on the edge from a relu into its multiply, a line of about 1 pixel in the edge
    // grey (#8e97a3 on the light theme's #fbfbfc); hovered, it is drawn in #37475a, 1.8 pixels
    // wide. Across the line, the darkest pixel's red is the grey's 0x8e at the darkest, and
    // well below it while hovered (a pixel more than half covered by 0x37 on 0xfb).
    const std::size_t k = steps / 2;
    const EdgeRef edge { TensorRef { chain.relu[k], 0 }, chain.multiply[k] };
    canvas->placeNode(chain.multiply[k], viewport()->rect().center(), 2.0);
    QTest::qWait(100);
    QVERIFY(canvas->edgeItem(edge) != nullptr);
    const QPoint on = canvas->viewportPosOfEdge(edge.tensor, edge.consumer);
    auto darkestRed = [this, on] {
        const QImage image = shownImage();
        const QPoint at = viewport()->mapTo(canvas->window(), on);
        int darkest = 255;
        for (int dx = -4; dx <= 4; ++dx)
            darkest = std::min(darkest, image.pixelColor(at + QPoint(dx, 0)).red());
        return darkest;
    };
    QVERIFY(darkestRed() >= 0x8e - 2);
    QTest::mouseMove(viewport(), on);
    QTRY_VERIFY(darkestRed() < 0x70);
    // The mouse leaves for empty space left of the chain: the edge is grey again.
    QTest::mouseMove(viewport(), QPoint(5, on.y()));
    QTRY_VERIFY(darkestRed() >= 0x8e - 2);
    close();
}

QTEST_MAIN(TestTilePaint)
#include "tst_tilepaint.moc"
