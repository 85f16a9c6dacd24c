// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "SceneItems.h"
#include "TestSupport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/BlockFrameLayer.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/view/Minimap.h"
#include "ui/support/OpCategory.h"

#include <QApplication>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHelpEvent>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest/QtTest>

#include <algorithm>

using namespace cleave;
using cleave::ui::CanvasWidget;
using test::itemsOf;

Q_DECLARE_METATYPE(std::vector<cleave::EdgeRef>)

namespace {

using test::loadSample;

ui::EdgeItem *edgeItem(QGraphicsScene *scene, EdgeRef edge)
{
    for (ui::EdgeItem *item : itemsOf<ui::EdgeItem>(scene))
        if (item->edge() == edge)
            return item;
    return nullptr;
}

} // namespace

class TestCanvas : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void layoutDrawsEveryNodeAndEdge();
    void clickAndShiftClickSelect();
    void rubberBandSelects();
    void cutStrokeReportsCrossedEdges();
    void planDrawsRegionsAndBadges();
    void planItemsStayOffTheTopLevel();
    void minimapTintsFollowThePlan();
    void newerGraphSupersedesStaleLayout();
    void cancelStopsTheLayout();
    void keyboardZoomAndFit();
    void doubleClickAndContextMenu();
    void exportsSvgAndPng();
    void blockFramesSelectTheirBlock();
    void blockFramesPaintOnlyThoseInView();

private:
    /// Lays the graph out; `makeItems`: then makes every node's and edge's item.
    void waitForLayout(bool makeItems = true);
    NodeId id(const char *key) const { return m_graph->findByKey(key); }
    TensorRef out(const char *key) const { return TensorRef { id(key), 0 }; }
    void showAtNaturalSize(const char *key);
    QWidget *viewport() const { return m_canvas->view()->viewport(); }
    QGraphicsScene *scene() const { return m_canvas->view()->scene(); }

    QTemporaryDir m_cacheDir;
    std::unique_ptr<Graph> m_graph;
    std::unique_ptr<CanvasWidget> m_canvas;
};

void TestCanvas::initTestCase()
{
    qRegisterMetaType<std::vector<cleave::EdgeRef>>();
    QVERIFY(m_cacheDir.isValid());
    m_graph = loadSample("resnet18.relay");
}

void TestCanvas::init()
{
    m_canvas = std::make_unique<CanvasWidget>();
    m_canvas->setCacheDirectory(m_cacheDir.path());
    m_canvas->resize(1000, 800);
    m_canvas->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_canvas.get()));
}

void TestCanvas::cleanup()
{
    m_canvas.reset();
}

void TestCanvas::waitForLayout(bool makeItems)
{
    QSignalSpy finished(m_canvas.get(), &CanvasWidget::layoutFinished);
    m_canvas->setGraph(m_graph.get(), m_graph->mainFunction(), m_graph->checksum());
    QVERIFY(!m_canvas->isLayoutReady());
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY(m_canvas->isLayoutReady());
    // The tiles paint without items: the tests inspect the item of every node and edge.
    if (makeItems)
        m_canvas->makeAllItems();
}

void TestCanvas::showAtNaturalSize(const char *key)
{
    m_canvas->view()->setTransform(QTransform());
    m_canvas->view()->centerOn(m_canvas->view()->mapToScene(m_canvas->viewportPosOfNode(id(key))));
    QCoreApplication::processEvents();
}

void TestCanvas::layoutDrawsEveryNodeAndEdge()
{
    waitForLayout();
    QCOMPARE(itemsOf<ui::NodeItem>(scene()).size(), std::size_t(92));
    QCOMPARE(itemsOf<ui::EdgeItem>(scene()).size(), std::size_t(99));
    // Inputs stand apart, nodes carry op name and shape, weights are not drawn.
    for (ui::NodeItem *n : itemsOf<ui::NodeItem>(scene())) {
        if (n->nodeId() == id("%data")) {
            QCOMPARE(n->role(), LayoutNodeRole::Input);
            QCOMPARE(n->subtitle(), QStringLiteral("1\u00d73\u00d7224\u00d7224"));
        }
        if (n->nodeId() == id("%0")) {
            QCOMPARE(n->title(), QStringLiteral("nn.conv2d"));
            QCOMPARE(n->category(), ui::OpCategory::Convolution);
        }
        QVERIFY(m_graph->node(n->nodeId()).kind != NodeKind::Constant);
    }
    // ResNet-18 is too tall to fit with readable labels: the view opens on its top (the input)
    // at a readable zoom; F fits the whole drawing.
    QCOMPARE(m_canvas->view()->transform().m11(), 0.8);
    QRectF visible = m_canvas->view()->mapToScene(viewport()->rect()).boundingRect();
    QVERIFY(
        visible.contains(m_canvas->view()->mapToScene(m_canvas->viewportPosOfNode(id("%data")))));
    m_canvas->fitToView();
    visible = m_canvas->view()->mapToScene(viewport()->rect()).boundingRect();
    for (ui::NodeItem *n : itemsOf<ui::NodeItem>(scene()))
        QVERIFY(visible.contains(n->rect()));
    // The edge tooltip names the tensor, its shape, dtype and bytes; it is made when asked
    // (nothing is stored on the item).
    ui::EdgeItem *edge = edgeItem(scene(), EdgeRef { out("%12"), id("%13") });
    QVERIFY(edge != nullptr);
    QVERIFY(edge->toolTip().isEmpty());
    m_canvas->view()->setTransform(QTransform());
    m_canvas->view()->centerOn(edge->path().pointAtPercent(0.5));
    QCOMPARE(m_canvas->toolTipAt(m_canvas->viewportPosOfEdge(out("%12"), id("%13"))),
             QStringLiteral(
                 "<b>%12</b> → %13<br>shape 1\u00d764\u00d756\u00d756 · float32 · 784.0 KiB"));
}

void TestCanvas::clickAndShiftClickSelect()
{
    waitForLayout();
    showAtNaturalSize("%6");
    QSignalSpy changed(m_canvas.get(), &CanvasWidget::selectionChanged);
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, m_canvas->viewportPosOfNode(id("%5")));
    QCOMPARE(m_canvas->selectedNodes(), std::vector<NodeId>({ id("%5") }));
    QVERIFY(changed.count() >= 1);

    QTest::mouseClick(viewport(), Qt::LeftButton, Qt::ShiftModifier,
                      m_canvas->viewportPosOfNode(id("%8")));
    QCOMPARE(m_canvas->selectedNodes(), std::vector<NodeId>({ id("%5"), id("%8") }));
    QTest::mouseClick(viewport(), Qt::LeftButton, Qt::ControlModifier,
                      m_canvas->viewportPosOfNode(id("%5")));
    QCOMPARE(m_canvas->selectedNodes(), std::vector<NodeId>({ id("%8") }));

    // A plain click elsewhere replaces the selection; selectNodes() replaces it too.
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, m_canvas->viewportPosOfNode(id("%6")));
    QCOMPARE(m_canvas->selectedNodes(), std::vector<NodeId>({ id("%6") }));
    m_canvas->selectNodes({ id("%3"), id("%4") });
    QCOMPARE(m_canvas->selectedNodes(), std::vector<NodeId>({ id("%3"), id("%4") }));
}

void TestCanvas::rubberBandSelects()
{
    waitForLayout();
    showAtNaturalSize("%6");
    const QPoint top = m_canvas->viewportPosOfNode(id("%5"));
    const QPoint bottom = m_canvas->viewportPosOfNode(id("%8"));
    // From empty space left of conv %5 to the right of relu %8: the four nodes of the branch.
    const QPoint from(top.x() - 200, top.y() - 4);
    const QPoint to(bottom.x() + 60, bottom.y() + 4);
    // No node or edge there (the press lands on empty space, inside a tile's box at most).
    for (const QGraphicsItem *item : m_canvas->view()->items(from))
        QVERIFY(item->type() != ui::NodeItemType && item->type() != ui::EdgeItemType);
    QTest::mousePress(viewport(), Qt::LeftButton, {}, from);
    for (int i = 1; i <= 10; ++i)
        QTest::mouseMove(viewport(), from + (to - from) * i / 10);
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, to);
    QCOMPARE(m_canvas->selectedNodes(),
             std::vector<NodeId>({ id("%5"), id("%6"), id("%7"), id("%8") }));
}

void TestCanvas::cutStrokeReportsCrossedEdges()
{
    waitForLayout();
    m_canvas->setTool(CanvasWidget::Tool::Cut);
    QCOMPARE(m_canvas->tool(), CanvasWidget::Tool::Cut);
    showAtNaturalSize("%13");
    QSignalSpy cut(m_canvas.get(), &CanvasWidget::cutRequested);

    // Across the edge leaving the first residual add: exactly that edge.
    const EdgeRef addToRelu { out("%12"), id("%13") };
    QPoint p = m_canvas->viewportPosOfEdge(addToRelu.tensor, addToRelu.consumer);
    QVERIFY(!p.isNull());
    QTest::mousePress(viewport(), Qt::LeftButton, {}, p - QPoint(60, 0));
    for (int i = 1; i <= 12; ++i)
        QTest::mouseMove(viewport(), p - QPoint(60, 0) + QPoint(10 * i, 0));
    // Crossed edges light up while the stroke is being drawn, before release.
    QVERIFY(edgeItem(scene(), addToRelu)->isCutHover());
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, p + QPoint(60, 0));
    QCOMPARE(cut.count(), 1);
    QCOMPARE(cut.at(0).at(0).value<std::vector<EdgeRef>>(), std::vector<EdgeRef>({ addToRelu }));
    QVERIFY(!edgeItem(scene(), addToRelu)->isCutHover());

    // Across both edges leaving relu %13: into conv %14 and the skip connection into add %21.
    const EdgeRef toConv { out("%13"), id("%14") };
    const EdgeRef skip { out("%13"), id("%21") };
    p = m_canvas->viewportPosOfEdge(toConv.tensor, toConv.consumer);
    QTest::mousePress(viewport(), Qt::LeftButton, {}, p - QPoint(150, 0));
    for (int i = 1; i <= 30; ++i)
        QTest::mouseMove(viewport(), p - QPoint(150, 0) + QPoint(10 * i, 0));
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, p + QPoint(150, 0));
    QCOMPARE(cut.count(), 2);
    QCOMPARE(cut.at(1).at(0).value<std::vector<EdgeRef>>(), std::vector<EdgeRef>({ toConv, skip }));

    // A stroke over empty space requests no cut: it says it missed, and its line is gone.
    QSignalSpy missed(m_canvas.get(), &CanvasWidget::cutMissed);
    const QPoint empty(5, 5);
    QTest::mousePress(viewport(), Qt::LeftButton, {}, empty);
    QTest::mouseMove(viewport(), empty + QPoint(20, 0));
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, empty + QPoint(20, 0));
    QCOMPARE(cut.count(), 2);
    QCOMPARE(missed.count(), 1);
    const QList<QGraphicsItem *> strokes = scene()->items();
    QVERIFY(std::none_of(strokes.begin(), strokes.end(), [](QGraphicsItem *item) {
        return item->type() == QGraphicsPathItem::Type && item->zValue() == 100;
    }));

    // Back in the select tool a drag is a rubber band again, not a cut.
    m_canvas->setTool(CanvasWidget::Tool::Select);
    QTest::mousePress(viewport(), Qt::LeftButton, {}, p - QPoint(150, 0));
    QTest::mouseMove(viewport(), p + QPoint(150, 0));
    QTest::mouseRelease(viewport(), Qt::LeftButton, {}, p + QPoint(150, 0));
    QCOMPARE(cut.count(), 2);
}

void TestCanvas::planDrawsRegionsAndBadges()
{
    waitForLayout();
    PartitionPlan plan(*m_graph);
    const EdgeRef addToRelu { out("%12"), id("%13") };
    plan.cutAcrossEdges({ addToRelu });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const BoundaryTable boundary = computeBoundary(plan);
    m_canvas->setPlan(&plan, &boundary);

    const auto regions = itemsOf<ui::PartitionRegionItem>(scene());
    QCOMPARE(regions.size(), std::size_t(2));
    QStringList names;
    for (ui::PartitionRegionItem *r : regions)
        names << r->name();
    names.sort();
    QCOMPARE(names,
             QStringList({ QString::fromStdString(plan.partitions()[0].name),
                           QString::fromStdString(plan.partitions()[1].name) }));
    const auto badges = itemsOf<ui::BadgeItem>(scene());
    QCOMPARE(badges.size(), std::size_t(1));
    QCOMPARE(badges[0]->text(), QStringLiteral("data_n_0 · 1\u00d764\u00d756\u00d756 · 784.0 KiB"));
    QCOMPARE(badges[0]->edge(), addToRelu);
    // The boundary edge is bold in the producing partition's colour; the others are not.
    QCOMPARE(edgeItem(scene(), addToRelu)->boundaryColour(),
             ui::partitionColour(plan.partitions()[0].colour));
    QVERIFY(!edgeItem(scene(), EdgeRef { out("%13"), id("%14") })->boundaryColour().isValid());
    // A node region lies behind its node.
    for (ui::PartitionRegionItem *r : regions) {
        const PartitionId pid = r->partitionId();
        const NodeId sample = pid == plan.partitions()[0].id ? id("%5") : id("%14");
        for (ui::NodeItem *n : itemsOf<ui::NodeItem>(scene()))
            if (n->nodeId() == sample)
                QVERIFY(r->boxes().contains(n->rect().center()));
    }

    m_canvas->highlightPartition(plan.partitions()[1].id);
    m_canvas->flashEdges({ EdgeRef { out("%13"), id("%21") } });

    // Clearing the plan removes regions and badges.
    m_canvas->setPlan(nullptr, nullptr);
    QCOMPARE(itemsOf<ui::PartitionRegionItem>(scene()).size(), std::size_t(0));
    QCOMPARE(itemsOf<ui::BadgeItem>(scene()).size(), std::size_t(0));
    QVERIFY(!edgeItem(scene(), addToRelu)->boundaryColour().isValid());
}

namespace {

std::size_t topLevelCount(QGraphicsScene *scene)
{
    std::size_t n = 0;
    for (QGraphicsItem *item : scene->items())
        n += item->parentItem() == nullptr ? 1 : 0;
    return n;
}

// The minimap's tint of a partition colour: 60 % white and 40 % of the colour, per channel.
QRgb minimapTint(const QColor &c)
{
    return qRgb(qRound(153 + 0.4 * c.red()), qRound(153 + 0.4 * c.green()),
                qRound(153 + 0.4 * c.blue()));
}

struct TintPixels
{
    int count = 0;
    int firstRow = -1;
};

// The pixels of `image` within one step per channel of `colour` (QColor's float rounding).
TintPixels pixelsOf(const QImage &image, QRgb colour)
{
    TintPixels found;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            if (std::abs(qRed(p) - qRed(colour)) <= 1 && std::abs(qGreen(p) - qGreen(colour)) <= 1
                && std::abs(qBlue(p) - qBlue(colour)) <= 1) {
                ++found.count;
                if (found.firstRow < 0)
                    found.firstRow = y;
            }
        }
    }
    return found;
}

} // namespace

void TestCanvas::planItemsStayOffTheTopLevel()
{
    // Regions, their names and badges hang under three layer items made with the first plan:
    // replacing a plan adds or removes no top-level item (each costs a walk of the scene's
    // index or of its top-level list on a large model).
    waitForLayout();
    const std::size_t drawn = topLevelCount(scene());
    PartitionPlan plan(*m_graph);
    BoundaryTable boundary = computeBoundary(plan);
    m_canvas->setPlan(&plan, &boundary);
    QCOMPARE(topLevelCount(scene()), drawn + 3);
    plan.cutAcrossEdges({ EdgeRef { out("%12"), id("%13") } });
    boundary = computeBoundary(plan);
    m_canvas->setPlan(&plan, &boundary);
    QCOMPARE(topLevelCount(scene()), drawn + 3);
    const auto regions = itemsOf<ui::PartitionRegionItem>(scene());
    QCOMPARE(regions.size(), std::size_t(2));
    const auto badges = itemsOf<ui::BadgeItem>(scene());
    QCOMPARE(badges.size(), std::size_t(1));
    const auto labels = itemsOf<ui::RegionLabelItem>(scene());
    QCOMPARE(labels.size(), std::size_t(2));
    for (QGraphicsItem *item :
         { static_cast<QGraphicsItem *>(regions[0]), static_cast<QGraphicsItem *>(badges[0]),
           static_cast<QGraphicsItem *>(labels[0]) })
        QVERIFY(item->parentItem() != nullptr);
    // Stacked: regions under edges (z 1) and nodes (z 2), badges above nodes, and the names on
    // their plates above everything (issue 32: a badge or a node beside the region's top
    // hid the name).
    QCOMPARE(regions[0]->parentItem()->zValue(), -10.0);
    QCOMPARE(labels[0]->parentItem()->zValue(), 6.0);
    QCOMPARE(badges[0]->parentItem()->zValue(), 5.0);

    // The badge is still found where it is drawn (hit tests go through the layer).
    showAtNaturalSize("%12");
    const QPointF badgeScene = badges[0]->mapToScene(badges[0]->boundingRect().center());
    bool hit = false;
    for (QGraphicsItem *item :
         scene()->items(badgeScene, Qt::IntersectsItemShape, Qt::DescendingOrder,
                        m_canvas->view()->viewportTransform()))
        hit = hit || item == badges[0];
    QVERIFY(hit);

    m_canvas->setPlan(nullptr, nullptr);
    QCOMPARE(topLevelCount(scene()), drawn + 3);
    QCOMPARE(itemsOf<ui::PartitionRegionItem>(scene()).size(), std::size_t(0));
}

void TestCanvas::minimapTintsFollowThePlan()
{
    waitForLayout();
    auto *minimap = m_canvas->findChild<ui::Minimap *>();
    QVERIFY(minimap != nullptr);
    // The minimap frames the visible area in translucent blue: zoomed in on the scene's far
    // corner, beyond the drawing, the frame covers none of it.
    m_canvas->view()->setTransform(QTransform::fromScale(4, 4));
    m_canvas->view()->centerOn(scene()->sceneRect().bottomRight());

    // One partition: its tint shows, a second partition's does not.
    PartitionPlan plan(*m_graph);
    BoundaryTable boundary = computeBoundary(plan);
    m_canvas->setPlan(&plan, &boundary);
    QVERIFY(minimap->isVisible());
    const QRgb first = minimapTint(ui::partitionColour(plan.partitions()[0].colour));
    QImage image = minimap->grab().toImage();
    const TintPixels whole = pixelsOf(image, first);
    QVERIFY(whole.count > 0);

    // The cut after the first residual add: the rest of the graph (below, and far larger)
    // takes the second partition's tint; the first keeps its own over the top.
    plan.cutAcrossEdges({ EdgeRef { out("%12"), id("%13") } });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QVERIFY(plan.partitions()[0].colour != plan.partitions()[1].colour);
    boundary = computeBoundary(plan);
    m_canvas->setPlan(&plan, &boundary);
    image = minimap->grab().toImage();
    const TintPixels top = pixelsOf(image, first);
    const TintPixels rest
        = pixelsOf(image, minimapTint(ui::partitionColour(plan.partitions()[1].colour)));
    QVERIFY(top.count > 0);
    QVERIFY(rest.count > top.count);
    QVERIFY(top.count < whole.count);
    QVERIFY2(rest.firstRow > top.firstRow,
             qPrintable(QStringLiteral("%1 <= %2").arg(rest.firstRow).arg(top.firstRow)));

    // No plan: no tints.
    m_canvas->setPlan(nullptr, nullptr);
    image = minimap->grab().toImage();
    QCOMPARE(pixelsOf(image, first).count, 0);
    QCOMPARE(pixelsOf(image, minimapTint(ui::partitionColour(plan.partitions()[1].colour))).count,
             0);
}

void TestCanvas::newerGraphSupersedesStaleLayout()
{
    auto inception = loadSample("inception_block.relay");
    QSignalSpy finished(m_canvas.get(), &CanvasWidget::layoutFinished);
    QSignalSpy started(m_canvas.get(), &CanvasWidget::layoutStarted);
    m_canvas->setGraph(m_graph.get(), m_graph->mainFunction(), "supersede-a");
    m_canvas->setGraph(inception.get(), inception->mainFunction(), "supersede-b");
    QCOMPARE(started.count(), 2);
    QVERIFY(finished.wait(20000));
    QTest::qWait(300); // a stale result would arrive now
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    m_canvas->makeAllItems();
    QVERIFY(!itemsOf<ui::NodeItem>(scene()).empty());
    for (ui::NodeItem *n : itemsOf<ui::NodeItem>(scene()))
        QCOMPARE(n->nodeId().index() < inception->nodeCount(), true);
    const NodeId firstConv = inception->findByKey("%0");
    QVERIFY(!m_canvas->viewportPosOfNode(firstConv).isNull());
    m_canvas->setGraph(nullptr, {}, {});
    QVERIFY(!m_canvas->isLayoutReady());
    QCOMPARE(itemsOf<ui::NodeItem>(scene()).size(), std::size_t(0));
}

void TestCanvas::cancelStopsTheLayout()
{
    QSignalSpy finished(m_canvas.get(), &CanvasWidget::layoutFinished);
    m_canvas->setGraph(m_graph.get(), m_graph->mainFunction(), "cancel-test");
    m_canvas->cancelLayout();
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("layout cancelled"));
    QTest::qWait(300);
    QCOMPARE(finished.count(), 1);
    QVERIFY(!m_canvas->isLayoutReady());
}

void TestCanvas::keyboardZoomAndFit()
{
    waitForLayout();
    QGraphicsView *view = m_canvas->view();
    view->setFocus();
    m_canvas->fitToView();
    const qreal fitted = view->transform().m11();
    QTest::keyClick(view, Qt::Key_Plus);
    QVERIFY(qAbs(view->transform().m11() - fitted * 1.25) < 1e-6);
    QTest::keyClick(view, Qt::Key_Minus);
    QVERIFY(qAbs(view->transform().m11() - fitted) < 1e-6);
    QTest::keyClick(view, Qt::Key_Plus);
    QTest::keyClick(view, Qt::Key_F);
    QVERIFY(qAbs(view->transform().m11() - fitted) < 1e-6);
    // Z zooms to the selection.
    m_canvas->selectNodes({ id("%12") });
    QTest::keyClick(view, Qt::Key_Z);
    QVERIFY(view->transform().m11() > fitted * 2);
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    QVERIFY(visible.contains(view->mapToScene(m_canvas->viewportPosOfNode(id("%12")))));
    // centerOnNode brings a node to the middle of the view.
    m_canvas->fitToView();
    m_canvas->centerOnNode(id("%40"));
    const QPoint centre = m_canvas->viewportPosOfNode(id("%40"));
    QVERIFY((centre - view->viewport()->rect().center()).manhattanLength() <= 4);
}

void TestCanvas::doubleClickAndContextMenu()
{
    waitForLayout();
    showAtNaturalSize("%6");
    QSignalSpy activated(m_canvas.get(), &CanvasWidget::nodeActivated);
    QTest::mouseDClick(viewport(), Qt::LeftButton, {}, m_canvas->viewportPosOfNode(id("%6")));
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).value<NodeId>(), id("%6"));

    QSignalSpy menu(m_canvas.get(), &CanvasWidget::contextMenuRequested);
    const QPoint pos = m_canvas->viewportPosOfNode(id("%7"));
    QContextMenuEvent event(QContextMenuEvent::Mouse, pos, viewport()->mapToGlobal(pos));
    QApplication::sendEvent(viewport(), &event);
    QCOMPARE(menu.count(), 1);
    QCOMPARE(m_canvas->selectedNodes(), std::vector<NodeId>({ id("%7") }));
}

void TestCanvas::exportsSvgAndPng()
{
    waitForLayout(false);
    PartitionPlan plan(*m_graph);
    plan.cutAcrossEdges({ EdgeRef { out("%12"), id("%13") } });
    const BoundaryTable boundary = computeBoundary(plan);
    m_canvas->setPlan(&plan, &boundary);
    QTemporaryDir dir;
    QString error;
    const QString svg = dir.filePath(QStringLiteral("graph.svg"));
    const std::size_t nodeItems = itemsOf<ui::NodeItem>(scene()).size();
    const std::size_t edgeItems = itemsOf<ui::EdgeItem>(scene()).size();
    // No mouse has moved over the canvas: no item exists, and the export makes none (the
    // tiles describe the drawing to the SVG writer).
    QCOMPARE(nodeItems + edgeItems, std::size_t(0));
    QVERIFY2(m_canvas->exportImage(svg, &error), qPrintable(error));
    QCOMPARE(itemsOf<ui::NodeItem>(scene()).size(), nodeItems);
    QCOMPARE(itemsOf<ui::EdgeItem>(scene()).size(), edgeItems);
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY(text.startsWith(QStringLiteral("<?xml")));
    // Every node and every edge of the graph (92 and 99, as in layoutDrawsEveryNodeAndEdge),
    // stacked as the canvas stacks them: plain edges, then the bold boundary edges, then nodes.
    QCOMPARE(text.count(QStringLiteral("<rect class=\"node\"")), 92);
    const qsizetype plain = text.count(QStringLiteral("stroke-width=\"1.2\"/>"));
    const qsizetype bold = text.count(QStringLiteral("stroke-width=\"3\"/>"));
    QCOMPARE(plain + bold, 99);
    QVERIFY(bold >= 1); // the cut edge
    const qsizetype firstNode = text.indexOf(QStringLiteral("<rect class=\"node\""));
    QVERIFY(text.lastIndexOf(QStringLiteral("stroke-width=\"1.2\"/>"))
            < text.indexOf(QStringLiteral("stroke-width=\"3\"/>")));
    QVERIFY(text.lastIndexOf(QStringLiteral("stroke-width=\"3\"/>")) < firstNode);
    QCOMPARE(text.count(QStringLiteral(">nn.conv2d</text>")), 20);
    QVERIFY(text.contains(QStringLiteral("data_n_0 · 1\u00d764\u00d756\u00d756 · 784.0 KiB")));
    QVERIFY(text.trimmed().endsWith(QStringLiteral("</svg>")));

    const QString png = dir.filePath(QStringLiteral("graph.png"));
    QVERIFY2(m_canvas->exportImage(png, &error), qPrintable(error));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.height() > image.width()); // a ResNet is tall

    QVERIFY(!m_canvas->exportImage(dir.filePath(QStringLiteral("graph.bmp")), &error));
    QVERIFY(error.contains(QStringLiteral("Unsupported image format")));
}

void TestCanvas::blockFramesSelectTheirBlock()
{
    waitForLayout();
    FusionOptions options;
    options.foldBatchNorm
        = true; // conv → batch_norm → .0 → relu is one kernel, as in built ResNets
    const std::vector<FusedBlock> blocks = fuseOps(*m_graph, m_graph->mainFunction(), options);
    m_canvas->setBlocks(blocks);
    std::size_t multi = 0;
    for (const FusedBlock &b : blocks)
        multi += b.nodes.size() >= 2 ? 1 : 0;
    // One item shows every frame.
    const auto layers = itemsOf<ui::BlockFrameLayer>(scene());
    QCOMPARE(layers.size(), std::size_t(1));
    const ui::BlockFrameLayer *frames = layers.front();
    QCOMPARE(frames->frameCount(), multi);
    std::size_t frame = ui::BlockFrameLayer::none;
    for (std::size_t f = 0; f < frames->frameCount(); ++f) {
        const auto nodes = frames->nodes(f);
        if (std::find(nodes.begin(), nodes.end(), id("%5")) != nodes.end())
            frame = f;
    }
    QVERIFY(frame != ui::BlockFrameLayer::none);
    // The stem conv (stride 2, 7x7) is the other, structurally different, conv-add-relu kernel.
    QCOMPARE(frames->name(frame), QStringLiteral("fused_nn_conv2d_add_nn_relu_1"));
    // The frame is its four drawn nodes' boxes united, 7 units out; the name tab stands 3 units
    // right of its top-right corner.
    QRectF around;
    for (const char *key : { "%5", "%6", "%7", "%8" }) {
        const ui::NodeItem *node = m_canvas->nodeItem(id(key));
        QVERIFY(node != nullptr);
        around = around.united(node->mapRectToScene(node->rect()));
    }
    QCOMPARE(frames->frame(frame), around.adjusted(-7, -7, 7, 7));
    QCOMPARE(frames->tabRect(frame).topLeft(), frames->frame(frame).topRight() + QPointF(3, 0));

    showAtNaturalSize("%6");
    // Its tooltip, made when asked for, names the block and counts its drawn nodes.
    QCOMPARE(m_canvas->toolTipAt(m_canvas->view()->mapFromScene(frames->tabRect(frame).center())),
             QStringLiteral("fused block fused_nn_conv2d_add_nn_relu_1 \u00b7 4 ops"));
    QTest::mouseClick(viewport(), Qt::LeftButton, {},
                      m_canvas->view()->mapFromScene(frames->tabRect(frame).center()));
    QCOMPARE(m_canvas->selectedNodes(),
             std::vector<NodeId>({ id("%5"), id("%6"), id("%7"), id("%8") }));
    // Clicking a node inside the frame still selects just the node.
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, m_canvas->viewportPosOfNode(id("%6")));
    QCOMPARE(m_canvas->selectedNodes(), std::vector<NodeId>({ id("%6") }));
    // A new graph forgets the blocks.
    waitForLayout();
    QCOMPARE(itemsOf<ui::BlockFrameLayer>(scene()).size(), std::size_t(0));
}

void TestCanvas::blockFramesPaintOnlyThoseInView()
{
    waitForLayout();
    FusionOptions options;
    options.foldBatchNorm = true;
    const std::vector<FusedBlock> blocks = fuseOps(*m_graph, m_graph->mainFunction(), options);
    m_canvas->setBlocks(blocks);
    const auto layers = itemsOf<ui::BlockFrameLayer>(scene());
    QCOMPARE(layers.size(), std::size_t(1));
    const ui::BlockFrameLayer *frames = layers.front();

    // The lowest block of two nodes or more (by its nodes' boxes, from the node items), its
    // frame (the boxes united, 7 units out) and where a click on its tab lands: 4 units into
    // the tab, which starts 3 units right of the frame's top-right corner.
    const FusedBlock *lowest = nullptr;
    QRectF lowestFrame;
    for (const FusedBlock &b : blocks) {
        if (b.nodes.size() < 2)
            continue;
        QRectF around;
        for (NodeId n : b.nodes) {
            const ui::NodeItem *node = m_canvas->nodeItem(n);
            QVERIFY(node != nullptr);
            around = around.united(node->mapRectToScene(node->rect()));
        }
        if (lowest == nullptr || around.bottom() + 7 > lowestFrame.bottom()) {
            lowest = &b;
            lowestFrame = around.adjusted(-7, -7, 7, 7);
        }
    }
    QVERIFY(lowest != nullptr);
    const QPointF tabPoint = lowestFrame.topRight() + QPointF(3 + 4, 4);
    std::size_t target = ui::BlockFrameLayer::none;
    for (std::size_t f = 0; f < frames->frameCount(); ++f)
        if (frames->frame(f) == lowestFrame)
            target = f;
    QVERIFY(target != ui::BlockFrameLayer::none);

    // At zoom 1 on the top of the network: the frames painted are those near the viewport
    // (a frame's box with its tab, 4 units out, meeting the visible area; 3 units of slack for
    // the rounding of the exposed area), not the lowest one.
    QGraphicsView *view = m_canvas->view();
    std::vector<std::uint32_t> painted;
    auto checkPainted = [&] {
        viewport()->repaint();
        const QRectF visible = view->mapToScene(viewport()->rect()).boundingRect();
        painted = frames->lastPainted();
        for (std::size_t f = 0; f < frames->frameCount(); ++f) {
            const QRectF outer = frames->frame(f).united(frames->tabRect(f)).adjusted(-4, -4, 4, 4);
            const bool drawn
                = std::binary_search(painted.begin(), painted.end(), static_cast<std::uint32_t>(f));
            if (outer.intersects(visible.adjusted(3, 3, -3, -3)))
                QVERIFY2(drawn, qPrintable(QStringLiteral("frame %1 not painted").arg(f)));
            if (!outer.intersects(visible.adjusted(-3, -3, 3, 3)))
                QVERIFY2(!drawn, qPrintable(QStringLiteral("frame %1 painted").arg(f)));
        }
    };
    showAtNaturalSize("%0");
    checkPainted();
    if (QTest::currentTestFailed())
        return;
    QVERIFY(!painted.empty());
    QVERIFY(painted.size() < frames->frameCount());
    QVERIFY(
        !std::binary_search(painted.begin(), painted.end(), static_cast<std::uint32_t>(target)));

    // Panned to the lowest frame, it is painted, and a real click on its tab selects its block.
    view->centerOn(tabPoint);
    QCoreApplication::processEvents();
    checkPainted();
    if (QTest::currentTestFailed())
        return;
    QVERIFY(std::binary_search(painted.begin(), painted.end(), static_cast<std::uint32_t>(target)));
    QTest::mouseClick(viewport(), Qt::LeftButton, {}, view->mapFromScene(tabPoint));
    std::vector<NodeId> expected = lowest->nodes;
    std::sort(expected.begin(), expected.end());
    QCOMPARE(m_canvas->selectedNodes(), expected);
}

QTEST_MAIN(TestCanvas)
#include "tst_canvas.moc"
