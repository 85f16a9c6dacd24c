// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "CanvasItems.h"
#include "SceneItems.h"
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/support/OpCategory.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <map>
#include <memory>
#include <tuple>

using namespace cleave;
using cleave::ui::CanvasWidget;
using test::itemsOf;

namespace {

// x -> %0 (relu) -> %1 (tanh) -> %3 (add) -> %4 (relu), and %0 -> %2 (sigmoid) -> %3: a
// branch that a cut between %0 and %1 also severs (the implied edge %2 -> %3).
constexpr const char *diamond = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %0 = nn.relu(%x) /* ty=Tensor[(1, 8), float32] */;
  %1 = tanh(%0) /* ty=Tensor[(1, 8), float32] */;
  %2 = sigmoid(%0) /* ty=Tensor[(1, 8), float32] */;
  %3 = add(%1, %2) /* ty=Tensor[(1, 8), float32] */;
  %4 = nn.relu(%3) /* ty=Tensor[(1, 8), float32] */;
  %4
}
)";

// The edges drawn bold, with their colours.
std::map<EdgeRef, QRgb> boldEdges(QGraphicsScene *scene)
{
    std::map<EdgeRef, QRgb> out;
    test::makeAllItems(scene);
    for (ui::EdgeItem *e : itemsOf<ui::EdgeItem>(scene))
        if (e->boundaryColour().isValid())
            out.emplace(e->edge(), e->boundaryColour().rgba());
    return out;
}

// The badges by edge: item, text and colour.
std::map<EdgeRef, std::tuple<ui::BadgeItem *, QString, QRgb>> badgesOf(QGraphicsScene *scene)
{
    std::map<EdgeRef, std::tuple<ui::BadgeItem *, QString, QRgb>> out;
    for (ui::BadgeItem *b : itemsOf<ui::BadgeItem>(scene))
        out.emplace(b->edge(), std::make_tuple(b, b->text(), b->colour().rgba()));
    return out;
}

// A partition's region tint near the nodes (zoom >= 0.5) on the light canvas: 32 % of the
// palette colour over white, by hand (PartitionRegionItem's opaque tints).
QColor nearTint(int red, int green, int blue)
{
    auto mix = [](int channel) { return qRound(255 * (1 - 0.32) + channel * 0.32); };
    return { mix(red), mix(green), mix(blue) };
}
// The first three colours of the partition palette (OpCategory.cpp): #1f77b4, #e4571c,
// #2ca02c.
const QColor firstTint = nearTint(0x1f, 0x77, 0xb4); // (219, 233, 243)
const QColor secondTint = nearTint(0xe4, 0x57, 0x1c); // (251, 228, 219)
const QColor thirdTint = nearTint(0x2c, 0xa0, 0x2c); // (221, 240, 221)

int distance(const QColor &a, const QColor &b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green())
        + std::abs(a.blue() - b.blue());
}

} // namespace

/// A plan change is applied to the canvas by difference with the plan shown before (edges
/// restyled and badges made only where they changed): after each edit the canvas must show
/// exactly what a canvas given the final plan at once shows, and what the model's rules say.
class TestPlanUpdate : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cutsThenMergeMatchAFullRebuild();
    void samePlanAgainKeepsEveryBadge();
    void regionTintsFollowCutsAndMerges();

private:
    std::unique_ptr<CanvasWidget> laidOutCanvas();
    NodeId id(const char *key) const { return m_graph->findByKey(key); }
    EdgeRef edge(const char *from, const char *to) const
    {
        return EdgeRef { TensorRef { id(from), 0 }, id(to) };
    }
    // What a fresh canvas shows for `plan` (the full rebuild).
    void compareWithFreshCanvas(const PartitionPlan &plan, const BoundaryTable &boundary,
                                QGraphicsScene *incremental);

    // The colour drawn just left of `key`'s box (inside its region's padding), at zoom 1.
    QColor colourBeside(CanvasWidget &canvas, const char *key) const;

    QTemporaryDir m_dir;
    std::unique_ptr<Graph> m_graph;
};

void TestPlanUpdate::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString path = m_dir.filePath(QStringLiteral("diamond.relay"));
    QVERIFY(test::writeAll(path, diamond));
    m_graph = test::load(path);
    QVERIFY(m_graph != nullptr);
    for (const char *key : { "%0", "%1", "%2", "%3", "%4" })
        QVERIFY2(id(key).isValid(), key);
}

std::unique_ptr<CanvasWidget> TestPlanUpdate::laidOutCanvas()
{
    auto canvas = std::make_unique<CanvasWidget>();
    canvas->setCacheDirectory(QString()); // no disk cache
    canvas->resize(800, 600);
    canvas->show();
    QSignalSpy finished(canvas.get(), &CanvasWidget::layoutFinished);
    canvas->setGraph(m_graph.get(), m_graph->mainFunction(), m_graph->checksum());
    if (!finished.wait(20000) || !finished.at(0).at(0).toBool())
        return nullptr;
    return canvas;
}

void TestPlanUpdate::compareWithFreshCanvas(const PartitionPlan &plan,
                                            const BoundaryTable &boundary,
                                            QGraphicsScene *incremental)
{
    auto fresh = laidOutCanvas();
    QVERIFY(fresh != nullptr);
    fresh->setPlan(&plan, &boundary);
    QGraphicsScene *rebuilt = fresh->view()->scene();
    QCOMPARE(boldEdges(incremental), boldEdges(rebuilt));
    const auto mine = badgesOf(incremental);
    const auto theirs = badgesOf(rebuilt);
    QCOMPARE(mine.size(), theirs.size());
    for (const auto &[e, badge] : mine) {
        const auto other = theirs.find(e);
        QVERIFY(other != theirs.end());
        QCOMPARE(std::get<1>(badge), std::get<1>(other->second));
        QCOMPARE(std::get<2>(badge), std::get<2>(other->second));
        QCOMPARE(std::get<0>(badge)->pos(), std::get<0>(other->second)->pos());
    }
}

void TestPlanUpdate::cutsThenMergeMatchAFullRebuild()
{
    auto canvas = laidOutCanvas();
    QVERIFY(canvas != nullptr);
    QGraphicsScene *scene = canvas->view()->scene();
    PartitionPlan plan(*m_graph);
    BoundaryTable boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    QVERIFY(boldEdges(scene).empty());
    QVERIFY(badgesOf(scene).empty());

    // Cut A across %0 -> %1: the descendants of %1 ({%1, %3, %4}) leave {%0, %2}. Crossing:
    // %0 read by %1, and %2 read by %3 (implied): two tensors, two bold edges in the first
    // partition's colour, a badge each.
    plan.cutAcrossEdges({ edge("%0", "%1") });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const QRgb first = ui::partitionColour(plan.partitions()[0].colour).rgba();
    const QRgb second = ui::partitionColour(plan.partitions()[1].colour).rgba();
    boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    const std::map<EdgeRef, QRgb> afterA { { edge("%0", "%1"), first },
                                           { edge("%2", "%3"), first } };
    QCOMPARE(boldEdges(scene), afterA);
    QCOMPARE(badgesOf(scene).size(), std::size_t(2));
    compareWithFreshCanvas(plan, boundary, scene);

    // Cut B across %3 -> %4 splits {%1, %3, %4}: %4 alone after it. A third tensor crosses,
    // from the second partition; the two of cut A still cross.
    plan.cutAcrossEdges({ edge("%3", "%4") });
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    const std::map<EdgeRef, QRgb> afterB { { edge("%0", "%1"), first },
                                           { edge("%2", "%3"), first },
                                           { edge("%3", "%4"), second } };
    QCOMPARE(boldEdges(scene), afterB);
    QCOMPARE(badgesOf(scene).size(), std::size_t(3));
    compareWithFreshCanvas(plan, boundary, scene);

    // Merging the last two back leaves cut A's two tensors; merging all leaves none.
    plan.mergePartitions({ plan.partitions()[1].id, plan.partitions()[2].id });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    QCOMPARE(boldEdges(scene), afterA);
    QCOMPARE(badgesOf(scene).size(), std::size_t(2));
    compareWithFreshCanvas(plan, boundary, scene);

    plan.mergePartitions({ plan.partitions()[0].id, plan.partitions()[1].id });
    QCOMPARE(plan.partitionCount(), std::size_t(1));
    boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    QVERIFY(boldEdges(scene).empty());
    QVERIFY(badgesOf(scene).empty());
    compareWithFreshCanvas(plan, boundary, scene);

    // No plan at all: nothing bold, no badge.
    plan.cutAcrossEdges({ edge("%0", "%1") });
    boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    QCOMPARE(boldEdges(scene), afterA);
    canvas->setPlan(nullptr, nullptr);
    QVERIFY(boldEdges(scene).empty());
    QVERIFY(badgesOf(scene).empty());
}

void TestPlanUpdate::samePlanAgainKeepsEveryBadge()
{
    auto canvas = laidOutCanvas();
    QVERIFY(canvas != nullptr);
    QGraphicsScene *scene = canvas->view()->scene();
    PartitionPlan plan(*m_graph);
    plan.cutAcrossEdges({ edge("%0", "%1") });
    const BoundaryTable boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    const auto before = badgesOf(scene);
    QCOMPARE(before.size(), std::size_t(2));
    // The same plan again (a redo, a record-only edit redrawn): the same badge items stay.
    canvas->setPlan(&plan, &boundary);
    const auto after = badgesOf(scene);
    QCOMPARE(after.size(), std::size_t(2));
    for (const auto &[e, badge] : before) {
        QVERIFY(after.count(e) == 1);
        QCOMPARE(std::get<0>(after.at(e)), std::get<0>(badge));
        QCOMPARE(std::get<1>(after.at(e)), std::get<1>(badge));
    }
}

QColor TestPlanUpdate::colourBeside(CanvasWidget &canvas, const char *key) const
{
    QGraphicsView *view = canvas.view();
    canvas.makeAllItems();
    for (ui::NodeItem *node : itemsOf<ui::NodeItem>(view->scene())) {
        if (node->nodeId() != id(key))
            continue;
        view->setTransform(QTransform());
        view->centerOn(node->rect().center());
        const QPoint at
            = view->mapFromScene(QPointF(node->rect().left() - 6, node->rect().center().y()));
        return QColor(view->viewport()->grab().toImage().pixel(at));
    }
    return {};
}

void TestPlanUpdate::regionTintsFollowCutsAndMerges()
{
    auto canvas = laidOutCanvas();
    QVERIFY(canvas != nullptr);
    PartitionPlan plan(*m_graph);
    plan.cutAcrossEdges({ edge("%0", "%1") });
    BoundaryTable boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    plan.cutAcrossEdges({ edge("%3", "%4") });
    boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    // Cut A then cut B: %0 in the first partition, %3 in the second, %4 in the third, each
    // partition in the next colour of the palette.
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    for (int i = 0; i < 3; ++i)
        QCOMPARE(plan.partitions()[static_cast<std::size_t>(i)].colour, i);
    const std::vector<std::pair<const char *, QColor>> afterCuts { { "%0", firstTint },
                                                                   { "%3", secondTint },
                                                                   { "%4", thirdTint } };
    for (const auto &[key, tint] : afterCuts) {
        const QColor drawn = colourBeside(*canvas, key);
        QVERIFY2(distance(drawn, tint) <= 3,
                 qPrintable(QStringLiteral("%1: %2, want %3")
                                .arg(QLatin1String(key), drawn.name(), tint.name())));
    }
    // Merged back into the first partition: every node in its tint.
    plan.mergePartitions(
        { plan.partitions()[0].id, plan.partitions()[1].id, plan.partitions()[2].id });
    boundary = computeBoundary(plan);
    canvas->setPlan(&plan, &boundary);
    for (const char *key : { "%0", "%3", "%4" }) {
        const QColor drawn = colourBeside(*canvas, key);
        QVERIFY2(distance(drawn, firstTint) <= 3,
                 qPrintable(QStringLiteral("%1: %2, want %3")
                                .arg(QLatin1String(key), drawn.name(), firstTint.name())));
    }
}

QTEST_MAIN(TestPlanUpdate)
#include "tst_planupdate.moc"
