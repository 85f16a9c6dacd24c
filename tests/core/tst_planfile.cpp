// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Plan files (save / load / diagnostics), the cost model and the partition report.
#include "TestGraphs.h"
#include "TestSupport.h"
#include "core/analysis/Cost.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionCost.h"
#include "core/partition/PlanFile.h"
#include "core/partition/PlanReport.h"
#include "core/validation/Validation.h"

#include <QTemporaryDir>
#include <QtTest/QtTest>

using namespace cleave;
using namespace cleave::test;

namespace {

using test::node;

QStringList lines(const std::vector<Diagnostic> &diagnostics)
{
    QStringList out;
    for (const Diagnostic &d : diagnostics)
        out << QString::fromStdString(std::string(severityName(d.severity)) + " " + d.code + ": "
                                      + d.message);
    return out;
}

const char *twoStagePlan = R"({"cleave_plan": 1, "function": "main",
  "partitions": [{"name": "a", "nodes": ["%0", "%1", "%2", "%3"]},
                 {"name": "b", "target": "cuda", "nodes": ["%4", "%5", "%6", "%7", "%8"]}]})";

} // namespace

class TestPlanFile : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip();
    void loadsPartitionsInOrder();
    void unknownAndDoubleNodes();
    void missingNodesAreReported();
    void checksumMismatch();
    void syntaxErrorHasLineAndColumn();
    void saveIsAtomic();
    void nodeCosts();
    void partitionCosts();
    void reportJson();
    void reportText();
};

void TestPlanFile::roundTrip()
{
    auto g = residualBlock();
    g->setChecksum("c0ffee");
    PartitionPlan plan(*g);
    plan.cutAcrossEdges({ plan.edgeBetween(node(*g, "%0"), node(*g, "%1")) });
    plan.renamePartition(plan.partitions()[1].id, "tail");
    plan.setTarget(plan.partitions()[1].id, "dnnl");
    const nlohmann::json saved = planToJson(plan);
    QCOMPARE(QString::fromStdString(saved.dump()),
             QStringLiteral(
                 R"({"cleave_plan":1,"cut_edges":[{"consumer":"%1","output":0,"producer":"%0"}],)"
                 R"("function":"main","model":{"checksum":"c0ffee","path":""},)"
                 R"("partitions":[{"name":"stage0","nodes":["%0"],"target":"llvm"},)"
                 R"({"name":"tail","nodes":["%1","%2","%3","%4","%5"],"target":"dnnl"}]})"));
    const PlanLoadResult loaded = planFromJson(*g, saved.dump(), "plan.json");
    QVERIFY(loaded.ok());
    QVERIFY(loaded.diagnostics.empty());
    QCOMPARE(planToJson(*loaded.plan), saved);
    // The crossed edge survives, so the skip edge is still reported as implied.
    QCOMPARE(checkImpliedEdges(*loaded.plan, computeBoundary(*loaded.plan)).size(), std::size_t(1));
}

void TestPlanFile::loadsPartitionsInOrder()
{
    auto g = residualIdentity();
    const PlanLoadResult r = planFromJson(*g, twoStagePlan, "two.json");
    QVERIFY(r.ok());
    const PartitionPlan &plan = *r.plan;
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(plan.partitions()[0].name, std::string("a"));
    QCOMPARE(plan.partitions()[0].target, std::string("llvm"));
    QCOMPARE(plan.partitions()[1].target, std::string("cuda"));
    QCOMPARE(plan.partitionOf(node(*g, "%4")), plan.partitions()[1].id);
    QCOMPARE(plan.nodeCount(plan.partitions()[0].id), std::size_t(4));
    QVERIFY(!hasErrors(validateAll(plan)));
}

void TestPlanFile::unknownAndDoubleNodes()
{
    auto g = chain(3);
    const PlanLoadResult r = planFromJson(*g, R"({"cleave_plan": 1, "partitions": [
        {"name": "a", "nodes": ["%0", "%1", "%99", "%data"]},
        {"name": "b", "nodes": ["%1", "%2"]}]})",
                                          "bad.json");
    QVERIFY(!r.ok());
    QCOMPARE(lines(r.diagnostics),
             (QStringList {
                 QStringLiteral("error plan.unknown_node: 1 node key(s) in the plan do not exist "
                                "in the model: %99"),
                 QStringLiteral("error plan.doubly_assigned: 1 node(s) are listed in more than one "
                                "partition (the first one is kept): %1"),
                 QStringLiteral("warning plan.not_assignable: 1 listed node(s) are inputs, "
                                "constants or outside @main and were ignored: %data") }));
    QCOMPARE(r.diagnostics[0].where.file, std::string("bad.json"));
    // A plan file with errors gives no plan: nothing half-read reaches validation or export.
    QVERIFY(!r.plan.has_value());
}

void TestPlanFile::missingNodesAreReported()
{
    auto g = chain(3);
    const PlanLoadResult r = planFromJson(
        *g, R"({"cleave_plan": 1, "partitions": [{"name": "a", "nodes": ["%0"]}]})", "m.json");
    QVERIFY(r.ok());
    QCOMPARE(lines(r.diagnostics),
             QStringList { QStringLiteral("warning plan.missing_nodes: 2 operator node(s) of @main "
                                          "are in no partition: %1, %2") });
    QCOMPARE(validateAll(*r.plan)[0].code, std::string("partition.unassigned"));
}

void TestPlanFile::checksumMismatch()
{
    auto g = chain(2);
    g->setChecksum("aaaaaaaaaaaaaaaaaaaa");
    const std::string text
        = R"({"cleave_plan": 1, "model": {"path": "x", "checksum": "bbbbbbbbbbbbbbbbbbbb"},
        "partitions": [{"name": "a", "nodes": ["%0", "%1"]}]})";
    const PlanLoadResult strict = planFromJson(*g, text, "p.json");
    QVERIFY(!strict.ok());
    QCOMPARE(lines(strict.diagnostics),
             QStringList { QStringLiteral(
                 "error plan.checksum: the plan was made for another model (checksum "
                 "bbbbbbbbbbbb…, this model aaaaaaaaaaaa…); use --force to load it anyway") });
    PlanLoadOptions force;
    force.force = true;
    const PlanLoadResult forced = planFromJson(*g, text, "p.json", force);
    QVERIFY(forced.ok());
    QCOMPARE(forced.diagnostics[0].severity, Severity::Warning);
}

void TestPlanFile::syntaxErrorHasLineAndColumn()
{
    auto g = chain(2);
    const PlanLoadResult r
        = planFromJson(*g, "{\"cleave_plan\": 1,\n  \"partitions\": [,]}", "s.json");
    QVERIFY(!r.plan);
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    QCOMPARE(r.diagnostics[0].toString(),
             std::string("s.json:2:18: error: the plan file is not valid JSON: syntax error while "
                         "parsing value - unexpected ','; expected '[', '{', or a literal "
                         "[plan.syntax]"));
    const PlanLoadResult v = planFromJson(*g, R"({"cleave_plan": 7, "partitions": []})", "v.json");
    QCOMPARE(v.diagnostics[0].code, std::string("plan.version"));
}

void TestPlanFile::saveIsAtomic()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto g = chainWithSkip();
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "add", 0 }, { "add", 1 } });
    const std::string path = dir.filePath(QStringLiteral("plan.json")).toStdString();
    std::string error;
    QVERIFY(savePlanFile(plan, path, &error));
    QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp")));
    const PlanLoadResult r = loadPlanFile(*g, path);
    QVERIFY(r.ok());
    QCOMPARE(planToJson(*r.plan), planToJson(plan));
    // A failed save leaves the existing file alone.
    QVERIFY(!savePlanFile(plan, dir.filePath(QStringLiteral("missing/plan.json")).toStdString(),
                          &error));
    QVERIFY(!error.empty());
    QCOMPARE(loadPlanFile(*g, "/nonexistent/plan.json").diagnostics[0].code,
             std::string("plan.unreadable"));
}

void TestPlanFile::nodeCosts()
{
    auto g = inceptionBlock();
    // stem: 2 · (1·64·28·28) · (64·3·3) = 57802752
    QCOMPARE(nodeFlops(*g, node(*g, "%0")), std::int64_t(57802752));
    // 1x1 conv to 32 channels: 2 · 25088 · 64 = 3211264
    QCOMPARE(nodeFlops(*g, node(*g, "%1")), std::int64_t(3211264));
    // 3x3 max pool: 50176 outputs · 9
    QCOMPARE(nodeFlops(*g, node(*g, "%4")), std::int64_t(451584));
    QCOMPARE(nodeFlops(*g, node(*g, "%6")), std::int64_t(0));
    const NodeCost c = nodeCost(*g, node(*g, "%0"));
    QCOMPARE(c.paramBytes, std::int64_t(64 * 64 * 9 * 4));
    QCOMPARE(c.outputBytes, std::int64_t(64 * 28 * 28 * 4));

    GraphBuilder b;
    const NodeId x = b.input("x", { 8, 512 });
    const NodeId w = b.constant("w", { 1000, 512 });
    const NodeId d = b.op("nn.dense", { x, w }, { 8, 1000 });
    const NodeId y = b.input("y", { 4, 16, 64 });
    const NodeId z = b.input("z", { 4, 32, 64 });
    const NodeId bm = b.op("nn.batch_matmul", { y, z }, { 4, 16, 32 });
    auto g2 = b.finish(b.op("add", { d, d }, { 8, 1000 }));
    QCOMPARE(nodeFlops(*g2, d), std::int64_t(2 * 8 * 1000 * 512));
    QCOMPARE(nodeFlops(*g2, bm), std::int64_t(2 * 4 * 16 * 32 * 64));
    QCOMPARE(nodeFlops(*g2, g2->findByKey("%2")), std::int64_t(8000));
    QCOMPARE(humanBytes(802816), std::string("784.0 KiB"));
    QCOMPARE(humanFlops(462823424), std::string("462.82 MFLOP"));
}

void TestPlanFile::partitionCosts()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    plan.cutAfterOp("add", 0);
    const auto costs = cleave::partitionCosts(plan, computeBoundary(plan));
    QCOMPARE(costs.size(), std::size_t(2));
    QCOMPARE(costs[0].ops, std::size_t(4));
    QCOMPARE(costs[0].flops, std::int64_t(462823424)); // two 3x3 convs + relu + add
    QCOMPARE(costs[0].paramBytes, std::int64_t(294912));
    QCOMPARE(costs[0].boundaryBytesOut, std::int64_t(802816));
    QCOMPARE(costs[1].boundaryBytesIn, std::int64_t(802816));
    QCOMPARE(costs[1].ops, std::size_t(5));
}

void TestPlanFile::reportJson()
{
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    plan.cutAfterOp("add", 0);
    const BoundaryTable boundary = computeBoundary(plan);
    const nlohmann::json report = planReportJson(plan, boundary, validateAll(plan, boundary));
    QCOMPARE(QString::fromStdString(report["boundary"].dump()),
             QStringLiteral(
                 R"([{"bytes":802816,"consumers":[{"input_name":"data_n_0","nodes":["%4","%7"],)"
                 R"("partition":"stage1"}],"dtype":"float32","producer":{"node":"%3",)"
                 R"("output_index":0,"partition":"stage0"},"shape":[1,64,56,56],"tensor":"%3"}])"));
    QCOMPARE(report["partitions"].size(), std::size_t(2));
    QCOMPARE(report["partitions"][0]["flops"].get<std::int64_t>(), std::int64_t(462823424));
    QCOMPARE(report["partitions"][1]["inputs"].dump(), std::string(R"(["data_n_0"])"));
    QCOMPARE(report["partitions"][1]["outputs"].dump(),
             std::string(R"([{"global_output":0,"output_index":0,"tensor":"%8"}])"));
    QCOMPARE(report["diagnostics"].dump(),
             std::string(
                 R"([{"code":"partition.boundary","message":"1 tensor, 784.0 KiB cross )"
                 R"(from stage0 to stage1","nodes":[],"partition":"stage0","severity":"info"}])"));
}

void TestPlanFile::reportText()
{
    auto g = batchNormBlock();
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.batch_norm", 0);
    const BoundaryTable boundary = computeBoundary(plan);
    const std::string text = planReportText(plan, boundary, checkTupleCrossings(plan, boundary));
    QCOMPARE(
        QString::fromStdString(text),
        QStringLiteral(
            "Partitions (2):\n"
            "  #  name    target  ops  FLOPs         params     in         out        inputs\n"
            "  0  stage0  llvm    2    231.61 MFLOP  145.0 KiB  0 B        784.0 KiB  data\n"
            "  1  stage1  llvm    1    200.70 KFLOP  0 B        784.0 KiB  0 B        data_n_0\n"
            "FLOPs: 231.81 MFLOP\n"
            "\nBoundary tensors (1):\n"
            "  tensor  type                bytes      producer          consumers\n"
            "  %1.0    1×64×56×56 float32  784.0 KiB  stage0.output(0)  stage1.data_n_0 (%2)\n"
            "\nDiagnostics (1):\n"
            "  warning: the tuple %1 (nn.batch_norm) crosses from stage0 to stage1; the "
            "boundary carries its field 0 (1×64×56×56 float32) instead "
            "[partition.tuple_crossing]\n"));
}

QTEST_APPLESS_MAIN(TestPlanFile)
#include "tst_planfile.moc"
