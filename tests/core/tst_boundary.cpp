// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "TestGraphs.h"
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/support/Saturating.h"

#include <QDir>
#include <QtTest/QtTest>

#include <set>

using namespace cleave;
using namespace cleave::test;

namespace {

using test::node;

/// One line per boundary tensor: `producer[.field] pP#out -> pQ:name(nodes) ... shape bytes`.
QStringList describe(const PartitionPlan &plan, const BoundaryTable &table)
{
    const Graph &g = plan.graph();
    QStringList lines;
    for (const BoundaryTensor &b : table.tensors) {
        QString line = QString::fromStdString(g.key(b.tensor.node));
        if (b.field)
            line += QStringLiteral(".%1").arg(*b.field);
        line += QStringLiteral(" %1#%2 ->")
                    .arg(QString::fromStdString(plan.partition(b.producerPartition)->name))
                    .arg(b.outputIndex);
        for (const BoundaryConsumer &c : b.consumers) {
            QStringList users;
            for (NodeId n : c.nodes)
                users << QString::fromStdString(g.key(n));
            line += QStringLiteral(" %1:%2(%3)")
                        .arg(QString::fromStdString(plan.partition(c.partition)->name),
                             QString::fromStdString(c.inputName), users.join(QLatin1Char(',')));
        }
        line += QStringLiteral(" [%1] %2")
                    .arg(QString::fromStdString(b.type.toShortString()))
                    .arg(b.bytes.value_or(-1));
        lines << line;
    }
    return lines;
}

QString planLayout(const PartitionPlan &plan)
{
    QStringList parts;
    for (const Partition &p : plan.partitions()) {
        QStringList keys;
        for (NodeId n : plan.nodesOf(p.id))
            keys << QString::fromStdString(plan.graph().key(n));
        parts << keys.join(QLatin1Char(' '));
    }
    return parts.join(QStringLiteral(" | "));
}

QStringList inputNames(const BoundaryTable &table, std::size_t partitionIndex)
{
    QStringList names;
    for (const PartitionInput &in : table.interfaces[partitionIndex].inputs)
        names << QString::fromStdString(in.name);
    return names;
}

} // namespace

class TestBoundary : public QObject
{
    Q_OBJECT

private slots:
    void residualCutAfterAddIsOneTensor();
    void projectionShortcutCrossesTwoTensors();
    void impliedSkipEdgeIsInTheTable();
    void inceptionBranches();
    void graphSplitWiring();
    void tupleCrossesAsItsField();
    void noBoundaryWithOnePartition();
    void hugeTensorsSaturateInterfaceBytes();
    void resnet18SampleCutAfterAdd();
    void nestedScopeReadsBelongToTheIf();
    void cutAfterFusedKernel();
    void everyCrossingEdgeOfTheCorpus_data();
    void everyCrossingEdgeOfTheCorpus();
};

void TestBoundary::residualCutAfterAddIsOneTensor()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    plan.cutAfterOp("add", 0);
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(describe(plan, t),
             QStringList { QStringLiteral(
                 "%3 stage0#0 -> stage1:data_n_0(%4,%7) [1×64×56×56 float32] 802816") });
    QCOMPARE(inputNames(t, 0), QStringList { QStringLiteral("data") });
    QCOMPARE(inputNames(t, 1), QStringList { QStringLiteral("data_n_0") });
    QCOMPARE(t.interfaces[0].bytesOut, std::int64_t(802816));
    QCOMPARE(t.interfaces[1].bytesIn, std::int64_t(802816));
    // stage1 returns the function's result as global output 0.
    QCOMPARE(t.interfaces[1].outputs.size(), std::size_t(1));
    QCOMPARE(t.interfaces[1].outputs[0].globalOutput, 0);
    QCOMPARE(t.interfaces[1].outputs[0].tensor.node, node(*g, "%8"));
}

void TestBoundary::projectionShortcutCrossesTwoTensors()
{
    auto g = projectionBlock();
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.conv2d", 1);
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(
        describe(plan, t),
        (QStringList {
            QStringLiteral("%2 stage0#0 -> stage1:data_n_0(%3) [1×128×28×28 float32] 401408"),
            QStringLiteral("%1 stage0#1 -> stage1:data_n_1(%5) [1×64×56×56 float32] 802816") }));
    QCOMPARE(t.interfaces[0].bytesOut, std::int64_t(1204224));
}

void TestBoundary::impliedSkipEdgeIsInTheTable()
{
    auto g = residualBlock();
    PartitionPlan plan(*g);
    plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%1")) });
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(describe(plan, t),
             QStringList { QStringLiteral(
                 "%0 stage0#0 -> stage1:data_n_0(%1,%4) [1×64×56×56 float32] 802816") });
}

void TestBoundary::inceptionBranches()
{
    auto g = inceptionBlock();
    PartitionPlan plan(*g);
    plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%1")),
                          plan.edgeBetween(node(*g, "%2"), node(*g, "%3")),
                          plan.edgeBetween(node(*g, "%5"), node(*g, "%6")) });
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(
        describe(plan, t),
        (QStringList {
            QStringLiteral("%0 stage0#0 -> stage1:data_n_0(%1) [1×64×28×28 float32] 200704"),
            QStringLiteral("%2 stage0#1 -> stage1:data_n_1(%3) [1×48×28×28 float32] 150528"),
            QStringLiteral("%5 stage0#2 -> stage1:data_n_2(%6) [1×32×28×28 float32] 100352") }));
    QCOMPARE(inputNames(t, 1),
             (QStringList { QStringLiteral("data_n_0"), QStringLiteral("data_n_1"),
                            QStringLiteral("data_n_2") }));
}

void TestBoundary::graphSplitWiring()
{
    // The wiring graph_split's unit test declares: mod0.out0 -> mod1.data_n_0,
    // mod1.out0 -> mod2.data_n_1, mod0.out1 -> mod2.data_n_2.
    auto g = chainWithSkip();
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "add", 0 }, { "add", 1 } });
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(
        describe(plan, t),
        (QStringList { QStringLiteral("%1 stage0#0 -> stage1:data_n_0(%2) [1×16 float32] 64"),
                       QStringLiteral("%0 stage0#1 -> stage2:data_n_2(%4) [1×16 float32] 64"),
                       QStringLiteral("%3 stage1#0 -> stage2:data_n_1(%4) [1×16 float32] 64") }));
    QCOMPARE(inputNames(t, 2),
             (QStringList { QStringLiteral("data_n_1"), QStringLiteral("data_n_2") }));
}

void TestBoundary::tupleCrossesAsItsField()
{
    auto g = batchNormBlock();
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.batch_norm", 0);
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(describe(plan, t),
             QStringList { QStringLiteral(
                 "%1.0 stage0#0 -> stage1:data_n_0(%2) [1×64×56×56 float32] 802816") });
}

void TestBoundary::noBoundaryWithOnePartition()
{
    auto g = inceptionBlock();
    PartitionPlan plan(*g);
    const BoundaryTable t = computeBoundary(plan);
    QVERIFY(t.tensors.empty());
    QCOMPARE(inputNames(t, 0), QStringList { QStringLiteral("data") });
    QCOMPARE(t.interfaces[0].outputs.size(), std::size_t(1));
}

// fuzz_auto found it (UBSan): two (1, 2^62) float tensors (2^64 bytes each, saturated to
// saturatedCount) crossing one cut overflowed an interface's bytesIn and bytesOut. Boundary
// bytes saturate, as every byte count does: both interfaces say saturatedCount.
void TestBoundary::hugeTensorsSaturateInterfaceBytes()
{
    ImportResult r = importBytes("def @main(%x: Tensor[(1, 4611686018427387904), float32]) {\n"
                                 "  %0 = nn.relu(%x);\n"
                                 "  %1 = nn.relu(%0);\n"
                                 "  add(%0, %1)\n"
                                 "}\n",
                                 "huge.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    PartitionPlan plan(*r.graph);
    plan.cutAfterOp("nn.relu", 1);
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(t.tensors.size(), std::size_t(2));
    for (const BoundaryTensor &b : t.tensors)
        QCOMPARE(b.bytes, std::optional<std::int64_t>(saturatedCount));
    QCOMPARE(t.interfaces[0].bytesOut, saturatedCount);
    QCOMPARE(t.interfaces[1].bytesIn, saturatedCount);
}

void TestBoundary::resnet18SampleCutAfterAdd()
{
    ImportResult r = importFile(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    PartitionPlan plan(*r.graph);
    plan.cutAfterOp("add", 0);
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(describe(plan, t),
             QStringList { QStringLiteral(
                 "%12 stage0#0 -> stage1:data_n_0(%13) [1×64×56×56 float32] 802816") });
    QCOMPARE(inputNames(t, 0), QStringList { QStringLiteral("data") });
}

void TestBoundary::nestedScopeReadsBelongToTheIf()
{
    // main: %0 = relu(data); %c = less(...); %2 = if (%c) { relu(%0) } else { %1 }
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 8 });
    const NodeId r0 = b.op("nn.relu", { data }, { 1, 8 });
    const NodeId r1 = b.op("nn.relu", { data }, { 1, 8 });
    const NodeId cond = b.op("less", { r0, r1 }, {});
    auto g = b.finish(r1); // the result is replaced below
    Function thenScope;
    thenScope.kind = Function::Kind::Scope;
    thenScope.name = "then";
    thenScope.parent = g->mainFunction();
    const FunctionId thenId = g->addFunction(thenScope);
    Function elseScope = thenScope;
    elseScope.name = "else";
    const FunctionId elseId = g->addFunction(elseScope);
    Node inner;
    inner.kind = NodeKind::OpCall;
    inner.op = "nn.relu";
    inner.function = thenId;
    inner.name = "%t0";
    inner.inputs = { TensorRef { r0, 0 } };
    inner.setOutputTypes({ GraphBuilder::tensor({ 1, 8 }) });
    const NodeId innerId = g->addNode(inner);
    g->function(thenId).result = innerId;
    g->function(elseId).result = r1;
    Node branch;
    branch.kind = NodeKind::If;
    branch.function = g->mainFunction();
    branch.name = "%if";
    branch.inputs = { TensorRef { cond, 0 } };
    branch.setScopes({ thenId, elseId });
    branch.setOutputTypes({ GraphBuilder::tensor({ 1, 8 }) });
    const NodeId ifId = g->addNode(branch);
    g->function(g->mainFunction()).result = ifId;
    g->finalize();

    PartitionPlan plan(*g);
    QVERIFY(!plan.view().isAssignable(innerId)); // nested nodes belong to the If
    QCOMPARE(plan.view().representative(innerId), ifId);
    plan.partitionFromSelection({ ifId });
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(
        describe(plan, t),
        (QStringList { QStringLiteral("%2 stage0#0 -> stage1:data_n_0(%if) [scalar float32] 4"),
                       QStringLiteral("%0 stage0#1 -> stage1:data_n_1(%if) [1×8 float32] 32") }));
}

void TestBoundary::cutAfterFusedKernel()
{
    // Fused kernels are named as TVM lowers them; the pool's output feeds the next block's
    // fused conv and its residual add through one input.
    ImportResult r = importFile(CLEAVE_SAMPLES_DIR "/resnet_fused.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    PartitionPlan plan(*r.graph);
    QVERIFY(plan.cutAfterOp("tvmgen_default_fused_nn_max_pool2d", 0).diagnostics.empty());
    const BoundaryTable t = computeBoundary(plan);
    QCOMPARE(describe(plan, t),
             QStringList { QStringLiteral(
                 "%20 stage0#0 -> stage1:data_n_0(%22,%24) [1×64×56×56 float32] 802816") });
    // The same cut by the fused function's own binding name.
    PartitionPlan byName(*r.graph);
    byName.cutAfterOp("%19", 0);
    QCOMPARE(planLayout(byName), planLayout(plan));
}

void TestBoundary::everyCrossingEdgeOfTheCorpus_data()
{
    QTest::addColumn<QString>("path");
    const QDir dir(QStringLiteral(CLEAVE_CORPUS_DIR "/relay"));
    for (const QString &f : dir.entryList({ QStringLiteral("*.relay.txt") }, QDir::Files))
        QTest::newRow(qPrintable(f)) << dir.filePath(f);
    if (dir.entryList({ QStringLiteral("*.relay.txt") }, QDir::Files).isEmpty())
        QTest::newRow(test::missingCorpusRow()) << QString();
    QTest::newRow("resnet18.relay") << QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay");
}

void TestBoundary::everyCrossingEdgeOfTheCorpus()
{
    // Property: cut every model in the middle of its program order; every use of a tensor
    // across the cut (found by brute force over Graph::uses) is in the boundary table, under
    // the consuming partition's single input for that tensor, or its producer is one of the
    // consuming partition's replicas and computed from no activation.
    QFETCH(QString, path);
    CLEAVE_SKIP_MISSING_CORPUS_ROW(path);
    ImportResult r = importFile(path.toStdString());
    QVERIFY2(r.graph, r.firstError().c_str());
    const Graph &g = *r.graph;
    PartitionPlan plan(g);
    const auto &ops = plan.view().assignableNodes();
    if (ops.size() < 2)
        return;
    std::vector<EdgeRef> cut;
    const NodeId middle = ops[ops.size() / 2];
    for (const FlowEdge *e : plan.view().inEdges(middle))
        cut.push_back(EdgeRef { e->tensor, middle });
    if (cut.empty())
        return;
    plan.cutAcrossEdges(cut);
    const BoundaryTable t = computeBoundary(plan);
    std::size_t crossing = 0;
    std::size_t replicated = 0;
    for (NodeId p : ops) {
        for (const Use &u : g.uses(p)) {
            const NodeId c = plan.view().representative(u.consumer);
            if (!c.isValid() || c == p || !plan.partitionOf(c).isValid()
                || plan.partitionOf(c) == plan.partitionOf(p))
                continue;
            const std::size_t ci = static_cast<std::size_t>(plan.indexOf(plan.partitionOf(c)));
            const auto &replicas = t.interfaces[ci].replicas;
            if (std::find(replicas.begin(), replicas.end(), p) != replicas.end()) {
                // Computed again by the consumer's partition instead of crossing: then it must
                // depend on no activation (every value it is computed from, followed back to
                // the leaves, is a constant or an input other than the first, the data).
                std::vector<NodeId> stack { p };
                std::set<std::uint32_t> seen;
                while (!stack.empty()) {
                    const NodeId n = stack.back();
                    stack.pop_back();
                    if (!seen.insert(n.value).second)
                        continue;
                    const Node &node = g.node(n);
                    QVERIFY2(node.kind != NodeKind::Input
                                 || n != g.function(plan.function()).params.front(),
                             (g.key(p) + " is computed again but reads the data").c_str());
                    for (const TensorRef &in : node.inputs) {
                        if (in.isValid())
                            stack.push_back(in.node);
                    }
                }
                ++replicated;
                continue;
            }
            ++crossing;
            const TensorRef tensor = g.node(u.consumer).inputs[u.input];
            bool found = false;
            for (const BoundaryTensor &b : t.tensors) {
                if (b.tensor != tensor)
                    continue;
                for (const BoundaryConsumer &group : b.consumers) {
                    if (group.partition == plan.partitionOf(c)
                        && std::find(group.nodes.begin(), group.nodes.end(), c)
                            != group.nodes.end())
                        found = true;
                }
            }
            QVERIFY2(found, (g.key(p) + " -> " + g.key(c)).c_str());
        }
    }
    // The nodes printed before `middle` are not its descendants: the cut always splits in two.
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    std::size_t listedUses = 0;
    for (const BoundaryTensor &b : t.tensors) {
        for (const BoundaryConsumer &group : b.consumers)
            listedUses += group.nodes.size();
    }
    QVERIFY(listedUses <= crossing);
    QCOMPARE(listedUses == 0, crossing == 0);
    QCOMPARE(replicated > 0, !t.replicated.empty());
    // One input per (tensor, field) and consuming partition.
    for (const PartitionInterface &iface : t.interfaces) {
        QStringList names;
        for (const PartitionInput &in : iface.inputs)
            names << QString::fromStdString(in.name);
        QCOMPARE(names.removeDuplicates(), qsizetype(0));
    }
}

QTEST_APPLESS_MAIN(TestBoundary)
#include "tst_boundary.moc"
