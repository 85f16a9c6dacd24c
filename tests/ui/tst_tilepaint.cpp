// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Tiles paint the drawing from the layout: every node and edge in view is drawn, in every
// state, with no item made by a pan or a zoom; items exist only for Qt's hit tests around the
// mouse (hover, tooltips) and when asked for. They carry ItemHasNoContents (Qt keeps a record
// per painted item, a QHash, until the item is deleted), and they change nothing on screen.
#include "ChainCanvas.h"
#include "SceneItems.h"
#include "TilePaints.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/ItemTile.h"
#include "ui/canvas/items/NodePainter.h"
#include "ui/canvas/view/CanvasView.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QScreen>
#include <QScrollBar>
#include <QtTest/QtTest>

#include <algorithm>
#include <utility>
#include <vector>

using namespace cleave;
using cleave::ui::CanvasWidget;
using test::itemsOf;
using test::paintCountsThenRepaint;

namespace {

// Paints boxes that meet the exposed area in black, and notes what it painted and heard.
class BoxContent : public ui::TileContent
{
public:
    std::size_t paintMembers(std::size_t tile, QPainter &painter, const QRectF &exposed) override
    {
        std::size_t count = 0;
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            if (!boxes[i].intersects(exposed))
                continue;
            painter.fillRect(boxes[i], Qt::black);
            painted.push_back(i);
            ++count;
        }
        tiles.push_back(tile);
        return count;
    }
    void childHovered(std::size_t /*tile*/, QGraphicsItem &child, bool on) override
    {
        hovers.emplace_back(&child, on);
    }
    void describeMembers(std::size_t /*tile*/, const QRectF &area, ui::TileSink &sink) override
    {
        for (const QRectF &box : boxes) {
            if (!box.intersects(area))
                continue;
            ui::NodeLook look;
            look.rect = box;
            sink.node(look);
        }
    }
    std::vector<QRectF> boxes;
    std::vector<std::size_t> painted;
    std::vector<std::size_t> tiles;
    std::vector<std::pair<QGraphicsItem *, bool>> hovers;
};

// 2000 steps of the gated chain (6001 nodes, 8000 edges, some 4000 ranks tall), as in
// tst_scenetiles.
constexpr std::size_t steps = 2000;
// Its tiles (planTiles, at most 256 members, halving at the median): 6001 nodes halve five
// times into tiles of 187 or 188 (6001 = 3000 + 3001; 3000 → 1500 → 750 → 375 → 187 + 188;
// 3001 → 1500 + 1501 → ... → 187, 188); its 8000 edges, all short routes, into 32 tiles of
// 8000 / 2^5 = 250.
constexpr std::size_t edgesPerTile = 250;

// The pixel colours the paint rules give: a selected node's outline, a node flagged as a
// problem (its outline and its fill).
const QColor selectionBlue(0x1e, 0x6f, 0xd9);
const QColor problemStroke(0xd3, 0x2f, 0x2f);
const QColor problemFill(0xff, 0xcd, 0xd2);

} // namespace

class TestTilePaint : public QObject, private test::ChainCanvas
{
    Q_OBJECT

private slots:
    void initTestCase();
    void tilePaintsItsMembersInView();
    void pansPaintEveryMemberInViewWithNoItems();
    void mouseMakesTheItemsOfItsTilesOnly();
    void clickShowsTheSelectionOnScreen();
    void hoverShowsOnTheEdge();
    void itemsChangeNoPixel();
    void edgeHitTestsFollowTheRoute();

private:
    /// What the window shows (its backing store, as painted by the updates so far; a fresh
    /// grab of the widget would paint it all again).
    [[nodiscard]] QImage shownImage() const
    {
        return canvas->screen()->grabWindow(canvas->window()->winId()).toImage();
    }
    [[nodiscard]] QColor shownAt(const QPoint &pos) const
    {
        return shownImage().pixelColor(viewport()->mapTo(canvas->window(), pos));
    }
    /// The colours shown on the 40 pixels above viewport position `pos` (a node's centre:
    /// across its title, its fill and its top outline).
    [[nodiscard]] std::vector<QColor> columnAbove(const QImage &image, const QPoint &pos) const
    {
        std::vector<QColor> out;
        const QPoint at = viewport()->mapTo(canvas->window(), pos);
        for (int dy = 0; dy <= 40; ++dy)
            out.push_back(image.pixelColor(at - QPoint(0, dy)));
        return out;
    }
    [[nodiscard]] std::size_t itemCount() const
    {
        return itemsOf<ui::NodeItem>(scene()).size() + itemsOf<ui::EdgeItem>(scene()).size();
    }
    /// Every node and every edge of the chain, in the chain's order.
    [[nodiscard]] std::vector<NodeId> chainNodes() const
    {
        std::vector<NodeId> out { chain.data };
        for (std::size_t k = 0; k < steps; ++k)
            out.insert(out.end(), { chain.relu[k], chain.sigmoid[k], chain.multiply[k] });
        return out;
    }
    [[nodiscard]] std::vector<EdgeRef> chainEdges() const
    {
        std::vector<EdgeRef> out;
        NodeId x = chain.data;
        for (std::size_t k = 0; k < steps; ++k) {
            out.insert(out.end(),
                       { EdgeRef { TensorRef { x, 0 }, chain.relu[k] },
                         EdgeRef { TensorRef { x, 0 }, chain.sigmoid[k] },
                         EdgeRef { TensorRef { chain.relu[k], 0 }, chain.multiply[k] },
                         EdgeRef { TensorRef { chain.sigmoid[k], 0 }, chain.multiply[k] } });
            x = chain.multiply[k];
        }
        return out;
    }
};

void TestTilePaint::initTestCase()
{
    QVERIFY(prepare(steps));
}

void TestTilePaint::tilePaintsItsMembersInView()
{
    // One tile 1000 wide whose content holds ten boxes 80 wide, 100 apart (x = 0, 100, ...,
    // 900), in a view 350 pixels wide at zoom 1 showing x from 0: boxes 0..3 (up to x = 380)
    // meet it, box 4 (from x = 400) and the rest do not.
    QGraphicsScene scene;
    scene.setItemIndexMethod(QGraphicsScene::NoIndex);
    scene.setSceneRect(0, 0, 1000, 300);
    auto *tile = new ui::ItemTile(QRectF(0, 0, 1000, 100), 1);
    scene.addItem(tile);
    BoxContent content;
    for (int i = 0; i < 10; ++i)
        content.boxes.emplace_back(100.0 * i, 30, 80, 40);
    tile->setContent(&content, 7);
    // An item for box 2 only, as the canvas makes them for hit tests: a child without contents.
    auto *child = new QGraphicsRectItem(content.boxes[2]);
    child->setAcceptHoverEvents(true);
    tile->adopt(child);
    QVERIFY(child->flags() & QGraphicsItem::ItemHasNoContents);
    QCOMPARE(child->parentItem(), tile);
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
    content.painted.clear();
    content.tiles.clear();
    view.viewport()->repaint();
    QCOMPARE(content.painted, std::vector<std::size_t>({ 0, 1, 2, 3 }));
    QCOMPARE(content.tiles, std::vector<std::size_t>({ 7 }));
    QCOMPARE(tile->lastPaintedMembers(), std::size_t(4));
    // Box 1 (x 100..180) black, the gap after it (x 180..200) the background.
    const QImage shown = view.viewport()->grab().toImage();
    QCOMPARE(shown.pixelColor(140, 50), QColor(Qt::black));
    QVERIFY(shown.pixelColor(190, 50) != QColor(Qt::black));

    // Hit tests see the child: box 2 spans x 200..280, y 30..70; between boxes 0 and 1
    // (x 80..100) lies the tile only.
    QVERIFY(view.items(QPoint(240, 50)).contains(child));
    QCOMPARE(view.items(QPoint(90, 50)), QList<QGraphicsItem *>({ tile }));
    // The mouse entering and leaving the child reaches the content.
    QTest::mouseMove(view.viewport(), QPoint(240, 50));
    QTRY_COMPARE(content.hovers.size(), std::size_t(1));
    QCOMPARE(content.hovers.back(), std::make_pair(static_cast<QGraphicsItem *>(child), true));
    QTest::mouseMove(view.viewport(), QPoint(90, 50));
    QTRY_COMPARE(content.hovers.size(), std::size_t(2));
    QCOMPARE(content.hovers.back(), std::make_pair(static_cast<QGraphicsItem *>(child), false));

    // A member's new look: its box (100..180) is painted again through the tile, and none of
    // its neighbours (box 0 ends at 80, box 2 starts at 200).
    content.painted.clear();
    tile->update(content.boxes[1]);
    QTRY_COMPARE(content.painted.size(), std::size_t(1));
    QTest::qWait(50);
    QCOMPARE(content.painted, std::vector<std::size_t>({ 1 }));
    tile->setContent(nullptr, 0);
}

void TestTilePaint::pansPaintEveryMemberInViewWithNoItems()
{
    QVERIFY(open("tilepaint-chain"));
    auto *view = canvas->view();
    // At zoom 1 on the top of the chain, then a page down at a time (real key presses): the
    // view scrolls by its height, some 700 pixels, each time. The mouse never moves.
    canvas->placeNode(chain.data, QPoint(viewport()->width() / 2, 100), 1.0);
    std::vector<std::pair<QRectF, std::size_t>> pages; // what each page showed and painted
    for (int page = 0; page < 12; ++page) {
        if (page > 0)
            QTest::keyClick(view, Qt::Key_PageDown);
        QTest::qWait(20);
        const auto tiles = itemsOf<ui::ItemTile>(scene());
        auto before = paintCountsThenRepaint(tiles, viewport());
        QCOMPARE(canvas->itemsMade(), std::size_t(0));
        QCOMPARE(itemCount(), std::size_t(0));
        std::size_t painted = 0;
        for (const ui::ItemTile *tile : tiles)
            if (tile->paintCount() > before[tile])
                painted += tile->lastPaintedMembers();
        pages.emplace_back(view->mapToScene(viewport()->rect()).boundingRect(), painted);
    }
    // Every page moved the view down: twelve viewports of the chain were painted.
    QVERIFY(canvas->viewportPosOfNode(chain.data).y() < -10 * viewport()->height());
    // Each page painted exactly the nodes and edges whose boxes meet it: counted from their
    // boxes (asked of their items, made now that the pan is over).
    std::vector<QRectF> boxes;
    for (NodeId n : chainNodes())
        boxes.push_back(canvas->nodeItem(n)->boundingRect());
    for (const EdgeRef &e : chainEdges())
        boxes.push_back(canvas->edgeItem(e)->boundingRect());
    for (const auto &[visible, painted] : pages) {
        const auto expected = static_cast<std::size_t>(std::count_if(
            boxes.begin(), boxes.end(), [&](const QRectF &b) { return b.intersects(visible); }));
        QVERIFY(expected > 0);
        QCOMPARE(painted, expected);
    }
    close();
}

void TestTilePaint::mouseMakesTheItemsOfItsTilesOnly()
{
    QVERIFY(open("tilepaint-mouse"));
    auto *view = static_cast<ui::CanvasView *>(canvas->view());
    const NodeId relu = chain.relu[steps / 2];
    canvas->placeNode(relu, viewport()->rect().center(), 1.0);
    viewport()->repaint();
    QCOMPARE(canvas->itemsMade(), std::size_t(0));
    // The mouse moves onto the relu: the items of the tiles meeting the 8 × 8 scene units
    // around it are made (hover and tooltips look for them), and no other.
    const QPoint at = canvas->viewportPosOfNode(relu);
    QTest::mouseMove(viewport(), at);
    const QPointF p = view->mapToScene(at);
    const QRectF around(p - QPointF(4, 4), QSizeF(8, 8));
    std::size_t nodeTiles = 0;
    std::size_t edgeTiles = 0;
    for (const ui::ItemTile *tile : itemsOf<ui::ItemTile>(scene()))
        if (tile->boundingRect().intersects(around))
            ++(tile->zValue() == 2 ? nodeTiles : edgeTiles);
    QCOMPARE(nodeTiles, std::size_t(1));
    QVERIFY(edgeTiles >= 1);
    const auto nodes = itemsOf<ui::NodeItem>(scene());
    QVERIFY2(nodes.size() == 187 || nodes.size() == 188, qPrintable(QString::number(nodes.size())));
    QVERIFY(std::any_of(nodes.begin(), nodes.end(),
                        [relu](const ui::NodeItem *n) { return n->nodeId() == relu; }));
    for (const ui::NodeItem *n : nodes)
        QCOMPARE(n->parentItem(), nodes.front()->parentItem());
    QCOMPARE(itemsOf<ui::EdgeItem>(scene()).size(), edgesPerTile * edgeTiles);
    QCOMPARE(canvas->itemsMade(), nodes.size() + edgesPerTile * edgeTiles);
    // A pan (page down) makes none more.
    const std::size_t made = canvas->itemsMade();
    QTest::keyClick(view, Qt::Key_PageDown);
    viewport()->repaint();
    QCOMPARE(canvas->itemsMade(), made);
    close();
}

void TestTilePaint::clickShowsTheSelectionOnScreen()
{
    QVERIFY(open("tilepaint-select"));
    // Zoom 2 on a relu in the middle of the chain: its outline, drawn 2.5 scene units wide
    // in the selection's blue (#1e6fd9) once selected, is 5 pixels wide on screen, so pixels
    // on its top side, straight above its centre, are wholly covered.
    const NodeId relu = chain.relu[steps / 2];
    canvas->placeNode(relu, viewport()->rect().center(), 2.0);
    viewport()->repaint();
    QCOMPARE(canvas->itemsMade(), std::size_t(0));
    const QPoint centre = canvas->viewportPosOfNode(relu);
    auto showsBlue = [this, centre] {
        const std::vector<QColor> column = columnAbove(shownImage(), centre);
        return std::find(column.begin(), column.end(), selectionBlue) != column.end();
    };
    QVERIFY(!showsBlue());
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, centre);
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>({ relu }));
    QTRY_VERIFY(showsBlue());
    // A click on the next node moves the selection there: the relu's outline goes back.
    QTest::mouseClick(viewport(), Qt::LeftButton, {},
                      canvas->viewportPosOfNode(chain.multiply[steps / 2]));
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>({ chain.multiply[steps / 2] }));
    QTRY_VERIFY(!showsBlue());
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
    viewport()->repaint();
    // Drawn by its tile: no item exists for it (nor any other) before the mouse comes.
    QCOMPARE(canvas->itemsMade(), std::size_t(0));
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
    QVERIFY(canvas->itemsMade() > 0);
    // The mouse leaves for empty space left of the chain: the edge is grey again.
    QTest::mouseMove(viewport(), QPoint(5, on.y()));
    QTRY_VERIFY(darkestRed() >= 0x8e - 2);
    close();
}

void TestTilePaint::itemsChangeNoPixel()
{
    QVERIFY(open("tilepaint-pixels"));
    // Zoom 2 on step k: its relu selected, its sigmoid flagged as a problem.
    const std::size_t k = steps / 2;
    canvas->placeNode(chain.multiply[k], viewport()->rect().center(), 2.0);
    canvas->selectNodes({ chain.relu[k] });
    canvas->setNodeProblems({ { chain.sigmoid[k], "not supported" } });
    viewport()->repaint();
    QCOMPARE(canvas->itemsMade(), std::size_t(0));
    const QImage without = viewport()->grab().toImage();
    // The colours the paint rules give, above each node's centre: the selection's blue outline
    // on the relu; the problem's red outline and pink fill on the sigmoid; neither on the
    // multiply.
    auto column = [this](const QImage &image, NodeId node) {
        const QPoint centre = canvas->viewportPosOfNode(node);
        std::vector<QColor> out;
        for (int dy = 0; dy <= 40; ++dy)
            out.push_back(image.pixelColor(centre - QPoint(0, dy)));
        return out;
    };
    auto has = [](const std::vector<QColor> &colours, const QColor &c) {
        return std::find(colours.begin(), colours.end(), c) != colours.end();
    };
    QVERIFY(has(column(without, chain.relu[k]), selectionBlue));
    QVERIFY(!has(column(without, chain.relu[k]), problemStroke));
    QVERIFY(has(column(without, chain.sigmoid[k]), problemStroke));
    QVERIFY(has(column(without, chain.sigmoid[k]), problemFill));
    QVERIFY(!has(column(without, chain.sigmoid[k]), selectionBlue));
    for (const QColor &c : { selectionBlue, problemStroke, problemFill })
        QVERIFY(!has(column(without, chain.multiply[k]), c));
    // The items of every node and edge in view made (their tiles'): the same picture.
    for (std::size_t j = k - 3; j <= k + 3; ++j) {
        for (NodeId n : { chain.relu[j], chain.sigmoid[j], chain.multiply[j] })
            QVERIFY(canvas->nodeItem(n) != nullptr);
        QVERIFY(canvas->edgeItem({ TensorRef { chain.relu[j], 0 }, chain.multiply[j] }) != nullptr);
    }
    QVERIFY(canvas->itemsMade() > 0);
    QCOMPARE(viewport()->grab().toImage(), without);
    close();
}

void TestTilePaint::edgeHitTestsFollowTheRoute()
{
    // Qt's hover and item-at-point tests ask an edge item whether a point lies on it: within
    // 3.5 of the route (its shape is the route stroked 7 wide), answered from the curves near
    // the point. A straight route down x = 0 from y = 0 to 300 (one cubic segment, its control
    // points on the line), then a bend from (0, 0) to (100, 100) with control points (55, 0)
    // and (100, 45): at t = 1/2 it passes (0.375 × 55 + 0.375 × 100 + 0.125 × 100,
    // 0.375 × 45 + 0.125 × 100) = (70.625, 29.375), far from its chord's middle (50, 50).
    const std::vector<LayoutPoint> straight { { 0, 0 }, { 0, 100 }, { 0, 200 }, { 0, 300 } };
    const ui::EdgeItem line({}, LayoutSpline(straight, {}, false, false));
    QVERIFY(line.contains(QPointF(3, 150)));
    QVERIFY(line.contains(QPointF(-3, 20)));
    QVERIFY(!line.contains(QPointF(4, 150)));
    QVERIFY(!line.contains(QPointF(0, 310)));
    const std::vector<LayoutPoint> bend { { 0, 0 }, { 55, 0 }, { 100, 45 }, { 100, 100 } };
    const ui::EdgeItem curve({}, LayoutSpline(bend, {}, false, false));
    QVERIFY(curve.contains(QPointF(70.625, 29.375)));
    QVERIFY(!curve.contains(QPointF(50, 50)));
    // A query of one viewport pixel (a 1 × 1 rectangle) answers as the point does, and as the
    // stroked shape does.
    auto pixel = [](qreal x, qreal y) {
        QPainterPath p;
        p.addRect(QRectF(x, y, 1, 1));
        return p;
    };
    QVERIFY(curve.collidesWithPath(pixel(70, 29), Qt::IntersectsItemShape));
    QVERIFY(!curve.collidesWithPath(pixel(50, 50), Qt::IntersectsItemShape));
    QVERIFY(curve.shape().contains(QPointF(70.625, 29.375)));
    QVERIFY(!curve.shape().contains(QPointF(50, 50)));
}

QTEST_MAIN(TestTilePaint)
#include "tst_tilepaint.moc"
