// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "TestGraphs.h"
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/PartitionPlan.h"

#include <QDir>
#include <QFileInfo>
#include <QtTest/QtTest>

#include <random>

using namespace cleave;
using namespace cleave::test;

namespace {

/// The node keys of a partition, space separated, in program order.
QString members(const PartitionPlan &plan, PartitionId id)
{
    QStringList keys;
    for (NodeId n : plan.nodesOf(id))
        keys << QString::fromStdString(plan.graph().key(n));
    return keys.join(QLatin1Char(' '));
}

/// Every partition's members, `|` between partitions, in plan order.
QString layout(const PartitionPlan &plan)
{
    QStringList parts;
    for (const Partition &p : plan.partitions())
        parts << members(plan, p.id);
    return parts.join(QStringLiteral(" | "));
}

using test::node;
using test::nodes;

QString edgeText(const Graph &g, const EdgeRef &e)
{
    return QString::fromStdString(g.key(e.tensor.node) + "->" + g.key(e.consumer));
}

} // namespace

class TestPartitionPlan : public QObject
{
    Q_OBJECT

private slots:
    void initialPlanHoldsEveryOperator();
    void cutAfterFirstAdd();
    void cutAfterMissingOpIsRefused();
    void severalCutPoints();
    void cutAfterBatchNorm();
    void cutLineAcrossMainPathOnly();
    void crossedEdgeOnOneSideIsIgnored();
    void cutAfterNodeIsCutAfterItsOp();
    void cutSnapsToWholeGroups();
    void inceptionBranchesAtDifferentDepths();
    void nonConvexSelection();
    void isolateMiddleBlock();
    void consecutiveByocRegionsStayTwo();
    void partitionFromSelectionPlacesAfterFeeders();
    void assignMergeRenameTarget();
    void everyEditUndoes_data();
    void everyEditUndoes();
    void resnet18SampleCutAfterAdd();
    void batchCutEqualsSuccessiveCuts();
};

void TestPartitionPlan::initialPlanHoldsEveryOperator()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    QCOMPARE(plan.partitionCount(), std::size_t(1));
    QCOMPARE(plan.partitions()[0].name, std::string("stage0"));
    QCOMPARE(plan.partitions()[0].target, std::string("llvm"));
    QCOMPARE(plan.nodeCount(plan.partitions()[0].id), std::size_t(9));
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 %2 %3 %4 %5 %6 %7 %8"));
    QVERIFY(!plan.partitionOf(node(*g, "%data")).isValid());
    QVERIFY(!plan.partitionOf(node(*g, "%w0")).isValid());
}

void TestPartitionPlan::cutAfterFirstAdd()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    const PlanEdit edit = plan.cutAfterOp("add", 0);
    QVERIFY(edit.diagnostics.empty());
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 %2 %3 | %4 %5 %6 %7 %8"));
    QCOMPARE(plan.partitions()[1].name, std::string("stage1"));
    QCOMPARE(edit.changes.size(), std::size_t(5));
    QCOMPARE(edit.createdPartitions().size(), std::size_t(1));
}

void TestPartitionPlan::cutAfterMissingOpIsRefused()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    const PartitionPlan before = plan;
    const PlanEdit edit = plan.cutAfterOp("add", 2);
    QVERIFY(edit.isEmpty());
    QCOMPARE(edit.diagnostics.size(), std::size_t(1));
    QCOMPARE(edit.diagnostics[0].code, std::string("cut.split_point_not_found"));
    QCOMPARE(edit.diagnostics[0].message,
             std::string("no add:2 split point: the function has 2 call(s) of add"));
    QVERIFY(plan == before);
}

void TestPartitionPlan::severalCutPoints()
{
    auto g = chainWithSkip();
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "add", 1 }, { "add", 0 } });
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 %3 | %4"));
    QCOMPARE(plan.partitions()[2].name, std::string("stage2"));

    // Cutting the same plan again at an existing boundary changes nothing.
    const PartitionPlan before = plan;
    QVERIFY(plan.cutAfterOp("add", 0).isEmpty());
    QVERIFY(plan == before);
}

void TestPartitionPlan::cutAfterBatchNorm()
{
    auto g = batchNormBlock();
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.batch_norm", 0);
    // The projection %2 = %1.0 is printed after the split op: it lands in the later partition.
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 %3"));
}

void TestPartitionPlan::cutLineAcrossMainPathOnly()
{
    auto g = residualBlock();
    PartitionPlan plan(*g);
    const PlanEdit edit = plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%1")) });
    QCOMPARE(layout(plan), QStringLiteral("%0 | %1 %2 %3 %4 %5"));
    QCOMPARE(edit.impliedEdges.size(), std::size_t(1));
    QCOMPARE(edgeText(*g, edit.impliedEdges[0]), QStringLiteral("%0->%4"));
    QVERIFY(edit.ignoredEdges.empty());
    QCOMPARE(plan.crossedEdges().size(), std::size_t(1));
    QCOMPARE(edgeText(*g, plan.crossedEdges()[0]), QStringLiteral("%0->%1"));
}

void TestPartitionPlan::crossedEdgeOnOneSideIsIgnored()
{
    auto g = residualBlock();
    PartitionPlan plan(*g);
    const PlanEdit edit = plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%1")),
                                                plan.edgeBetween(node(*g, "%2"), node(*g, "%3")) });
    QCOMPARE(layout(plan), QStringLiteral("%0 | %1 %2 %3 %4 %5"));
    QCOMPARE(edit.ignoredEdges.size(), std::size_t(1));
    QCOMPARE(edgeText(*g, edit.ignoredEdges[0]), QStringLiteral("%2->%3"));
    QCOMPARE(edit.diagnostics.size(), std::size_t(1));
    QCOMPARE(edit.diagnostics[0].code, std::string("cut.same_side"));
}

void TestPartitionPlan::cutAfterNodeIsCutAfterItsOp()
{
    // residualBlock: %0 relu, %1 conv, %2 relu, %3 conv, %4 add(%3, %0), %5 relu.
    auto g = residualBlock();
    PartitionPlan plan(*g);
    const PlanEdit edit = plan.cutAfterNode(node(*g, "%2"));
    QVERIFY(edit.diagnostics.empty());
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 %2 | %3 %4 %5"));
    // %2 is the second nn.relu: --cut-after nn.relu:1 makes the same plan.
    PartitionPlan byOp(*g);
    byOp.cutAfterOp("nn.relu", 1);
    QCOMPARE(layout(byOp), layout(plan));

    // After the last node there is nothing to move; an input is not a node to cut after.
    const PartitionPlan before = plan;
    QVERIFY(plan.cutAfterNode(node(*g, "%5")).isEmpty());
    const PlanEdit refused = plan.cutAfterNode(node(*g, "%data"));
    QVERIFY(refused.isEmpty());
    QCOMPARE(refused.diagnostics.size(), std::size_t(1));
    QCOMPARE(refused.diagnostics[0].code, std::string("cut.not_a_node"));
    QVERIFY(plan == before);
}

void TestPartitionPlan::cutSnapsToWholeGroups()
{
    auto g = residualBlock();
    const NodeId n1 = node(*g, "%1");
    const NodeId n2 = node(*g, "%2");
    const NodeId n3 = node(*g, "%3");
    // Without groups, a line across %2 -> %3 moves %3 and its descendants (the add, the relu).
    PartitionPlan loose(*g);
    loose.cutAcrossEdges({ loose.edgeBetween(n2, n3) });
    QCOMPARE(layout(loose), QStringLiteral("%0 %1 %2 | %3 %4 %5"));

    // With %2 and %3 one collapsed block, the same line keeps the block whole: %2 moves too and
    // the line snaps to the block's entry %1 -> %2, which counts as crossed; the skip %0 -> %4
    // is severed without being crossed (implied). The crossed edge, now inside the later
    // partition, is no warning.
    PartitionPlan snapped(*g);
    const PlanEdit edit = snapped.cutAcrossEdges({ snapped.edgeBetween(n2, n3) }, { { n2, n3 } });
    QCOMPARE(layout(snapped), QStringLiteral("%0 %1 | %2 %3 %4 %5"));
    QVERIFY(edit.diagnostics.empty());
    QVERIFY(edit.ignoredEdges.empty());
    QCOMPARE(edit.snappedNodes, std::size_t(1)); // %2
    QStringList implied;
    for (const EdgeRef &e : edit.impliedEdges)
        implied << edgeText(*g, e);
    QCOMPARE(implied, QStringList({ QStringLiteral("%0->%4") }));
    QCOMPARE(snapped.crossedEdges().size(), std::size_t(1));
    QCOMPARE(edgeText(*g, snapped.crossedEdges()[0]), QStringLiteral("%1->%2"));

    // A group the line does not reach is left alone.
    PartitionPlan other(*g);
    other.cutAcrossEdges({ other.edgeBetween(n2, n3) }, { { node(*g, "%0"), n1 } });
    QCOMPARE(layout(other), layout(loose));
}

void TestPartitionPlan::inceptionBranchesAtDifferentDepths()
{
    auto g = inceptionBlock();
    PartitionPlan plan(*g);
    const PlanEdit edit = plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%1")),
                                                plan.edgeBetween(node(*g, "%2"), node(*g, "%3")),
                                                plan.edgeBetween(node(*g, "%5"), node(*g, "%6")) });
    QCOMPARE(layout(plan), QStringLiteral("%0 %2 %4 %5 | %1 %3 %6 %7"));
    QVERIFY(edit.impliedEdges.empty());
    QVERIFY(edit.ignoredEdges.empty());

    // A second line crossing the stem -> pool edge moves the pool branch's tail across too.
    plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%4")) });
    QCOMPARE(layout(plan), QStringLiteral("%0 %2 | %4 %5 | %1 %3 %6 %7"));
}

void TestPartitionPlan::nonConvexSelection()
{
    auto g = chain(4);
    PartitionPlan plan(*g);
    const auto sel = nodes(*g, { "%0", "%2" });
    const std::vector<NodeId> witness = plan.nonConvexWitness(sel);
    QCOMPARE(witness, nodes(*g, { "%0", "%1", "%2" }));

    const PartitionPlan before = plan;
    const PlanEdit refused = plan.isolateSelection(sel);
    QVERIFY(refused.isEmpty());
    QCOMPARE(refused.diagnostics.size(), std::size_t(1));
    QCOMPARE(refused.diagnostics[0].code, std::string("partition.nonconvex"));
    QCOMPARE(refused.diagnostics[0].nodes, witness);
    QCOMPARE(refused.diagnostics[0].message,
             std::string("the selection is not convex: the path %0 -> %1 -> %2 leaves it and "
                         "comes back; isolate its convex closure instead"));
    QVERIFY(plan == before);

    const std::vector<NodeId> closure = plan.convexClosure(sel);
    QCOMPARE(closure, nodes(*g, { "%0", "%1", "%2" }));
    QVERIFY(plan.nonConvexWitness(closure).empty());
    plan.isolateSelection(closure);
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 %2 | %3"));
}

void TestPartitionPlan::isolateMiddleBlock()
{
    auto g = chainWithSkip();
    PartitionPlan plan(*g);
    const PlanEdit edit = plan.isolateSelection(nodes(*g, { "%2", "%3" }));
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 %3 | %4"));
    QCOMPARE(plan.partitions()[0].name, std::string("stage0"));
    QCOMPARE(edit.createdPartitions().size(), std::size_t(2));
    // Partition order is topological: every edge goes forward.
    for (NodeId n : plan.view().assignableNodes()) {
        for (const FlowEdge &e : plan.view().outEdges(n))
            QVERIFY(plan.indexOf(plan.partitionOf(n))
                    <= plan.indexOf(plan.partitionOf(e.consumer)));
    }
}

void TestPartitionPlan::consecutiveByocRegionsStayTwo()
{
    auto g = chain(6);
    PartitionPlan plan(*g);
    const PlanEdit first = plan.isolateSelection(nodes(*g, { "%1", "%2" }));
    const PartitionId a = first.createdPartitions().front();
    plan.setTarget(a, "dnnl");
    const PlanEdit second = plan.isolateSelection(nodes(*g, { "%3", "%4" }));
    PartitionId b;
    for (PartitionId id : second.createdPartitions()) {
        if (plan.nodeCount(id) == 2)
            b = id;
    }
    plan.setTarget(b, "dnnl");
    QCOMPARE(layout(plan), QStringLiteral("%0 | %1 %2 | %3 %4 | %5"));
    QVERIFY(a != b);
    QCOMPARE(plan.partition(a)->target, std::string("dnnl"));
    QCOMPARE(plan.partition(b)->target, std::string("dnnl"));
    QCOMPARE(plan.indexOf(b), plan.indexOf(a) + 1);
}

void TestPartitionPlan::partitionFromSelectionPlacesAfterFeeders()
{
    auto g = chain(4);
    PartitionPlan plan(*g);
    const PlanEdit edit = plan.partitionFromSelection(nodes(*g, { "%2", "%3" }));
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 %3"));
    QCOMPARE(edit.changes.size(), std::size_t(2));
    // Taking every node of a partition removes it.
    plan.partitionFromSelection(nodes(*g, { "%0", "%1" }));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 %3"));
    QCOMPARE(plan.partitions()[0].name, std::string("stage2"));
}

void TestPartitionPlan::assignMergeRenameTarget()
{
    auto g = chain(4);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.relu", 0 }, { "nn.relu", 2 } });
    QCOMPARE(layout(plan), QStringLiteral("%0 | %1 %2 | %3"));
    const PartitionId p0 = plan.partitions()[0].id, p1 = plan.partitions()[1].id,
                      p2 = plan.partitions()[2].id;

    const PartitionPlan beforeAssign = plan;
    const PlanEdit assign = plan.assignToPartition(nodes(*g, { "%1" }), p0);
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 | %3"));
    QCOMPARE(assign.changes.size(), std::size_t(1));
    QCOMPARE(assign.changes[0].before, p1);
    QCOMPARE(assign.changes[0].after, p0);

    const PlanEdit merge = plan.mergePartitions({ p2, p1 });
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 %3"));
    QCOMPARE(plan.partitions()[1].id, p1);
    QCOMPARE(plan.indexOf(p2), -1);

    const PlanEdit rename = plan.renamePartition(p1, "tail");
    const PlanEdit target = plan.setTarget(p1, "cuda");
    QCOMPARE(plan.partition(p1)->name, std::string("tail"));
    QCOMPARE(plan.partition(p1)->target, std::string("cuda"));
    QCOMPARE(plan.renamePartition(p1, "").diagnostics[0].code, std::string("plan.rename"));

    plan.revert(target);
    plan.revert(rename);
    plan.revert(merge);
    plan.revert(assign);
    QVERIFY(plan == beforeAssign);
    plan.apply(assign);
    plan.apply(merge);
    QCOMPARE(layout(plan), QStringLiteral("%0 %1 | %2 %3"));
}

void TestPartitionPlan::everyEditUndoes_data()
{
    QTest::addColumn<QString>("graphName");
    QTest::addColumn<int>("seed");
    QStringList names { QStringLiteral("residualIdentity"), QStringLiteral("projectionBlock"),
                        QStringLiteral("inceptionBlock"), QStringLiteral("chainWithSkip"),
                        QStringLiteral("batchNormBlock") };
    const QDir samples(QStringLiteral(CLEAVE_SAMPLES_DIR));
    for (const QString &f : samples.entryList({ QStringLiteral("*.relay") }, QDir::Files))
        names << samples.filePath(f);
    for (const QString &name : names) {
        for (int seed : { 1, 2, 3 })
            QTest::addRow("%s/%d", qPrintable(QFileInfo(name).fileName()), seed) << name << seed;
    }
}

void TestPartitionPlan::everyEditUndoes()
{
    QFETCH(QString, graphName);
    QFETCH(int, seed);
    std::unique_ptr<Graph> g;
    if (graphName == QLatin1String("residualIdentity"))
        g = residualIdentity();
    else if (graphName == QLatin1String("projectionBlock"))
        g = projectionBlock();
    else if (graphName == QLatin1String("inceptionBlock"))
        g = inceptionBlock();
    else if (graphName == QLatin1String("chainWithSkip"))
        g = chainWithSkip();
    else if (graphName == QLatin1String("batchNormBlock"))
        g = batchNormBlock();
    else {
        ImportResult r = importFile(graphName.toStdString());
        QVERIFY2(r.ok(), r.firstError().c_str());
        g = std::move(r.graph);
    }

    PartitionPlan plan(*g);
    const auto &ops = plan.view().assignableNodes();
    std::mt19937 rng(static_cast<unsigned>(seed));
    auto pick
        = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    auto randomRange = [&]() {
        const std::size_t a = pick(ops.size()), b = pick(ops.size());
        std::vector<NodeId> sel;
        for (std::size_t i = std::min(a, b); i <= std::max(a, b) && sel.size() < 6; ++i)
            sel.push_back(ops[i]);
        return sel;
    };

    std::vector<PartitionPlan> snapshots;
    std::vector<PlanEdit> edits;
    for (int step = 0; step < 40; ++step) {
        snapshots.push_back(plan);
        PlanEdit edit;
        switch (pick(8)) {
        case 0: {
            std::vector<EdgeRef> cut;
            const NodeId from = ops[pick(ops.size())];
            for (const FlowEdge &e : plan.view().outEdges(from))
                cut.push_back(EdgeRef { e.tensor, e.consumer });
            if (!cut.empty())
                cut.resize(1 + pick(cut.size()));
            edit = plan.cutAcrossEdges(cut);
            break;
        }
        case 1:
            edit = plan.cutAfterOp(plan.graph().node(ops[pick(ops.size())]).op, pick(3));
            break;
        case 2:
            edit = plan.partitionFromSelection(randomRange());
            break;
        case 3:
            edit = plan.assignToPartition(randomRange(),
                                          plan.partitions()[pick(plan.partitionCount())].id);
            break;
        case 4:
            edit = plan.isolateSelection(randomRange());
            break;
        case 5:
            edit = plan.mergePartitions({ plan.partitions()[pick(plan.partitionCount())].id,
                                          plan.partitions()[pick(plan.partitionCount())].id });
            break;
        case 6:
            edit = plan.renamePartition(plan.partitions()[pick(plan.partitionCount())].id,
                                        "renamed" + std::to_string(step));
            break;
        default:
            edit = plan.setTarget(plan.partitions()[pick(plan.partitionCount())].id, "dnnl");
            break;
        }
        // Every assignable node stays assigned to an existing partition.
        for (NodeId n : ops)
            QVERIFY(plan.indexOf(plan.partitionOf(n)) >= 0);
        edits.push_back(std::move(edit));
    }
    const PartitionPlan final = plan;
    for (std::size_t i = edits.size(); i-- > 0;) {
        plan.revert(edits[i]);
        QVERIFY2(plan == snapshots[i], qPrintable(QStringLiteral("undo of edit %1").arg(i)));
    }
    for (const PlanEdit &e : edits)
        plan.apply(e);
    QVERIFY(plan == final);
}

void TestPartitionPlan::resnet18SampleCutAfterAdd()
{
    ImportResult r = importFile(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    PartitionPlan plan(g);
    plan.cutAfterOp("add", 0);
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(plan.partitionOf(node(g, "%12")), plan.partitions()[0].id);
    QCOMPARE(plan.partitionOf(node(g, "%13")), plan.partitions()[1].id);
    QCOMPARE(plan.nodeCount(plan.partitions()[0].id), std::size_t(13));
}

void TestPartitionPlan::batchCutEqualsSuccessiveCuts()
{
    // cutAfterOps applies its points in one sweep; the result (members, partition order, ids,
    // names, targets) must be what the same cuts give one after the other, ascending. Several
    // partitions straddle each cut: every third node after add:1 is first moved back into the
    // first partition, which is given a target the new pieces must inherit.
    ImportResult r = importFile(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    PartitionPlan plan(g);
    plan.cutAfterOp("add", 1);
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const PartitionId first = plan.partitions()[0].id;
    plan.setTarget(first, "cuda");
    const std::vector<NodeId> later = plan.nodesOf(plan.partitions()[1].id);
    std::vector<NodeId> every3;
    for (std::size_t i = 0; i < later.size(); i += 3)
        every3.push_back(later[i]);
    plan.assignToPartition(every3, first);

    PartitionPlan successive = plan;
    const PartitionPlan original = plan;
    const PlanEdit edit = plan.cutAfterOps({ { "add", 5 }, { "add", 2 }, { "add", 3 } });
    QVERIFY(edit.diagnostics.empty());
    for (const std::size_t k : { 2U, 3U, 5U })
        successive.cutAfterOp("add", k);
    QVERIFY(plan == successive);
    // Both partitions straddle each of the three cuts: 2 + 3 · 2 pieces.
    QCOMPARE(plan.partitionCount(), std::size_t(8));
    QCOMPARE(plan.partitions()[1].target, std::string("cuda"));
    QCOMPARE(plan.partitions()[1].name, std::string("stage2"));

    plan.revert(edit);
    QVERIFY(plan == original);
    plan.apply(edit);
    QVERIFY(plan == successive);
}

QTEST_APPLESS_MAIN(TestPartitionPlan)
#include "tst_partitionplan.moc"
