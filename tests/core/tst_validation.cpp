// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "TestGraphs.h"
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/PartitionPlan.h"
#include "core/validation/Validation.h"

#include <QtTest/QtTest>

using namespace cleave;
using namespace cleave::test;

namespace {

using test::node;

/// `code: message` per diagnostic.
QStringList lines(const std::vector<Diagnostic> &diagnostics)
{
    QStringList out;
    for (const Diagnostic &d : diagnostics)
        out << QString::fromStdString(d.code + ": " + d.message);
    return out;
}

QStringList codes(const std::vector<Diagnostic> &diagnostics)
{
    QStringList out;
    for (const Diagnostic &d : diagnostics)
        out << QString::fromStdString(d.code);
    return out;
}

/// chain(4) assigned as stage0 = {%0, %2}, stage1 = {%1, %3}: a cycle between them.
PartitionPlan interleaved(const Graph &g)
{
    PartitionPlan plan(g);
    plan.cutAfterOp("nn.relu", 1);
    plan.assignToPartition({ node(g, "%1") }, plan.partitions()[1].id);
    plan.assignToPartition({ node(g, "%2") }, plan.partitions()[0].id);
    return plan;
}

} // namespace

class TestValidation : public QObject
{
    Q_OBJECT

private slots:
    void validCutHasOnlyTheSummary();
    void unassignedNodes();
    void emptyPartition();
    void cycleWithWitness();
    void nonConvexPartitions();
    void disconnectedPartitions();
    void partitionOrder();
    void sharedGlobalInput();
    void tupleCrossing();
    void impliedEdge();
    void duplicatedConstant();
    void targetSupport();
    void opSupportParseErrors();
    void editsKeepPlansValid();
    void resnet18Sample();
};

void TestValidation::validCutHasOnlyTheSummary()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    plan.cutAfterOp("add", 0);
    QCOMPARE(lines(validateAll(plan)),
             QStringList { QStringLiteral(
                 "partition.boundary: 1 tensor, 784.0 KiB cross from stage0 to stage1") });
}

void TestValidation::unassignedNodes()
{
    auto g = residualIdentity();
    PartitionPlan plan(std::make_shared<const FunctionView>(*g, FunctionId {}), false);
    plan.appendPartition("only");
    plan.assignToPartition({ node(*g, "%0"), node(*g, "%1"), node(*g, "%2"), node(*g, "%3") },
                           plan.partitions()[0].id);
    const auto found = checkAssignment(plan);
    QCOMPARE(lines(found),
             QStringList { QStringLiteral("partition.unassigned: 5 operator nodes are not "
                                          "assigned to any partition: %4, %5, %6, %7, %8") });
    QCOMPARE(found[0].nodes.size(), std::size_t(5));
    QCOMPARE(found[0].severity, Severity::Error);
}

void TestValidation::emptyPartition()
{
    auto g = chain(2);
    PartitionPlan plan(*g);
    plan.appendPartition("spare");
    const auto found = validateAll(plan);
    QCOMPARE(lines(found),
             QStringList { QStringLiteral(
                 "partition.empty: partition spare (position 1) holds no operator node") });
    QCOMPARE(found[0].partition, std::optional<PartitionId>(plan.partitions()[1].id));
}

void TestValidation::cycleWithWitness()
{
    auto g = chain(4);
    const PartitionPlan plan = interleaved(*g);
    const auto found = checkPartitionCycles(plan, computeBoundary(plan));
    QCOMPARE(lines(found),
             QStringList { QStringLiteral("partition.cycle: partitions form a cycle: stage0 -> "
                                          "stage1 -> stage0 (through %0 -> %1, %1 -> %2)") });
    QCOMPARE(found[0].nodes.size(), std::size_t(4));
    QCOMPARE(found[0].nodes[0], node(*g, "%0"));
    QCOMPARE(found[0].nodes[3], node(*g, "%2"));
}

void TestValidation::nonConvexPartitions()
{
    auto g = chain(4);
    const PartitionPlan plan = interleaved(*g);
    const auto found = checkConvexity(plan, computeBoundary(plan));
    QCOMPARE(lines(found),
             (QStringList { QStringLiteral("partition.nonconvex: partition stage0 is not convex: "
                                           "the path %0 -> %1 -> %2 leaves it and comes back "
                                           "(its convex closure fixes it)"),
                            QStringLiteral("partition.nonconvex: partition stage1 is not convex: "
                                           "the path %1 -> %2 -> %3 leaves it and comes back "
                                           "(its convex closure fixes it)") }));
    QCOMPARE(found[0].nodes,
             (std::vector<NodeId> { node(*g, "%0"), node(*g, "%1"), node(*g, "%2") }));
    // The full run reports every finding, not only the first.
    QCOMPARE(codes(validateAll(plan)),
             (QStringList {
                 QStringLiteral("partition.cycle"), QStringLiteral("partition.nonconvex"),
                 QStringLiteral("partition.nonconvex"), QStringLiteral("partition.disconnected"),
                 QStringLiteral("partition.disconnected"), QStringLiteral("partition.boundary"),
                 QStringLiteral("partition.boundary") }));
}

void TestValidation::disconnectedPartitions()
{
    auto g = inceptionBlock();
    PartitionPlan plan(*g);
    // The two middle branches in a partition of their own: %2 %3 and %4 %5 are not connected.
    plan.isolateSelection({ node(*g, "%2"), node(*g, "%3"), node(*g, "%4"), node(*g, "%5") });
    const auto found = checkConnectivity(plan);
    QCOMPARE(lines(found),
             QStringList { QStringLiteral("partition.disconnected: partition stage1 falls into 2 "
                                          "unconnected pieces (starting at %2, %4)") });
    QCOMPARE(found[0].severity, Severity::Warning);
}

void TestValidation::partitionOrder()
{
    auto g = chain(2);
    PartitionPlan plan(std::make_shared<const FunctionView>(*g, FunctionId {}), false);
    plan.appendPartition("late");
    plan.appendPartition("early");
    plan.assignToPartition({ node(*g, "%1") }, plan.partitions()[0].id);
    plan.assignToPartition({ node(*g, "%0") }, plan.partitions()[1].id);
    QCOMPARE(lines(checkPartitionCycles(plan, computeBoundary(plan))),
             QStringList { QStringLiteral("partition.order: early feeds late (%0 -> %1) but comes "
                                          "after it in the plan order") });
}

void TestValidation::sharedGlobalInput()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.conv2d", 0);
    const auto found = checkSharedGlobalInputs(plan);
    QCOMPARE(lines(found),
             QStringList { QStringLiteral(
                 "pipeline.routed_input: global input data is read by 2 partitions (stage0, "
                 "stage1); the export forwards it: stage0 returns it as an extra output feeding "
                 "stage1 (treat it as a parameter if it is a weight)") });
    QCOMPARE(found[0].nodes,
             (std::vector<NodeId> { node(*g, "%data"), node(*g, "%0"), node(*g, "%3") }));
}

void TestValidation::tupleCrossing()
{
    auto g = batchNormBlock();
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.batch_norm", 0);
    QCOMPARE(lines(checkTupleCrossings(plan, computeBoundary(plan))),
             QStringList { QStringLiteral(
                 "partition.tuple_crossing: the tuple %1 (nn.batch_norm) crosses from stage0 to "
                 "stage1; the boundary carries its field 0 (1×64×56×56 float32) instead") });
    QVERIFY(!hasErrors(validateAll(plan)));
}

void TestValidation::impliedEdge()
{
    auto g = residualBlock();
    PartitionPlan plan(*g);
    plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%1")) });
    QCOMPARE(lines(checkImpliedEdges(plan, computeBoundary(plan))),
             QStringList { QStringLiteral(
                 "partition.implied_edge: the edge %0 -> %4 was not crossed by the cut line but "
                 "is severed by it: stage0 sends %0 to stage1 as data_n_0") });
    // Merging the halves back removes the cut and the warning.
    plan.mergePartitions({ plan.partitions()[0].id, plan.partitions()[1].id });
    QVERIFY(plan.crossedEdges().empty());
    QVERIFY(checkImpliedEdges(plan, computeBoundary(plan)).empty());
}

void TestValidation::duplicatedConstant()
{
    GraphBuilder b;
    const NodeId data = b.input("data", { 1, 16 });
    const NodeId c = b.constant("c", { 1, 16 });
    const NodeId a0 = b.op("add", { data, c }, { 1, 16 });
    const NodeId r = b.op("nn.relu", { a0 }, { 1, 16 });
    auto g = b.finish(b.op("add", { r, c }, { 1, 16 }));
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.relu", 0);
    const auto found = checkDuplicatedConstants(plan);
    QCOMPARE(lines(found),
             QStringList { QStringLiteral(
                 "partition.duplicated_constant: constant %c (meta[relay.Constant][0]), 64 B, is "
                 "used by 2 partitions (stage0, stage1) and duplicated: 64 B extra") });
    QCOMPARE(found[0].severity, Severity::Info);
}

void TestValidation::targetSupport()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    plan.cutAfterOp("add", 0);
    plan.setTarget(plan.partitions()[1].id, "dnnl");
    std::vector<Diagnostic> parseErrors;
    ValidationOptions options;
    options.opSupport = parseOpSupport(R"({"target": "dnnl", "ops": ["nn.conv2d", "add"]})",
                                       "dnnl.json", parseErrors);
    QVERIFY(parseErrors.empty());
    const auto found = checkTargetSupport(plan, options.opSupport);
    QCOMPARE(lines(found),
             QStringList { QStringLiteral("target.unsupported_op: target dnnl of partition stage1 "
                                          "does not support nn.relu (2 nodes: %5, %8)") });
    QCOMPARE(found[0].partition, std::optional<PartitionId>(plan.partitions()[1].id));
    QVERIFY(hasErrors(validateAll(plan, options)));
    // stage0 stays on llvm, which has no list: nothing is checked there.
    plan.setTarget(plan.partitions()[1].id, "llvm");
    QVERIFY(checkTargetSupport(plan, options.opSupport).empty());
}

void TestValidation::opSupportParseErrors()
{
    std::vector<Diagnostic> errors;
    QVERIFY(parseOpSupport("{not json", "bad.json", errors).empty());
    QCOMPARE(errors.size(), std::size_t(1));
    QVERIFY2(lines(errors)[0].startsWith(
                 QStringLiteral("opsupport.invalid: the op-support list is not valid JSON: ")),
             qPrintable(lines(errors)[0]));
    QCOMPARE(errors[0].where.line, 1);
    QCOMPARE(errors[0].where.file, std::string("bad.json"));
    errors.clear();
    const auto lists = parseOpSupport(R"([{"target": "dnnl", "ops": ["add"]}, {"target": "cuda"}])",
                                      "two.json", errors);
    QCOMPARE(lists.size(), std::size_t(1));
    QCOMPARE(lines(errors),
             QStringList { QStringLiteral("opsupport.invalid: entry 1: expected {\"target\": "
                                          "\"<name>\", \"ops\": [\"<op>\", ...]}") });
}

void TestValidation::editsKeepPlansValid()
{
    // Isolating a middle block, and two consecutive BYOC regions: no errors, no cycle.
    auto g = chain(6);
    PartitionPlan plan(*g);
    plan.isolateSelection({ node(*g, "%1"), node(*g, "%2") });
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    QVERIFY(!hasErrors(validateAll(plan)));
    plan.isolateSelection({ node(*g, "%3"), node(*g, "%4") });
    plan.setTarget(plan.partitions()[1].id, "dnnl");
    plan.setTarget(plan.partitions()[2].id, "dnnl");
    QCOMPARE(plan.partitionCount(), std::size_t(4));
    QCOMPARE(
        codes(validateAll(plan)),
        (QStringList { QStringLiteral("partition.boundary"), QStringLiteral("partition.boundary"),
                       QStringLiteral("partition.boundary") }));
}

void TestValidation::resnet18Sample()
{
    ImportResult r = importFile(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    PartitionPlan plan(*r.graph);
    plan.cutAfterOp("add", 0);
    QCOMPARE(lines(validateAll(plan)),
             QStringList { QStringLiteral(
                 "partition.boundary: 1 tensor, 784.0 KiB cross from stage0 to stage1") });
}

QTEST_APPLESS_MAIN(TestValidation)
#include "tst_validation.moc"
