// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The canvas on large and deep graphs: Cleave's own layout past Graphviz's rank limit, painting
// that costs what is visible, and a cancelled layout that can be started again.
#include "../core/GraphBuilder.h"
#include "GatedChain.h"
#include "SceneItems.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/far/FarPicture.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/view/CanvasView.h"
#include "ui/support/OpCategory.h"

#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <map>

using namespace cleave;
using cleave::ui::CanvasWidget;
using test::itemsOf;
using Shape = test::GraphBuilder::Shape;

namespace {

using Chain = test::GatedChain;
using test::gatedChain;

// The canvas' far picture (its view paints it when zoomed far out).
const ui::FarPicture &farPictureOf(const ui::CanvasWidget &canvas)
{
    return *qobject_cast<ui::CanvasView *>(canvas.view())->farPicture();
}

bool waitForLayout(CanvasWidget &canvas, QString *message = nullptr)
{
    QSignalSpy finished(&canvas, &CanvasWidget::layoutFinished);
    if (!finished.wait(120000))
        return false;
    if (message != nullptr)
        *message = finished.front().at(1).toString();
    return finished.front().at(0).toBool();
}

// The opaque tint PartitionRegionItem fills with at zoom >= 0.5: 32% of the colour over white.
QColor expectedTint(const QColor &c)
{
    auto mix = [](int channel) { return qRound(255 * (1 - 0.32) + channel * 0.32); };
    return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

} // namespace

class TestCanvasScale : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void deepChainIsLaidOutByCleave();
    void rnntOpensWhereItsNodesAre();
    void regionPaintsOnlyWhatIsVisible();
    void cancelledLayoutCanBeRestarted();
    void longRoutesAreStrokedOnlyNearTheView();
    void edgeMidPointIsHalfwayAlongItsRoute();
    void longEdgeIsStrokedOnlyNearTheView();
    void farPictureShowsBoundaryEdgesInTheirColour();

private:
    QTemporaryDir m_cache;
};

void TestCanvasScale::initTestCase()
{
    QVERIFY(m_cache.isValid());
}

void TestCanvasScale::deepChainIsLaidOutByCleave()
{
    // 33,001 nodes on 22,001 ranks: past Cleave's Graphviz rank limit (20,000; Graphviz itself
    // crashes past 32,767). tst_deeplayout lays out 100,000 nodes on 66,667 ranks in core.
    Chain c = gatedChain(11000);
    CanvasWidget canvas;
    canvas.setCacheDirectory(m_cache.path());
    canvas.resize(900, 700);
    canvas.show();
    canvas.setGraph(c.graph.get(), c.graph->mainFunction(), "deep-chain");
    QString message;
    QVERIFY(waitForLayout(canvas, &message));
    QVERIFY2(message.contains(QStringLiteral("cleave-order")), qPrintable(message));
    // Items are made where the view needs them: each is asked for (its tile made).
    std::map<NodeId, QRectF> rects;
    for (std::size_t i = 0; i < c.graph->nodeCount(); ++i)
        if (const ui::NodeItem *item = canvas.nodeItem(NodeId(i)))
            rects[NodeId(i)] = item->rect();
    QCOMPARE(rects.size(), std::size_t(33001));
    for (std::size_t k = 0; k < c.relu.size(); ++k) {
        const QRectF relu = rects.at(c.relu[k]);
        const QRectF sigmoid = rects.at(c.sigmoid[k]);
        const QRectF mul = rects.at(c.multiply[k]);
        QCOMPARE(relu.center().y(), sigmoid.center().y());
        QVERIFY(!relu.intersects(sigmoid));
        QVERIFY(mul.top() > relu.bottom());
        if (k + 1 < c.relu.size())
            QVERIFY(rects.at(c.relu[k + 1]).top() > mul.bottom());
    }
    // The view opens on the top of the drawing, where the input is.
    const QPoint input
        = canvas.viewportPosOfNode(c.graph->function(c.graph->mainFunction()).params[0]);
    QVERIFY(canvas.view()->viewport()->rect().contains(input));
}

// Issue 32 (low): rnnt opened on its first input, at the top-left, where a readable view holds
// six nodes (the prediction network's txt, cast, embedding weight, take, full and tuple) while
// the LSTM layers start to the right. The first view now goes where the top band of the
// drawing holds the most nodes.
void TestCanvasScale::rnntOpensWhereItsNodesAre()
{
    const std::string path
        = CLEAVE_CORPUS_DIR "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt";
    if (!QFileInfo::exists(QString::fromStdString(path)))
        QSKIP("the rnnt corpus dump is missing");
    ImportResult imported = importFile(path);
    QVERIFY(imported.ok());
    const Graph &graph = *imported.graph;
    CanvasWidget canvas;
    canvas.setCacheDirectory(m_cache.path());
    canvas.resize(1200, 800);
    canvas.show();
    canvas.setGraph(&graph, graph.mainFunction(), "rnnt-first-view");
    QVERIFY(waitForLayout(canvas));
    const QRect viewport = canvas.view()->viewport()->rect();
    std::size_t inView = 0;
    for (NodeId n : graph.function(graph.mainFunction()).nodes) {
        const QPoint at = canvas.viewportPosOfNode(n);
        inView += !at.isNull() && viewport.contains(at) ? 1 : 0;
    }
    QVERIFY2(inView >= 30, qPrintable(QStringLiteral("%1 nodes in the first view").arg(inView)));
}

void TestCanvasScale::regionPaintsOnlyWhatIsVisible()
{
    Chain c = gatedChain(2000); // 6001 nodes, one partition of the 6000 ops
    CanvasWidget canvas;
    canvas.setCacheDirectory(m_cache.path());
    canvas.resize(900, 700);
    canvas.show();
    canvas.setGraph(c.graph.get(), c.graph->mainFunction(), "region-chain");
    QVERIFY(waitForLayout(canvas));
    PartitionPlan plan(*c.graph);
    const BoundaryTable boundary = computeBoundary(plan);
    canvas.setPlan(&plan, &boundary);
    const auto regions = itemsOf<ui::PartitionRegionItem>(canvas.view()->scene());
    QCOMPARE(regions.size(), std::size_t(1));
    ui::PartitionRegionItem *region = regions.front();
    // The input is in no partition: 6000 op boxes; 4 edges per step, less the input's two.
    QCOMPARE(region->boxCount(), std::size_t(6000));
    QCOMPARE(region->routeCount(), std::size_t(7998));

    // At zoom 1 around the 1000th step only a few dozen boxes and routes are drawn.
    QGraphicsView *view = canvas.view();
    view->setTransform(QTransform());
    const NodeId middle = c.multiply[1000];
    view->centerOn(view->mapToScene(canvas.viewportPosOfNode(middle)));
    // A real paint of the viewport, as the screen gets it (exposed rect = the viewport).
    const QImage image = view->viewport()->grab().toImage();
    QVERIFY(region->lastPaintedPrimitives() > 0);
    QVERIFY2(region->lastPaintedPrimitives() < 200,
             qPrintable(QString::number(region->lastPaintedPrimitives())));
    // Beside the node, inside the region's 12-point padding, the canvas shows the tint.
    const QPoint node = canvas.viewportPosOfNode(middle);
    const QRectF nodeRect = canvas.nodeItem(middle)->rect();
    const QPoint beside = view->mapFromScene(QPointF(nodeRect.left() - 6, nodeRect.center().y()));
    QVERIFY(image.rect().contains(node));
    const QColor got = image.pixelColor(beside);
    const QColor want = expectedTint(ui::partitionColour(plan.partitions()[0].colour));
    QVERIFY2(std::abs(got.red() - want.red()) <= 1 && std::abs(got.green() - want.green()) <= 1
                 && std::abs(got.blue() - want.blue()) <= 1,
             qPrintable(got.name() + QStringLiteral(" != ") + want.name()));
    canvas.setPlan(nullptr, nullptr);
}

void TestCanvasScale::cancelledLayoutCanBeRestarted()
{
    Chain c = gatedChain(3000);
    CanvasWidget canvas;
    canvas.setCacheDirectory(QString()); // no disk cache: the restart lays out again
    canvas.resize(900, 700);
    canvas.show();
    QSignalSpy finished(&canvas, &CanvasWidget::layoutFinished);
    canvas.setGraph(c.graph.get(), c.graph->mainFunction(), "restart-chain");
    // The worker's result arrives through the event loop: cancelling before it runs is certain
    // to cancel.
    canvas.cancelLayout();
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.front().at(0).toBool(), false);
    QVERIFY(!canvas.isLayoutReady());
    auto *button = canvas.findChild<QPushButton *>(QStringLiteral("layoutRetry"));
    QVERIFY(button != nullptr);
    QVERIFY(button->isVisible());
    QCOMPARE(button->text(), QStringLiteral("Retry"));
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.size(), 2);
    QCOMPARE(finished.back().at(0).toBool(), true);
    QVERIFY(canvas.isLayoutReady());
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < c.graph->nodeCount(); ++i)
        drawn += canvas.nodeItem(NodeId(i)) != nullptr ? 1 : 0;
    QCOMPARE(drawn, std::size_t(9001));
    QVERIFY(!button->isVisible());
}

void TestCanvasScale::longRoutesAreStrokedOnlyNearTheView()
{
    // An unrolled recurrence whose every step is also read by a final concatenation: h_t ->
    // concat edges run down the rest of the drawing, so most routes of the one partition pass
    // any viewport. Only their segments near the viewport may be stroked.
    constexpr std::size_t steps = 330;
    test::GraphBuilder b;
    const Shape s { 1, 8 };
    NodeId h = b.input("h0", s);
    std::vector<NodeId> a;
    std::vector<NodeId> hs;
    for (std::size_t t = 1; t <= steps; ++t) {
        a.push_back(b.op("nn.relu", { h }, s));
        h = b.op("tanh", { a.back() }, s);
        hs.push_back(h);
    }
    auto graph = b.finish(b.op("concatenate", hs, s));
    CanvasWidget canvas;
    canvas.setCacheDirectory(m_cache.path());
    canvas.resize(900, 700);
    canvas.show();
    canvas.setGraph(graph.get(), graph->mainFunction(), "long-routes");
    QVERIFY(waitForLayout(canvas));
    PartitionPlan plan(*graph);
    const BoundaryTable boundary = computeBoundary(plan);
    canvas.setPlan(&plan, &boundary);
    const auto regions = itemsOf<ui::PartitionRegionItem>(canvas.view()->scene());
    QCOMPARE(regions.size(), std::size_t(1));
    const ui::PartitionRegionItem *region = regions.front();
    // Every edge but h0 -> a_1 (h0 is an input, in no partition): 3 per step, less one.
    QCOMPARE(region->routeCount(), 3 * steps - 1);

    QGraphicsView *view = canvas.view();
    view->setTransform(QTransform());
    view->centerOn(view->mapToScene(canvas.viewportPosOfNode(a[steps / 2])));
    const QImage image = view->viewport()->grab().toImage();
    QVERIFY(!image.isNull());
    // Segments whose box meets the viewport grown by half the 40-point route pen (and a
    // point of rounding): what may be stroked. All segments: what a whole-route stroke costs.
    const QRectF near
        = view->mapToScene(view->viewport()->rect()).boundingRect().adjusted(-21, -21, 21, 21);
    std::size_t nearSegments = 0;
    std::size_t allSegments = 0;
    for (const QPolygonF &route : region->routeLines()) {
        for (qsizetype i = 1; i < route.size(); ++i) {
            ++allSegments;
            if (QRectF(route[i - 1], route[i])
                    .normalized()
                    .adjusted(-0.01, -0.01, 0.01, 0.01)
                    .intersects(near))
                ++nearSegments;
        }
    }
    const std::size_t stroked = region->lastStrokedSegments();
    QVERIFY(stroked > 0);
    QVERIFY2(stroked <= nearSegments,
             qPrintable(QStringLiteral("%1 > %2").arg(stroked).arg(nearSegments)));
    QVERIFY2(stroked * 4 < allSegments,
             qPrintable(QStringLiteral("%1 of %2").arg(stroked).arg(allSegments)));
}

void TestCanvasScale::edgeMidPointIsHalfwayAlongItsRoute()
{
    // A straight vertical route in two Bézier segments, (0,0)-(0,100) and (0,100)-(0,300), with
    // the control points at the thirds' ends: chords 100 and 200, so half the length (150) is a
    // quarter into the second segment. At t = 1/4 its y is
    // (3/4)^3*100 + 3(3/4)^2(1/4)*200 + 3(3/4)(1/4)^2*200 + (1/4)^3*300 = 159.375.
    const std::vector<LayoutPoint> points { { 0, 0 },   { 0, 50 },  { 0, 50 }, { 0, 100 },
                                            { 0, 200 }, { 0, 200 }, { 0, 300 } };
    const LayoutSpline spline(points, { 0, 307 }, true, false);
    const ui::EdgeItem item(EdgeRef {}, spline);
    const QPointF mid = item.midPoint();
    QCOMPARE(mid.x(), 0.0);
    QCOMPARE(mid.y(), 159.375);
}

void TestCanvasScale::longEdgeIsStrokedOnlyNearTheView()
{
    // A straight route down x = 10 in 30 cubic segments of 100 points each (segment k spans
    // y = 100k .. 100k + 100). A view of y = 1000 .. 1100 meets segments 9, 10 and 11 (9 ends
    // and 11 starts on its edges): y 900 .. 1200 is stroked, nothing above or below.
    std::vector<LayoutPoint> points { { 10, 0 } };
    for (int k = 0; k < 30; ++k) {
        const double y = 100.0 * k;
        points.emplace_back(10, y + 33);
        points.emplace_back(10, y + 67);
        points.emplace_back(10, y + 100);
    }
    const LayoutSpline spline(points, {}, false, false);
    QImage image(20, 3000, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setPen(QPen(Qt::black, 2));
        ui::strokeSplineNear(painter, spline, QRectF(0, 1000, 20, 100));
    }
    auto inked = [&](int y) { return image.pixelColor(10, y) != QColor(Qt::white); };
    QVERIFY(inked(905));
    QVERIFY(inked(1050));
    QVERIFY(inked(1195));
    QVERIFY(!inked(850));
    QVERIFY(!inked(1250));
    QVERIFY(!inked(10));
    QVERIFY(!inked(2990));
}

void TestCanvasScale::farPictureShowsBoundaryEdgesInTheirColour()
{
    // A cut across the chain's middle: below zoom 0.1 the canvas paints one picture of the whole
    // drawing (FarPicture), where ordinary edges are 1-pixel grey lines and boundary edges
    // 2-pixel lines in their producer partition's colour, drawn over the ordinary ones.
    Chain c = gatedChain(40);
    CanvasWidget canvas;
    canvas.setCacheDirectory(m_cache.path());
    canvas.resize(900, 700);
    canvas.show();
    canvas.setGraph(c.graph.get(), c.graph->mainFunction(), "far-boundary");
    QVERIFY(waitForLayout(canvas));
    PartitionPlan plan(*c.graph);
    const EdgeRef cut { TensorRef { c.multiply[19], 0 }, c.relu[20] };
    plan.apply(plan.cutAcrossEdges({ cut }));
    QCOMPARE(plan.partitions().size(), std::size_t(2));
    const BoundaryTable boundary = computeBoundary(plan);
    canvas.setPlan(&plan, &boundary);
    const ui::EdgeItem *edge = canvas.edgeItem(cut);
    QVERIFY(edge);
    const QColor colour = edge->boundaryColour();
    QVERIFY(colour.isValid());

    // The picture is rendered on a worker: wait for the one with the cut.
    QTRY_VERIFY(farPictureOf(canvas).isCurrent() && !farPictureOf(canvas).image().isNull());
    QGraphicsView *view = canvas.view();
    view->setTransform(QTransform::fromScale(0.08, 0.08));
    view->centerOn(edge->midPoint());
    const QImage image = view->viewport()->grab().toImage();
    // The edge runs down from multiply_19 to relu_20: look along a few pixels of its middle
    // for the pixel nearest the boundary colour (the picture is scaled smoothly).
    const QPoint mid = view->mapFromScene(edge->midPoint());
    int best = 3 * 255;
    for (int dy = -2; dy <= 2; ++dy) {
        for (int dx = -2; dx <= 2; ++dx) {
            const QColor got = image.pixelColor(mid + QPoint(dx, dy));
            best = std::min(best,
                            std::abs(got.red() - colour.red())
                                + std::abs(got.green() - colour.green())
                                + std::abs(got.blue() - colour.blue()));
        }
    }
    QVERIFY2(best < 90, qPrintable(QString::number(best)));
}

QTEST_MAIN(TestCanvasScale)
#include "tst_canvasscale.moc"
