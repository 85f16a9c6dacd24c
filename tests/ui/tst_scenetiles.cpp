// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The canvas's scene keeps no index: node and edge items hang under tiles of neighbours, and
// painting, clicks and cut strokes look at the tiles near them only.
#include "ChainCanvas.h"
#include "SceneItems.h"
#include "TilePaints.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/ItemTile.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <set>

using namespace cleave;
using cleave::ui::CanvasWidget;
using test::itemsOf;
using test::paintCountsThenRepaint;

Q_DECLARE_METATYPE(std::vector<cleave::EdgeRef>)

namespace {

// 2000 steps of the gated chain: 1 + 3 × 2000 = 6001 nodes; per step relu and sigmoid read the
// step's input and multiply reads both: 4 × 2000 = 8000 edges, each between adjacent ranks.
constexpr std::size_t steps = 2000;
constexpr std::size_t nodeCount = 1 + 3 * steps;
constexpr std::size_t edgeCount = 4 * steps;
// Tiles are halved until they hold at most 256 items: 6001 nodes take 5 halvings (6001 / 32 =
// 187.5 <= 256 < 375) and so do 8000 edges (8000 / 32 = 250), 32 tiles each.
constexpr std::size_t perTile = 256;
constexpr std::size_t nodeTiles = 32;
constexpr std::size_t edgeTiles = 32;

std::size_t childrenOfType(const QGraphicsItem *tile, int type)
{
    const QList<QGraphicsItem *> children = tile->childItems();
    return static_cast<std::size_t>(
        std::count_if(children.begin(), children.end(),
                      [type](const QGraphicsItem *c) { return c->type() == type; }));
}

} // namespace

class TestSceneTiles : public QObject, private test::ChainCanvas
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void itemsHangUnderTiles();
    void paintVisitsOnlyTilesInView();
    void clickFarDownSelectsThatNode();
    void cutFarDownReportsCrossedEdges();
    void fitShowsBothEnds();
};

void TestSceneTiles::initTestCase()
{
    qRegisterMetaType<std::vector<EdgeRef>>();
    QVERIFY(prepare(steps));
}

void TestSceneTiles::init()
{
    QVERIFY(open("tiles-chain"));
}

void TestSceneTiles::cleanup()
{
    close();
}

void TestSceneTiles::itemsHangUnderTiles()
{
    QCOMPARE(scene()->itemIndexMethod(), QGraphicsScene::NoIndex);
    // Items are made per tile where the view needs them: every node's and edge's item is asked
    // for, which makes every tile's children (14,001 items: under the canvas's cap).
    NodeId x = chain.data;
    for (std::size_t k = 0; k < steps; ++k) {
        for (NodeId n : { chain.relu[k], chain.sigmoid[k], chain.multiply[k] })
            QVERIFY(canvas->nodeItem(n) != nullptr);
        for (const EdgeRef &e :
             { EdgeRef { TensorRef { x, 0 }, chain.relu[k] },
               EdgeRef { TensorRef { x, 0 }, chain.sigmoid[k] },
               EdgeRef { TensorRef { chain.relu[k], 0 }, chain.multiply[k] },
               EdgeRef { TensorRef { chain.sigmoid[k], 0 }, chain.multiply[k] } })
            QVERIFY(canvas->edgeItem(e) != nullptr);
        x = chain.multiply[k];
    }
    QVERIFY(canvas->nodeItem(chain.data) != nullptr);
    const auto tiles = itemsOf<ui::ItemTile>(scene());
    std::size_t nodes = 0;
    std::size_t edges = 0;
    std::size_t withNodes = 0;
    std::size_t withEdges = 0;
    for (ui::ItemTile *tile : tiles) {
        QVERIFY(tile->parentItem() == nullptr);
        QVERIFY(tile->flags() & QGraphicsItem::ItemContainsChildrenInShape);
        QVERIFY(!(tile->flags() & QGraphicsItem::ItemHasNoContents));
        const std::size_t n = childrenOfType(tile, ui::NodeItemType);
        const std::size_t e = childrenOfType(tile, ui::EdgeItemType);
        // A tile holds nodes or edges, never both; nodes stack above edges.
        QVERIFY((n == 0) != (e == 0));
        QCOMPARE(static_cast<std::size_t>(tile->childItems().size()), n + e);
        QVERIFY(n + e <= perTile);
        QCOMPARE(tile->zValue(), n > 0 ? 2.0 : 1.0);
        // Qt skips the children of a tile whose box misses a query: they lie inside it.
        for (const QGraphicsItem *child : tile->childItems())
            QVERIFY(tile->sceneBoundingRect().contains(child->sceneBoundingRect()));
        nodes += n;
        edges += e;
        withNodes += n > 0 ? 1 : 0;
        withEdges += e > 0 ? 1 : 0;
    }
    QCOMPARE(nodes, nodeCount);
    QCOMPARE(edges, edgeCount);
    QCOMPARE(withNodes, nodeTiles);
    QCOMPARE(withEdges, edgeTiles);
    // Every node and edge item is in a tile.
    QCOMPARE(itemsOf<ui::NodeItem>(scene()).size(), nodeCount);
    QCOMPARE(itemsOf<ui::EdgeItem>(scene()).size(), edgeCount);
    for (const ui::NodeItem *n : itemsOf<ui::NodeItem>(scene()))
        QVERIFY(qgraphicsitem_cast<ui::ItemTile *>(n->parentItem()) != nullptr);
    for (const ui::EdgeItem *e : itemsOf<ui::EdgeItem>(scene()))
        QVERIFY(qgraphicsitem_cast<ui::ItemTile *>(e->parentItem()) != nullptr);
}

void TestSceneTiles::paintVisitsOnlyTilesInView()
{
    // Zoomed in on the middle of the chain, where shape labels are written (zoom >= 1).
    const NodeId middle = chain.multiply[steps / 2];
    canvas->placeNode(middle, viewport()->rect().center(), 1.25);
    QTest::qWait(50);
    const auto tiles = itemsOf<ui::ItemTile>(scene());
    auto before = paintCountsThenRepaint(tiles, viewport());
    const QRectF visible = canvas->view()->mapToScene(viewport()->rect()).boundingRect();
    std::set<const QGraphicsItem *> painted;
    std::size_t paintedNodeTiles = 0;
    std::size_t paintedEdgeTiles = 0;
    std::size_t nodesUnderPainted = 0;
    for (const ui::ItemTile *tile : tiles) {
        const QRectF box = tile->sceneBoundingRect();
        if (tile->paintCount() > before[tile]) {
            // Painted tiles meet the viewport (Qt widens an item's box by 2 pixels)...
            QVERIFY(box.intersects(visible.adjusted(-4, -4, 4, 4)));
            painted.insert(tile);
            const bool nodes = tile->zValue() == 2;
            if (nodes)
                nodesUnderPainted += tile->lastPaintedMembers();
            (nodes ? paintedNodeTiles : paintedEdgeTiles) += 1;
        } else {
            // ... and every tile that clearly meets it is painted.
            QVERIFY(!box.intersects(visible.adjusted(4, 4, -4, -4)));
        }
    }
    // A node tile is about 62 steps (124 ranks) of the chain tall, far more than the 700-pixel
    // viewport shows at this zoom: the view meets one tile of each kind, or two where tiles meet.
    QVERIFY(paintedNodeTiles >= 1 && paintedNodeTiles <= 2);
    QVERIFY(paintedEdgeTiles >= 1 && paintedEdgeTiles <= 2);
    QVERIFY(nodesUnderPainted <= 2 * 188);
    // The edges whose shape label the paint wrote are children of painted tiles.
    const auto labels = canvas->edgeLabelsDrawn();
    QVERIFY(!labels.empty());
    std::set<EdgeRef> labelled;
    for (const auto &[edge, text] : labels)
        labelled.insert(edge);
    // (The paint made no item: asked for now, each labelled edge's lies in a painted tile.)
    QCOMPARE(canvas->itemsMade(), std::size_t(0));
    for (const EdgeRef &edge : labelled)
        QVERIFY(painted.count(canvas->edgeItem(edge)->parentItem()) == 1);
}

void TestSceneTiles::clickFarDownSelectsThatNode()
{
    // Near the bottom of a drawing some 4000 ranks tall.
    const NodeId relu = chain.relu[steps - 10];
    const NodeId sigmoid = chain.sigmoid[steps - 10];
    canvas->placeNode(relu, viewport()->rect().center(), 1.0);
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, canvas->viewportPosOfNode(relu));
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>({ relu }));
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, canvas->viewportPosOfNode(sigmoid));
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>({ sigmoid }));
    // A click on the gap between relu and sigmoid (one rank, side by side) lands inside their
    // tile's box but on no node or edge: it clears the selection.
    std::vector<QRectF> pair { canvas->nodeItem(relu)->rect(), canvas->nodeItem(sigmoid)->rect() };
    QCOMPARE(pair.size(), std::size_t(2));
    std::sort(pair.begin(), pair.end(),
              [](const QRectF &a, const QRectF &b) { return a.left() < b.left(); });
    const QRectF left = pair[0];
    const QRectF right = pair[1];
    QVERIFY(left.right() < right.left());
    const QPoint gap = canvas->view()->mapFromScene(
        QPointF((left.right() + right.left()) / 2, left.center().y()));
    bool inTile = false;
    for (const QGraphicsItem *item : canvas->view()->items(gap)) {
        QVERIFY(item->type() != ui::NodeItemType && item->type() != ui::EdgeItemType);
        inTile = inTile || item->type() == ui::ItemTileType;
    }
    QVERIFY(inTile);
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, gap);
    QCOMPARE(canvas->selectedNodes(), std::vector<NodeId>());
}

void TestSceneTiles::cutFarDownReportsCrossedEdges()
{
    // Between the ranks of relu_k / sigmoid_k and multiply_k run exactly two edges: relu_k and
    // sigmoid_k into multiply_k. A level stroke across them there crosses both and no other.
    const std::size_t k = steps - 20;
    const EdgeRef fromRelu { TensorRef { chain.relu[k], 0 }, chain.multiply[k] };
    const EdgeRef fromSigmoid { TensorRef { chain.sigmoid[k], 0 }, chain.multiply[k] };
    canvas->setTool(CanvasWidget::Tool::Cut);
    canvas->placeNode(chain.multiply[k], viewport()->rect().center(), 1.0);
    QSignalSpy cut(canvas.get(), &CanvasWidget::cutRequested);
    const QPoint p = canvas->viewportPosOfEdge(fromRelu.tensor, fromRelu.consumer);
    QVERIFY(!p.isNull());
    const QPoint from = p - QPoint(150, 0);
    QTest::mousePress(viewport(), Qt::LeftButton, {}, from);
    for (int i = 1; i <= 30; ++i)
        QTest::mouseMove(viewport(), from + QPoint(10 * i, 0));
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, p + QPoint(150, 0));
    QCOMPARE(cut.count(), 1);
    auto crossed = cut.at(0).at(0).value<std::vector<EdgeRef>>();
    std::sort(crossed.begin(), crossed.end());
    std::vector<EdgeRef> expected { fromRelu, fromSigmoid };
    std::sort(expected.begin(), expected.end());
    QCOMPARE(crossed, expected);
}

void TestSceneTiles::fitShowsBothEnds()
{
    // The chain is some 4000 ranks tall: fitted, its first node (the input, top rank) and its
    // last multiply (bottom rank) are both inside the viewport, scroll bars and all.
    canvas->fitToView();
    QCoreApplication::processEvents();
    const QRect area = viewport()->rect();
    const QPoint top = canvas->viewportPosOfNode(chain.data);
    const QPoint bottom = canvas->viewportPosOfNode(chain.multiply.back());
    QVERIFY2(area.contains(top),
             qPrintable(QStringLiteral("top %1,%2 in %3x%4")
                            .arg(top.x())
                            .arg(top.y())
                            .arg(area.width())
                            .arg(area.height())));
    QVERIFY2(area.contains(bottom),
             qPrintable(QStringLiteral("bottom %1,%2 in %3x%4")
                            .arg(bottom.x())
                            .arg(bottom.y())
                            .arg(area.width())
                            .arg(area.height())));
}

QTEST_MAIN(TestSceneTiles)
#include "tst_scenetiles.moc"
