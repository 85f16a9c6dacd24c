// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The far picture (the canvas' whole-drawing image below zoom 0.1): rendered on a worker, never
// in a frame; the previous picture is painted until the new one arrives; a superseded render is
// never shown; the image stays within its pixel bound.
#include "../core/GraphBuilder.h"
#include "GatedChain.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/far/FarPicture.h"
#include "ui/canvas/far/FarPictureRenderer.h"
#include "ui/canvas/far/PaletteImageBuilder.h"
#include "ui/canvas/view/CanvasView.h"

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

// A partition's far tint on the light canvas: 40% of the palette colour over white, by hand.
QColor farTint(int red, int green, int blue)
{
    auto mix = [](int channel) { return qRound(255 * (1 - 0.40) + channel * 0.40); };
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

// A layout of `count` node boxes 40 x 20 in rows over `bounds`, without edges.
Layout boxLayout(const QRectF &bounds, int count)
{
    Layout layout;
    const int perRow = std::max(1, static_cast<int>(bounds.width() / 50));
    for (int i = 0; i < count; ++i)
        layout.nodes.emplace(NodeId(static_cast<std::uint32_t>(i)),
                             LayoutRect { bounds.left() + 5 + (i % perRow) * 50,
                                          bounds.top() + 5 + (i / perRow) * 30, 40, 20 });
    return layout;
}

// The FarGeometry of `layout` over `bounds`, every node in category 0.
std::shared_ptr<const ui::FarGeometry> geometryOf(Layout layout, const QRectF &bounds)
{
    auto g = std::make_shared<ui::FarGeometry>();
    g->bounds = bounds;
    g->categories.assign(layout.nodes.size(), 0);
    g->layout = std::make_shared<const Layout>(std::move(layout));
    g->regionPadX = 4;
    g->regionPadY = 4;
    return g;
}

std::shared_ptr<const ui::FarGeometry> boxes(const QRectF &bounds, int count)
{
    return geometryOf(boxLayout(bounds, count), bounds);
}

// A hand-made drawing 200 x 300 scene units, drawn at 0.1: 20 x 30 pixels. Node A (20, 20,
// 40 x 20) covers pixels x 2..5, y 2..3; node B (120, 240, 40 x 20) pixels x 12..15, y 24..25.
// The edge A -> B runs straight down x = 45 from y = 40 to 150 (pixel column 4, rows 4..15),
// then at 45 degrees to (135, 240) (pixel (13.5, 24)): it crosses every strip of a few rows.
std::shared_ptr<const ui::FarGeometry> handMade()
{
    Layout layout;
    layout.nodes.emplace(NodeId(0U), LayoutRect { 20, 20, 40, 20 });
    layout.nodes.emplace(NodeId(1U), LayoutRect { 120, 240, 40, 20 });
    // Straight cubic segments: each control point on the segment.
    const std::vector<LayoutPoint> route { { 45, 40 },  { 45, 80 },   { 45, 110 }, { 45, 150 },
                                           { 75, 180 }, { 105, 210 }, { 135, 240 } };
    layout.edges.append(EdgeRef { TensorRef { NodeId(0U), 0 }, NodeId(1U) }, route, {}, false,
                        false);
    auto g = std::make_shared<ui::FarGeometry>();
    g->layout = std::make_shared<const Layout>(std::move(layout));
    g->bounds = QRectF(0, 0, 200, 300);
    g->categories = { 0, 1 };
    g->regionPadX = 10;
    g->regionPadY = 10;
    return g;
}

const QRgb edgeGrey = qRgb(0x80, 0x80, 0x80);
const QRgb boxA = qRgb(0x30, 0x30, 0x30);
const QRgb boxB = qRgb(0x20, 0x60, 0x20);
const QRgb selected = qRgb(0xff, 0, 0);
const QRgb tintA = qRgb(0xb2, 0xcd, 0xe0);
const QRgb tintB = qRgb(0xf6, 0xc9, 0xb6);
const QRgb boundaryBlue = qRgb(0x1f, 0x77, 0xb4);

// B selected; A in partition 0, B in partition 1, the edge a boundary edge of A's colour.
ui::FarState handMadeState(const ui::FarGeometry &g)
{
    ui::FarState s;
    s.style.edge = edgeGrey;
    s.style.categories = { boxA, boxB };
    s.style.boxes = { { QRectF(120, 240, 40, 20), selected } };
    s.plan.nodeSlots = std::make_shared<const std::vector<std::int32_t>>(std::vector { 0, 1 });
    s.plan.edgeSlots = std::make_shared<const std::vector<std::int32_t>>(std::vector { -1 });
    s.plan.tints = { tintA, tintB };
    QPolygonF line;
    const std::span<const LayoutPoint> points = g.layout->edges.spline(0).points();
    for (std::size_t i = 0; i < points.size(); i += 3) {
        const LayoutPoint &p = points[i];
        line.append(QPointF(p.x, p.y));
    }
    s.plan.boundary = std::make_shared<const std::vector<std::pair<QPolygonF, QRgb>>>(
        std::vector { std::pair { line, boundaryBlue } });
    return s;
}

QImage argb(const QImage &image)
{
    return image.convertToFormat(QImage::Format_ARGB32_Premultiplied);
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
    void pictureHasTheDrawingsPixels();
    void stripsDrawTheWholePicturesPixels();
    void manyColoursKeepThirtyTwoBits();

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
    Layout layout = boxLayout(QRectF(0, 1000, 5000, 60000), 200000);
    layout.nodes.begin()->second = LayoutRect { 200, 200, 400, 400 };
    auto g = std::make_shared<ui::FarGeometry>(
        *geometryOf(std::move(layout), QRectF(0, 0, 5000, 61000)));
    g->regionPadX = 100;
    g->regionPadY = 100;
    std::shared_ptr<const ui::FarGeometry> geometry = g;
    auto nodeSlots = std::make_shared<std::vector<std::int32_t>>(geometry->layout->nodes.size(), 0);
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

void TestFarPicture::pictureHasTheDrawingsPixels()
{
    ui::FarPictureRenderer renderer;
    const auto geometry = handMade();
    const ui::FarState state = handMadeState(*geometry);
    const QImage picture = renderer.render(geometry, state, 0.1, QSize(20, 30), {});
    QCOMPARE(picture.size(), QSize(20, 30));
    // Few flat colours: kept in 8 bits a pixel, as the base.
    QCOMPARE(picture.format(), QImage::Format_Indexed8);
    QCOMPARE(renderer.base().format(), QImage::Format_Indexed8);
    const QImage base = renderer.base();
    // The base: A's box in its category's colour, B's in the selection's red over its own, the
    // edge a pixel wide down column 4, nothing beside it.
    QCOMPARE(base.pixel(3, 2), boxA);
    QCOMPARE(base.pixel(13, 24), selected);
    QCOMPARE(base.pixel(4, 10), edgeGrey);
    QCOMPARE(base.pixel(6, 10), qRgba(0, 0, 0, 0));
    QCOMPARE(base.pixel(1, 1), qRgba(0, 0, 0, 0));
    // The picture: A's padded box (10, 10, 60 x 40: pixels x 1..6, y 1..4) in partition 0's
    // tint where the base is empty, B's (110, 230, 60 x 40: x 11..16, y 23..26) in partition
    // 1's; the boxes over them; the boundary edge (2 pixels wide) over the grey line.
    QCOMPARE(picture.pixel(1, 1), tintA);
    QCOMPARE(picture.pixel(6, 4), tintA);
    QCOMPARE(picture.pixel(3, 2), boxA);
    QCOMPARE(picture.pixel(16, 26), tintB);
    QCOMPARE(picture.pixel(15, 25), selected); // beside the boundary edge's end at (13.5, 24)
    QCOMPARE(picture.pixel(4, 10), boundaryBlue);
    QCOMPARE(picture.pixel(8, 10), qRgba(0, 0, 0, 0));
    QCOMPARE(picture.pixel(19, 0), qRgba(0, 0, 0, 0));
}

void TestFarPicture::stripsDrawTheWholePicturesPixels()
{
    // The same drawing drawn whole (one strip: a small picture is) and in strips of 4 rows
    // (8 strips; the edge crosses 6 of their edges): the same pixels, base and picture.
    const auto geometry = handMade();
    const ui::FarState state = handMadeState(*geometry);
    ui::FarPictureRenderer whole;
    const QImage wholePicture = whole.render(geometry, state, 0.1, QSize(20, 30), {});
    ui::FarPictureRenderer strips;
    strips.setStripRows(4);
    const QImage stripPicture = strips.render(geometry, state, 0.1, QSize(20, 30), {});
    QCOMPARE(argb(strips.base()), argb(whole.base()));
    QCOMPARE(argb(stripPicture), argb(wholePicture));
    // Strips of 1 row: every segment crosses strip edges.
    ui::FarPictureRenderer rows;
    rows.setStripRows(1);
    QCOMPARE(argb(rows.render(geometry, state, 0.1, QSize(20, 30), {})), argb(wholePicture));
}

void TestFarPicture::manyColoursKeepThirtyTwoBits()
{
    // 300 colours, 20 a row: the first 12 rows (240 colours) go in 8 bits, the 13th brings the
    // 257th colour on: the image is 32 bits, every pixel as set.
    auto colourAt = [](int x, int y) { return qRgb(x, y, 7); };
    // A 20-pixel-wide picture of `rows` rows, each pixel colourAt its position.
    auto picture = [&](int rows) {
        ui::PaletteImageBuilder builder(QSize(20, rows), {});
        std::vector<QRgb> row(20);
        for (int y = 0; y < rows; ++y) {
            for (int x = 0; x < 20; ++x)
                row[static_cast<std::size_t>(x)] = colourAt(x, y);
            builder.setRow(y, row.data());
        }
        return builder.take();
    };
    const QImage wide = picture(15);
    QCOMPARE(wide.format(), QImage::Format_ARGB32_Premultiplied);
    for (int y = 0; y < 15; ++y)
        for (int x = 0; x < 20; ++x)
            QCOMPARE(wide.pixel(x, y), colourAt(x, y));
    // 12 rows: 240 colours, in 8 bits.
    const QImage indexed = picture(12);
    QCOMPARE(indexed.format(), QImage::Format_Indexed8);
    QCOMPARE(indexed.colorCount(), 240);
    QCOMPARE(indexed.pixel(19, 11), colourAt(19, 11));
}

QTEST_MAIN(TestFarPicture)
#include "tst_farpicture.moc"
