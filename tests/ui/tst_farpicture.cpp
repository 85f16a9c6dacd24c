// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The far picture (the canvas' whole-drawing image below zoom 0.1): rendered on a worker, never
// in a frame; the previous picture is painted until the new one arrives; a superseded render is
// never shown; the image stays within its pixel bound.
#include "../core/GraphBuilder.h"
#include "GatedChain.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "ui/scene/CanvasView.h"
#include "ui/scene/CanvasWidget.h"
#include "ui/scene/FarPicture.h"
#include "ui/scene/FarPictureRenderer.h"

#include <QGraphicsView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>

using namespace cleave;
using cleave::ui::CanvasWidget;
using cleave::ui::FarPicture;
using Shape = test::GraphBuilder::Shape;

namespace {

using Chain = test::GatedChain;
using test::gatedChain;

// The canvas' far picture (its view paints it when zoomed far out).
const ui::FarPicture &farPictureOf(const ui::CanvasWidget &canvas)
{
    return *qobject_cast<ui::CanvasView *>(canvas.view())->farPicture();
}

bool waitForLayout(CanvasWidget &canvas)
{
    QSignalSpy finished(&canvas, &CanvasWidget::layoutFinished);
    return finished.wait(120000) && finished.front().at(0).toBool();
}

// A partition's far tint on the light canvas: 32% of the palette colour over white, by hand.
QColor farTint(int red, int green, int blue)
{
    auto mix = [](int channel) { return qRound(255 * (1 - 0.32) + channel * 0.32); };
    return { mix(red), mix(green), mix(blue) };
}
// The first two colours of the partition palette (OpCategory.cpp): #1f77b4, #e4571c.
const QColor firstTint = farTint(0x1f, 0x77, 0xb4); // (178, 205, 224)
const QColor secondTint = farTint(0xe4, 0x57, 0x1c); // (246, 201, 182)

int distance(const QColor &a, const QColor &b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green())
        + std::abs(a.blue() - b.blue());
}

// The smallest colour distance to `want` among the pixels within `radius` of `centre`.
int nearest(const QImage &image, QPoint centre, int radius, const QColor &want)
{
    int best = 3 * 255;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            if (image.rect().contains(centre + QPoint(dx, dy)))
                best = std::min(best, distance(image.pixelColor(centre + QPoint(dx, dy)), want));
    return best;
}

// A FarGeometry of `count` node boxes 40 x 20 in rows over `bounds`, without edges.
std::shared_ptr<const ui::FarGeometry> boxes(const QRectF &bounds, int count)
{
    auto g = std::make_shared<ui::FarGeometry>();
    g->bounds = bounds;
    const int perRow = std::max(1, static_cast<int>(bounds.width() / 50));
    for (int i = 0; i < count; ++i)
        g->nodes.emplace_back(bounds.left() + 5 + (i % perRow) * 50,
                              bounds.top() + 5 + (i / perRow) * 30, 40, 20);
    g->categories.assign(g->nodes.size(), 0);
    g->regionPadX = 4;
    g->regionPadY = 4;
    return g;
}

} // namespace

class TestFarPicture : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cutShowsThePreviousPictureUntilTheNewOneArrives();
    void supersededRenderIsNeverShown();
    void imageStaysWithinItsPixelBound();
    void restyledBaseIsRedrawnInPlace();

private:
    QTemporaryDir m_cache;
};

void TestFarPicture::initTestCase()
{
    QVERIFY(m_cache.isValid());
}

void TestFarPicture::cutShowsThePreviousPictureUntilTheNewOneArrives()
{
    Chain c = gatedChain(40);
    CanvasWidget canvas;
    canvas.setCacheDirectory(m_cache.path());
    canvas.resize(900, 700);
    canvas.show();
    canvas.setGraph(c.graph.get(), c.graph->mainFunction(), "far-async");
    QVERIFY(waitForLayout(canvas));
    PartitionPlan plan(*c.graph);
    BoundaryTable boundary = computeBoundary(plan);
    canvas.setPlan(&plan, &boundary);
    const FarPicture &far = farPictureOf(canvas);
    // A small drawing: the picture is drawn at the far zoom itself, 0.1 pixel per scene unit.
    QCOMPARE(far.scale(), 0.1);
    QTRY_VERIFY(far.isCurrent() && !far.image().isNull());

    // The far view at the picture's own scale, around step 30 (after the cut below).
    QGraphicsView *view = canvas.view();
    view->setTransform(QTransform::fromScale(0.1, 0.1));
    const NodeId node = c.relu[30];
    view->centerOn(view->mapToScene(canvas.viewportPosOfNode(node)));
    QImage shown = view->viewport()->grab().toImage();
    QPoint at = canvas.viewportPosOfNode(node);
    // One partition, coloured with the palette's first colour: its tint rings the node.
    QCOMPARE(plan.partitions()[0].colour, 0);
    QVERIFY2(nearest(shown, at, 6, firstTint) <= 12,
             qPrintable(QString::number(nearest(shown, at, 6, firstTint))));
    QVERIFY(nearest(shown, at, 6, secondTint) > 12);

    // Cut between step 19 and 20: steps 20.. become the second partition (id 1: colour 1).
    plan.apply(plan.cutAcrossEdges({ EdgeRef { TensorRef { c.multiply[19], 0 }, c.relu[20] } }));
    QCOMPARE(plan.partitions().size(), std::size_t(2));
    QCOMPARE(plan.partitions()[1].colour, 1);
    boundary = computeBoundary(plan);
    const qint64 before = far.image().cacheKey();
    canvas.setPlan(&plan, &boundary);
    // The frame right after the cut paints the previous picture: nothing is rendered in it.
    shown = view->viewport()->grab().toImage();
    QVERIFY(view->viewport()->rect().contains(at));
    QCOMPARE(far.image().cacheKey(), before);
    QVERIFY(!far.isCurrent());
    QVERIFY(nearest(shown, at, 6, firstTint) <= 12);
    QVERIFY(nearest(shown, at, 6, secondTint) > 12);

    // Once the worker's image arrives, the node sits in the second partition's tint; the node
    // colours did not change, so only the plan layer was rendered again.
    QTRY_VERIFY(far.isCurrent());
    QVERIFY(far.image().cacheKey() != before);
    QVERIFY(far.lastRenderReusedBase());
    shown = view->viewport()->grab().toImage();
    at = canvas.viewportPosOfNode(node);
    QVERIFY2(nearest(shown, at, 6, secondTint) <= 12,
             qPrintable(QString::number(nearest(shown, at, 6, secondTint))));
    QVERIFY(nearest(shown, at, 6, firstTint) > 12);
    // In the picture itself the tint is exact (flat fills, no antialiasing), to rounding.
    const QPointF scene = view->mapToScene(at);
    const QPoint pixel = ((scene - far.bounds().topLeft()) * far.scale()).toPoint();
    QVERIFY2(nearest(far.image(), pixel, 6, secondTint) <= 3,
             qPrintable(QString::number(nearest(far.image(), pixel, 6, secondTint))));
    canvas.setPlan(nullptr, nullptr);
}

void TestFarPicture::supersededRenderIsNeverShown()
{
    // 200,000 boxes make a render take a while; a second request is made while the first one
    // is (very likely) still rendering. Whatever the timing, once the second is asked for, no
    // picture but the second one may be shown.
    // The first box is big, with a wide tint around it (scene 100..700); the others are the
    // load, below it.
    auto g = std::make_shared<ui::FarGeometry>(*boxes(QRectF(0, 1000, 5000, 60000), 200000));
    g->bounds = QRectF(0, 0, 5000, 61000);
    g->nodes.front() = QRectF(200, 200, 400, 400);
    g->regionPadX = 100;
    g->regionPadY = 100;
    std::shared_ptr<const ui::FarGeometry> geometry = g;
    auto nodeSlots = std::make_shared<std::vector<std::int32_t>>(geometry->nodes.size(), 0);
    const QColor red(0xd0, 0x20, 0x20);
    const QColor blue(0x20, 0x40, 0xd0);
    QColor tint = red;
    FarPicture far;
    far.setSource(geometry, [&] {
        ui::FarState s;
        s.style.edge = qRgb(0x80, 0x80, 0x80);
        s.style.categories = { qRgb(0x30, 0x30, 0x30) };
        s.plan.nodeSlots = nodeSlots;
        s.plan.tints = { tint.rgba() };
        return s;
    });
    std::vector<std::pair<quint64, QColor>> shown;
    // Above the first box, inside its padding: the tint alone.
    const QPoint pad = (QPointF(400, 150) * far.scale()).toPoint();
    connect(&far, &FarPicture::pictureChanged, this,
            [&] { shown.emplace_back(far.shownGeneration(), far.image().pixelColor(pad)); });
    QCoreApplication::processEvents(); // the first render starts
    const quint64 first = far.requestedGeneration();
    tint = blue;
    far.invalidate();
    QCoreApplication::processEvents(); // the second one is asked for
    const quint64 second = far.requestedGeneration();
    QVERIFY(second > first);
    const std::size_t shownBefore = shown.size();
    QTRY_VERIFY_WITH_TIMEOUT(far.isCurrent(), 30000);
    QVERIFY(shown.size() > shownBefore);
    for (std::size_t i = shownBefore; i < shown.size(); ++i) {
        QCOMPARE(shown[i].first, second);
        QCOMPARE(shown[i].second, blue);
    }
    QCOMPARE(far.image().pixelColor(pad), blue);
}

void TestFarPicture::imageStaysWithinItsPixelBound()
{
    // A drawing 20,000 x 400,000 scene units (a tall 100k-node DNN): at most 1.5 M pixels, so
    // the scale is sqrt(1.5e6 / 8e9) = 0.013693 and the image 273.9 x 5477.2, rounded up:
    // 274 x 5478 pixels, 6.0 MB.
    FarPicture far;
    far.setSource(boxes(QRectF(0, 0, 20000, 400000), 100), [] {
        ui::FarState s;
        s.style.categories = { qRgb(0x30, 0x30, 0x30) };
        return s;
    });
    QVERIFY(std::abs(far.scale() - 0.013693) < 1e-6);
    QTRY_VERIFY(!far.image().isNull());
    QCOMPARE(far.image().size(), QSize(274, 5478));
    QVERIFY(far.image().sizeInBytes() <= 274 * 5478 * 4);
    // A picture at 0.0137 may stand for zooms up to twice that, never beyond.
    QVERIFY(far.covers(0.02));
    QVERIFY(!far.covers(0.03));
}

void TestFarPicture::restyledBaseIsRedrawnInPlace()
{
    // 1000 x 500 scene units at 0.1: 100 x 50 pixels. The first box (5, 5, 40, 20) covers
    // pixels x 0.5..4.5, y 0.5..2.5, so pixel (2, 1) is inside it.
    ui::FarPictureRenderer renderer;
    const auto geometry = boxes(QRectF(0, 0, 1000, 500), 10);
    ui::FarState state;
    state.style.categories = { qRgb(0x30, 0x30, 0x30) };
    const QImage first = renderer.render(geometry, state, 0.1, QSize(100, 50), {});
    QCOMPARE(first.pixelColor(2, 1), QColor(0x30, 0x30, 0x30));
    // The base is kept in 8 bits a pixel, a table of the colours it has: transparent and the
    // boxes' one colour (opaque, no antialiasing: no other pixel).
    QCOMPARE(renderer.base().format(), QImage::Format_Indexed8);
    QCOMPARE(renderer.base().colorCount(), 2);
    QCOMPARE(renderer.base().pixelColor(2, 1), QColor(0x30, 0x30, 0x30));
    QCOMPARE(renderer.base().pixel(99, 49), qRgba(0, 0, 0, 0)); // below the boxes' rows
    const uchar *pixels = renderer.base().constBits();
    // The box is selected (drawn red): the base is drawn again, kept in the old one's pixels.
    state.style.boxes = { { QRectF(5, 5, 40, 20), qRgb(255, 0, 0) } };
    const QImage second = renderer.render(geometry, state, 0.1, QSize(100, 50), {});
    QVERIFY(!renderer.reusedBase());
    QCOMPARE(renderer.base().constBits(), pixels);
    QCOMPARE(renderer.base().colorCount(), 3);
    QCOMPARE(second.pixelColor(2, 1), QColor(255, 0, 0));
    // The composed picture has the base's pixels: the second box (55, 5, 40, 20) unselected.
    QCOMPARE(second.pixelColor(7, 1), QColor(0x30, 0x30, 0x30));
    QCOMPARE(second.pixel(99, 49), qRgba(0, 0, 0, 0));
    // The first picture, handed out before, is untouched.
    QCOMPARE(first.pixelColor(2, 1), QColor(0x30, 0x30, 0x30));
    // Another size: a base of that size.
    const QImage third = renderer.render(geometry, state, 0.05, QSize(50, 25), {});
    QCOMPARE(renderer.base().size(), QSize(50, 25));
    QCOMPARE(third.size(), QSize(50, 25));
}

QTEST_MAIN(TestFarPicture)
#include "tst_farpicture.moc"
