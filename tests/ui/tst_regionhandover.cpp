// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The shapes of the partition regions are made from the layout alone, beside it, by the worker
// that makes or prepares it, and handed over with it: the boxes and routes are those of the
// layout's own rectangles and splines; a store keeps the last two until the canvas takes them
// and forgets those whose layout is gone; after Ctrl+2 with a plan of two partitions the regions
// and the badges of both boundary tensors are all there once the drawing is complete, and Ctrl+1
// brings them back with the focused node in its place.
#include "TestSupport.h"
#include "core/analysis/Cost.h"
#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutCache.h"
#include "core/layout/LayoutGraph.h"
#include "core/partition/BlockGraph.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/document/Document.h"
#include "ui/document/LevelPrefetch.h"
#include "ui/document/LevelView.h"
#include "ui/geometry/RegionGeometry.h"
#include "ui/geometry/RegionGeometryStore.h"

#include <QApplication>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <set>
#include <span>

using cleave::EdgeRef;
using cleave::Layout;
using cleave::LayoutPoint;
using cleave::LayoutRect;
using cleave::LayoutSpline;
using cleave::NodeId;
using cleave::TensorRef;
using cleave::ui::MainWindow;
using cleave::ui::RegionGeometry;

namespace {

// Three dense layers, the third adding the first one's output back (a skip connection). FuseOps
// makes three kernels: {%0 %1}, {%2 %3} and {%4 %5} (each dense with the elementwise ops after
// it). Drawn: 4 parameters + 6 operators and 10 edges at Operators level; 4 parameters + 3
// blocks and 7 edges (x, w1 -> A; A, w2 -> B; B, w3 -> C; A -> C) at Fused Blocks level.
const char *skipDense
    = "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 16), float32], %w1: Tensor[(16, 16), float32],\n"
      "          %w2: Tensor[(16, 16), float32], %w3: Tensor[(16, 16), float32]) {\n"
      "  %0 = nn.dense(%x, %w1, units=16);\n"
      "  %1 = nn.relu(%0);\n"
      "  %2 = nn.dense(%1, %w2, units=16);\n"
      "  %3 = sigmoid(%2);\n"
      "  %4 = nn.dense(%3, %w3, units=16);\n"
      "  %5 = add(%4, %1);\n"
      "  %5\n"
      "}\n";

template <typename Item>
std::vector<Item *> itemsOf(const QGraphicsScene &scene)
{
    std::vector<Item *> out;
    for (QGraphicsItem *item : scene.items())
        if (auto *typed = qgraphicsitem_cast<Item *>(item))
            out.push_back(typed);
    return out;
}

bool near(const QPoint &a, const QPoint &b, int tolerance)
{
    return std::abs(a.x() - b.x()) <= tolerance && std::abs(a.y() - b.y()) <= tolerance;
}

// A node's box padded as a region draws it: 12 beside, 15 above and below.
QRectF padded(const LayoutRect &r)
{
    return { r.x - 12, r.y - 15, r.width + 24, r.height + 30 };
}

// A route's on-curve points: the spline's start and every segment's end.
QPolygonF onCurve(const LayoutSpline &s)
{
    QPolygonF out;
    for (std::size_t i = 0; i < s.points().size(); i += 3)
        out.append(QPointF(s.points()[i].x, s.points()[i].y));
    return out;
}

// Within a hundredth of a unit: the geometry keeps its boxes and points in floats.
bool closeTo(const QRectF &a, const QRectF &b)
{
    return std::abs(a.left() - b.left()) < 0.01 && std::abs(a.top() - b.top()) < 0.01
        && std::abs(a.right() - b.right()) < 0.01 && std::abs(a.bottom() - b.bottom()) < 0.01;
}

bool closeTo(const QPolygonF &a, const QPolygonF &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i)
        if (std::abs(a[i].x() - b[i].x()) >= 0.01 || std::abs(a[i].y() - b[i].y()) >= 0.01)
            return false;
    return true;
}

// The geometry equals its layout's own rectangles and splines: every node (by id), every edge
// with a route (by EdgeRef).
void compareWithLayout(const RegionGeometry &g, const Layout &l)
{
    QCOMPARE(g.boxCount(), l.nodes.size());
    std::size_t i = 0;
    for (const auto &[id, r] : l.nodes) {
        QCOMPARE(g.node(i), id);
        QVERIFY(closeTo(g.box(i), padded(r)));
        ++i;
    }
    i = 0;
    for (const auto &[edge, s] : l.edges) {
        if (s.points().empty())
            continue;
        QVERIFY(i < g.routeCount());
        QCOMPARE(g.edge(i), edge);
        QCOMPARE(g.routeOf(edge), i);
        QVERIFY(closeTo(g.routePolygon(i), onCurve(s)));
        ++i;
    }
    QCOMPARE(g.routeCount(), i);
}

std::shared_ptr<const Layout> twoNodeLayout(double shift)
{
    auto l = std::make_shared<Layout>();
    l->nodes[NodeId(std::size_t(2))] = LayoutRect { 100 + shift, 50, 40, 20 };
    l->nodes[NodeId(std::size_t(1))] = LayoutRect { 0 + shift, 0, 60, 30 };
    const std::vector<LayoutPoint> s { { 30, 30 }, { 30, 40 }, { 100, 40 }, { 100, 50 } };
    l->edges.append(EdgeRef { TensorRef { NodeId(std::size_t(1)), 0 }, NodeId(std::size_t(2)) }, s,
                    {}, false, false);
    return l;
}

} // namespace

class TestRegionHandover : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void geometryOfHandMadeLayout();
    void bandIndexFindsEachRectOnce();
    void storeKeepsLastTwoOfLiveLayouts();
    void blocksLevelShowsRegionsAndBadges();

private:
    QTemporaryDir m_dir;
};

void TestRegionHandover::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_regionhandover"));
    QSettings().clear();
    QVERIFY(m_dir.isValid());
}

void TestRegionHandover::geometryOfHandMadeLayout()
{
    // Node 1 at (0, 0) 60×30, node 2 at (100, 50) 40×20 and node 3 at (110, 130) 50×20; an edge
    // 1 -> 2 of one cubic segment from (30, 30) to (100, 50), another of two segments 2 -> 3,
    // and one without a route.
    auto l = std::make_shared<Layout>(*twoNodeLayout(0));
    const std::vector<LayoutPoint> two { { 120, 70 },  { 120, 80 },  { 120, 90 }, { 120, 100 },
                                         { 130, 110 }, { 140, 120 }, { 150, 130 } };
    QVERIFY(
        l->edges.append(EdgeRef { TensorRef { NodeId(std::size_t(2)), 0 }, NodeId(std::size_t(3)) },
                        two, {}, false, false));
    QVERIFY(
        l->edges.append(EdgeRef { TensorRef { NodeId(std::size_t(2)), 1 }, NodeId(std::size_t(3)) },
                        std::span<const LayoutPoint>(), {}, false, false));
    l->nodes[NodeId(std::size_t(3))] = LayoutRect { 110, 130, 50, 20 };
    const std::shared_ptr<const Layout> layout = l;
    const std::shared_ptr<const RegionGeometry> g = cleave::ui::makeRegionGeometry(layout);

    // Boxes by node id, padded by 12 beside and 15 above and below.
    QCOMPARE(g->boxCount(), std::size_t(3));
    QCOMPARE(g->node(0), NodeId(std::size_t(1)));
    QCOMPARE(g->node(1), NodeId(std::size_t(2)));
    QCOMPARE(g->node(2), NodeId(std::size_t(3)));
    QCOMPARE(g->box(0), QRectF(-12, -15, 84, 60));
    QCOMPARE(g->box(1), QRectF(88, 35, 64, 50));
    QCOMPARE(g->box(2), QRectF(98, 115, 74, 50));
    // The two routed edges by EdgeRef, their on-curve points only; each route's box grown by
    // half the 40-unit route pen.
    QCOMPARE(g->routeCount(), std::size_t(2));
    QCOMPARE(g->routePolygon(0), QPolygonF({ QPointF(30, 30), QPointF(100, 50) }));
    QCOMPARE(g->routePolygon(1),
             QPolygonF({ QPointF(120, 70), QPointF(120, 100), QPointF(150, 130) }));
    // The routes are the layout's own splines (route 1 has two segments: 7 points), found by
    // EdgeRef; the edge without points has no route.
    QCOMPARE(g->route(1).size(), std::size_t(7));
    QCOMPARE(QPointF(g->route(1)[6].x, g->route(1)[6].y), QPointF(150, 130));
    QCOMPARE(
        g->routeOf(EdgeRef { TensorRef { NodeId(std::size_t(2)), 0 }, NodeId(std::size_t(3)) }),
        std::size_t(1));
    QCOMPARE(
        g->routeOf(EdgeRef { TensorRef { NodeId(std::size_t(2)), 1 }, NodeId(std::size_t(3)) }),
        g->routeCount());
    QCOMPARE(g->edge(1),
             (EdgeRef { TensorRef { NodeId(std::size_t(2)), 0 }, NodeId(std::size_t(3)) }));
    QCOMPARE(g->routeBox(0), QRectF(10, 10, 110, 60));
    QCOMPARE(g->routeBox(1), QRectF(100, 50, 70, 100));
    // Filed in the indexes (one band each: fewer than 32 shapes): a query around node 2 finds
    // its box and both routes; one below node 2 finds node 3's box and route 1 only.
    QCOMPARE(g->boxIndex.bandCount(), std::size_t(1));
    QCOMPARE(g->boxIndex.entryCount(), std::size_t(3));
    QCOMPARE(g->routeIndex.entryCount(), std::size_t(2));
    std::vector<std::uint32_t> found;
    g->boxesMeeting(QRectF(95, 45, 10, 10), found);
    QCOMPARE(found, std::vector<std::uint32_t> { 1 });
    g->routesMeeting(QRectF(95, 45, 10, 10), found);
    QCOMPARE(found, (std::vector<std::uint32_t> { 0, 1 }));
    g->boxesMeeting(QRectF(140, 140, 5, 5), found);
    QCOMPARE(found, std::vector<std::uint32_t> { 2 });
    g->routesMeeting(QRectF(140, 140, 5, 5), found);
    QCOMPARE(found, std::vector<std::uint32_t> { 1 });
    compareWithLayout(*g, *layout);
    QVERIFY(g->isOf(layout.get()));
}

void TestRegionHandover::bandIndexFindsEachRectOnce()
{
    // 64 squares of 5 in a column, one every 10 units (y 0 to 635), and a tall strip beside
    // them over the whole height: 65 rectangles, ceil(65 / 32) = 3 bands of 635 / 3 = 211.7.
    // Squares 21 (y 210-215) and 42 (420-425) straddle a band border and the strip lies in all
    // three bands: 65 + 2 + 2 ids filed.
    std::vector<QRectF> rects;
    for (int i = 0; i < 64; ++i)
        rects.emplace_back(0, 10 * i, 5, 5);
    rects.emplace_back(100, 0, 5, 635);
    std::vector<cleave::ui::FloatRect> floats;
    for (const QRectF &r : rects)
        floats.push_back(cleave::ui::FloatRect::fromRectF(r));
    cleave::ui::BandIndex index;
    cleave::ui::BandIndex floatIndex;
    index.build(rects);
    floatIndex.build(floats);
    for (const cleave::ui::BandIndex *i : { &index, &floatIndex }) {
        QCOMPARE(i->bandCount(), std::size_t(3));
        QCOMPARE(i->entryCount(), std::size_t(69));
    }
    // y 205-225 spans bands 0 and 1: squares 21 and 22 and the strip, each once (square 20
    // ends at 205, where the area begins: touching is not meeting).
    const std::vector<std::uint32_t> expected { 21, 22, 64 };
    std::vector<std::uint32_t> found;
    index.query(QRectF(-1, 205, 200, 20), rects, found);
    QCOMPARE(found, expected);
    floatIndex.query(QRectF(-1, 205, 200, 20), floats, found);
    QCOMPARE(found, expected);
    // Between the column and the strip, above and below everything: nothing.
    index.query(QRectF(50, 0, 10, 700), rects, found);
    QVERIFY(found.empty());
    index.query(QRectF(0, -50, 10, 20), rects, found);
    QVERIFY(found.empty());
    index.query(QRectF(0, 700, 10, 10), rects, found);
    QVERIFY(found.empty());
    // The strip alone low down: the last band.
    index.query(QRectF(101, 630, 2, 2), rects, found);
    QCOMPARE(found, std::vector<std::uint32_t> { 64 });
    // Nothing filed: nothing found.
    cleave::ui::BandIndex empty;
    empty.build(std::span<const QRectF>());
    QVERIFY(empty.isEmpty());
    empty.query(QRectF(0, 0, 10, 10), std::span<const QRectF>(), found);
    QVERIFY(found.empty());
}

void TestRegionHandover::storeKeepsLastTwoOfLiveLayouts()
{
    using cleave::ui::makeRegionGeometry;
    cleave::ui::RegionGeometryStore store;
    std::shared_ptr<const Layout> a = twoNodeLayout(0);
    std::shared_ptr<const Layout> b = twoNodeLayout(1000);
    const std::shared_ptr<const Layout> c = twoNodeLayout(2000);
    const auto ga = makeRegionGeometry(a);
    store.put(ga);
    store.put(makeRegionGeometry(b));
    QVERIFY(store.holds(a.get()) && store.holds(b.get()));
    // A third goes in, the oldest goes out.
    store.put(makeRegionGeometry(c));
    QCOMPARE(store.size(), std::size_t(2));
    QVERIFY(!store.holds(a.get()));
    QVERIFY(!store.take(a.get()));
    // One made again for the same layout replaces the one waiting.
    const auto gc = makeRegionGeometry(c);
    store.put(gc);
    QCOMPARE(store.size(), std::size_t(2));
    // Taken out once: the store lets go of it.
    QCOMPARE(store.take(c.get()), gc);
    QCOMPARE(gc->box(0), QRectF(1988, -15, 84, 60));
    QVERIFY(!store.holds(c.get()));
    QCOMPARE(store.size(), std::size_t(1));
    // A layout gone: its geometry is never taken, and the next put drops it.
    const Layout *gone = b.get();
    b.reset();
    QVERIFY(!store.holds(gone));
    const std::shared_ptr<const Layout> d = twoNodeLayout(3000);
    store.put(makeRegionGeometry(d));
    QCOMPARE(store.size(), std::size_t(1));
    QVERIFY(store.holds(d.get()));
    // A geometry without a live layout is not kept.
    a.reset();
    store.put(ga);
    QCOMPARE(store.size(), std::size_t(1));
}

void TestRegionHandover::blocksLevelShowsRegionsAndBadges()
{
    const QString path = m_dir.filePath(QStringLiteral("skip_dense.relay"));
    QVERIFY(cleave::test::writeAll(path, skipDense));
    MainWindow window;
    window.canvas()->setCacheDirectory({}); // laid out afresh, held in memory only
    window.resize(1200, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(window.levelView()->isBlocksPrepared(), 30000);
    const cleave::ui::PreparedLevel *prepared = window.levelView()->preparedBlocks();
    QCOMPARE(prepared->blocks->kernelCount(), std::size_t(3));
    QCOMPARE(prepared->drawn->nodes.size(), std::size_t(7));

    // The prepared level's region geometry was made beside its layout (by the worker) and is
    // those of the layout's own rectangles and splines: 7 boxes and 7 routes.
    const std::shared_ptr<const Layout> blocksLayout = window.canvas()->layoutCache()->findInMemory(
        cleave::layoutCacheKey(prepared->key, *prepared->drawn, {}));
    QVERIFY(blocksLayout);
    const std::shared_ptr<cleave::ui::RegionGeometryStore> store
        = window.canvas()->regionGeometries();
    const auto handed = store->take(blocksLayout.get());
    QVERIFY(handed);
    store->put(handed); // where the switch takes it
    QCOMPARE(handed->boxCount(), std::size_t(7));
    QCOMPARE(handed->routeCount(), std::size_t(7));
    compareWithLayout(*handed, *blocksLayout);

    // A cut as the user draws it: the cut tool (C), a stroke across the edge %3 -> %4.
    const cleave::Graph &graph = *window.document()->graph();
    auto id = [&](const char *key) { return graph.findByKey(key); };
    QGraphicsView *view = window.canvas()->view();
    QTest::keyClick(&window, Qt::Key_C);
    QCOMPARE(window.canvas()->tool(), cleave::ui::CanvasWidget::Tool::Cut);
    const QPoint across = window.canvas()->viewportPosOfEdge(TensorRef { id("%3"), 0 }, id("%4"));
    QVERIFY(!across.isNull());
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, across - QPoint(15, 0));
    for (int i = 1; i <= 6; ++i)
        QTest::mouseMove(view->viewport(), across - QPoint(15, 0) + QPoint(5 * i, 0));
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, across + QPoint(15, 0));
    // Two partitions, {%0 .. %3} and {%4 %5}: %3 crosses, and %1 (the skip connection) too.
    const cleave::PartitionPlan *plan = window.document()->plan();
    QCOMPARE(plan->partitionCount(), std::size_t(2));
    QCOMPARE(plan->partitionOf(id("%4")), plan->partitionOf(id("%5")));
    QVERIFY(plan->partitionOf(id("%3")) != plan->partitionOf(id("%4")));
    QTest::keyClick(&window, Qt::Key_V); // the select tool again

    // Focus %3 as a user does (Ctrl+F, its id, Enter), at Operators level.
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    auto *field = window.findChild<QLineEdit *>(QStringLiteral("searchField"));
    QVERIFY(field && field->isVisible());
    QTest::keyClicks(field, QStringLiteral("%3"));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId> { id("%3") });
    const QPoint before = window.canvas()->viewportPosOfNode(id("%3"));

    // Two boundary tensors, each entering the second partition once: data_n_0 (%3, read by %4,
    // first) and data_n_1 (%1, read by %5); 1×16 float32 each, 64 bytes.
    const QString bytes = QString::fromStdString(cleave::humanBytes(64));
    const std::set<QString> badgeTexts { QStringLiteral("data_n_0 · 1×16 · ") + bytes,
                                         QStringLiteral("data_n_1 · 1×16 · ") + bytes };
    auto checkPlanDrawn = [&](std::size_t boxes, std::size_t boldEdges) {
        window.canvas()->makeAllItems(); // the tiles paint without items
        const QGraphicsScene &scene = *view->scene();
        const auto regions = itemsOf<cleave::ui::PartitionRegionItem>(scene);
        QCOMPARE(regions.size(), std::size_t(2));
        QCOMPARE(regions[0]->boxCount() + regions[1]->boxCount(), boxes);
        std::set<QString> texts;
        for (const cleave::ui::BadgeItem *badge : itemsOf<cleave::ui::BadgeItem>(scene))
            texts.insert(badge->text());
        QCOMPARE(texts, badgeTexts);
        QCOMPARE(itemsOf<cleave::ui::BadgeItem>(scene).size(), std::size_t(2));
        const auto edges = itemsOf<cleave::ui::EdgeItem>(scene);
        QCOMPARE(static_cast<std::size_t>(std::count_if(
                     edges.begin(), edges.end(),
                     [](const cleave::ui::EdgeItem *e) { return e->boundaryColour().isValid(); })),
                 boldEdges);
    };
    // Operators: the 6 operators in regions (parameters are in no partition); the edges %3 -> %4
    // and %1 -> %5 bold.
    checkPlanDrawn(6, 2);
    if (QTest::currentTestFailed())
        return;

    // Ctrl+2: once the drawing is complete, the 3 blocks in the two regions, the edges B -> C
    // and A -> C bold with the two badges.
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(window.level(), MainWindow::Level::Blocks);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    QVERIFY(!store->holds(blocksLayout.get())); // taken by the canvas
    checkPlanDrawn(3, 2);
    if (QTest::currentTestFailed())
        return;
    // The regions draw the handed-over shapes: the padded boxes of the blocks' own rectangles.
    std::vector<QRectF> regionBoxes;
    for (const auto *region : itemsOf<cleave::ui::PartitionRegionItem>(*view->scene()))
        for (const QRectF &box : region->boxRects())
            regionBoxes.push_back(box);
    std::vector<QRectF> handedBoxes;
    for (std::size_t i = 0; i < handed->boxCount(); ++i)
        handedBoxes.push_back(handed->box(i));
    for (const QRectF &box : regionBoxes)
        QVERIFY(std::find(handedBoxes.begin(), handedBoxes.end(), box) != handedBoxes.end());

    // Ctrl+1: the operators again, the plan drawn as before, %3 selected in its place.
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(window.level(), MainWindow::Level::Ops);
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
    checkPlanDrawn(6, 2);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(window.canvas()->selectedNodes(), std::vector<NodeId> { id("%3") });
    const QPoint back = window.canvas()->viewportPosOfNode(id("%3"));
    QVERIFY(near(back, before, 3));
}

QTEST_MAIN(TestRegionHandover)
#include "tst_regionhandover.moc"
