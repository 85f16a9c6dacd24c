// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Measured latency tables: parsing, lookup (op, node, fused bodies, graph.json kernels),
// partition totals and the cost.balance / cost.latency_missing rules (`partition --latency` is
// tested in tests/cli/tst_cli_partition.cpp).
#include "TestSupport.h"
#include "core/analysis/LatencyTable.h"
#include "core/auto/CostModel.h"
#include "core/formats/FormatRegistry.h"
#include "core/formats/PipelineRunReport.h"
#include "core/graph/FunctionView.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionCost.h"
#include "core/validation/Validation.h"

#include <QTest>

using namespace cleave;

namespace {

const char *residual = CLEAVE_TESTDATA_DIR "/map/residual_inception.relay";

LatencyTable parse(const std::string &text)
{
    std::vector<Diagnostic> problems;
    auto table = LatencyTable::fromJson(text, "lat.json", problems);
    if (!table || !problems.empty())
        qFatal("latency table did not parse: %s", text.c_str());
    return *table;
}

using test::load;

const std::string residualTable
    = R"({"unit": "us", "ops": {"nn.conv2d": 100, "add": 2, "nn.relu": 1, "nn.max_pool2d": 5,
          "concatenate": 3, "nn.global_avg_pool2d": 2, "reshape": 0, "nn.dense": 8},
          "nodes": {"%9": 250}})";

} // namespace

class TestLatency : public QObject
{
    Q_OBJECT

private slots:
    void badFiles_data();
    void badFiles();
    void units();
    void nodeEntryWinsOverOp();
    void fusedCallsSumTheirBody();
    void graphJsonKernelsByFuncName();
    void balanceAndMissingEntries();
    void calibrationAndProvenance();
    void stageOverheadInCostModel();
    void runReports_data();
    void runReports();
};

void TestLatency::badFiles_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("diagnostic");
    QTest::newRow("syntax")
        << "{\"ops\": {\"add\": 1,}\n}"
        << "lat.json:1:19: error: invalid JSON: syntax error while parsing object key";
    QTest::newRow("not an object") << "[1, 2]"
                                   << "lat.json:1:1: error: a latency file is a JSON object";
    QTest::newRow("unit")
        << R"({"unit": "s", "ops": {"add": 1}})"
        << "lat.json:1:10: error: unknown unit \"s\" (expected \"ns\", \"us\" or \"ms\")";
    QTest::newRow("negative")
        << R"({"ops": {"add": -1}})"
        << "lat.json:1:17: error: ops entry 'add': expected a number of microseconds from 0 to "
           "3.6e9 (an hour), got -1";
    QTest::newRow("string")
        << R"({"nodes": {"%1": "fast"}})"
        << "lat.json:1:18: error: nodes entry '%1': expected a number of microseconds from 0 to "
           "3.6e9";
    // Issue 34, N5: 1e308 us overflowed every sum (auto then blamed the memory limit).
    QTest::newRow("beyond an hour")
        << R"({"unit": "us", "ops": {"add": 1e308}})"
        << "lat.json:1:31: error: ops entry 'add': expected a number of microseconds from 0 to "
           "3.6e9 (an hour), got 1e+308";
    // 4000 s in ms: 4e6 ms = 4e9 us, past the hour.
    // The calibration block of a measured table (cleave-cli profile).
    QTest::newRow("calibration, not an object")
        << R"({"ops": {"add": 1}, "calibration": 5})"
        << "lat.json:1:36: error: \"calibration\" must be an object";
    QTest::newRow("calibration, negative overhead")
        << R"({"ops": {"add": 1},
 "calibration": {"run_overhead_us": -3}})"
        << "lat.json:2:37: error: calibration run_overhead_us: expected a number from 0 to 3.6e9, "
           "got -3";
    QTest::newRow("an hour, in ms")
        << R"({"unit": "ms", "ops": {"add": 4e6}})"
        << "lat.json:1:31: error: ops entry 'add': expected a number of microseconds from 0 to "
           "3.6e9 (an hour), got 4000000.0";
}

void TestLatency::badFiles()
{
    QFETCH(QString, text);
    QFETCH(QString, diagnostic);
    std::vector<Diagnostic> problems;
    QVERIFY(!LatencyTable::fromJson(text.toStdString(), "lat.json", problems));
    QCOMPARE(problems.size(), std::size_t(1));
    const QString got = QString::fromStdString(problems[0].toString());
    QVERIFY2(got.startsWith(diagnostic), qPrintable(got));
}

void TestLatency::units()
{
    const auto g = load(residual);
    QVERIFY(g);
    const NodeId conv = g->findByKey("%0");
    QCOMPARE(*parse(R"({"unit": "ms", "ops": {"nn.conv2d": 1.5}})").latency(*g, conv), 1500.0);
    QCOMPARE(*parse(R"({"unit": "ns", "ops": {"nn.conv2d": 2500}})").latency(*g, conv), 2.5);
    QCOMPARE(*parse(R"({"ops": {"nn.conv2d": 7}})").latency(*g, conv), 7.0);
    QVERIFY(!parse(R"({"ops": {"add": 7}})").latency(*g, conv));
    // Tuples cost nothing and need no entry.
    QCOMPARE(*parse(R"({"ops": {}})").latency(*g, g->findByKey("%11")), 0.0);
}

void TestLatency::nodeEntryWinsOverOp()
{
    const auto g = load(residual);
    QVERIFY(g);
    const LatencyTable t = parse(residualTable);
    QCOMPARE(*t.latency(*g, g->findByKey("%8")), 100.0);
    QCOMPARE(*t.latency(*g, g->findByKey("%9")), 250.0);
}

void TestLatency::fusedCallsSumTheirBody()
{
    const auto g = load(CLEAVE_SAMPLES_DIR "/resnet_fused.relay");
    QVERIFY(g);
    PartitionPlan plan(*g);
    const BoundaryTable b = computeBoundary(plan);
    const LatencyTable body
        = parse(R"({"ops": {"nn.conv2d": 10, "add": 1, "nn.relu": 1, "nn.max_pool2d": 4}})");
    auto costs = partitionCosts(plan, b, &body);
    QCOMPARE(*costs[0].latencyUs, 8 * 10.0 + 11 + 7 + 4);
    QCOMPARE(costs[0].latencyMissing, std::size_t(0));
    // A fused function's own name replaces the sum of its body.
    const LatencyTable named = parse(R"({"ops": {"nn.conv2d": 10, "add": 1, "nn.relu": 1,
                                         "nn.max_pool2d": 4, "fused_nn_max_pool2d": 50}})");
    costs = partitionCosts(plan, b, &named);
    QCOMPARE(*costs[0].latencyUs, 8 * 10.0 + 11 + 7 + 50);
    // Without a table there is no latency at all.
    QVERIFY(!partitionCosts(plan, b)[0].latencyUs);
}

void TestLatency::graphJsonKernelsByFuncName()
{
    const auto g = load(CLEAVE_TESTDATA_DIR "/map/residual_inception.graph.json");
    QVERIFY(g);
    const LatencyTable t = parse(R"({"ops": {"tvmgen_default_fused_nn_conv2d_add_nn_relu": 40,
                                             "__nop": 0}})");
    QCOMPARE(*t.latency(*g, NodeId(std::size_t(9))), 40.0);
    QCOMPARE(*t.latency(*g, NodeId(std::size_t(16))), 0.0);
    QVERIFY(!t.latency(*g, NodeId(std::size_t(10))));
}

void TestLatency::balanceAndMissingEntries()
{
    const auto g = load(residual);
    QVERIFY(g);
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.max_pool2d", 0);
    const BoundaryTable b = computeBoundary(plan);
    const LatencyTable t = parse(residualTable);
    auto found = checkBalance(plan, b, t);
    QCOMPARE(found.size(), std::size_t(1));
    QCOMPARE(found[0].code, std::string("cost.balance"));
    QCOMPARE(found[0].message,
             std::string("latency 579.0 us in all: stage0 213.0 us (37%), stage1 366.0 us (63%); "
                         "the bottleneck stage1 bounds the pipeline at 2732.2 inferences/s"));
    QCOMPARE(*found[0].partition, plan.partitions()[1].id);

    const LatencyTable partial = parse(R"({"ops": {"nn.conv2d": 100, "add": 2}})");
    found = checkBalance(plan, b, partial);
    QCOMPARE(found.size(), std::size_t(2));
    QCOMPARE(found[0].code, std::string("cost.latency_missing"));
    QCOMPARE(found[0].message,
             std::string("8 op(s) have no latency entry and count as 0: concatenate (1), "
                         "nn.dense (1), nn.global_avg_pool2d (1), nn.max_pool2d (1), nn.relu (3), "
                         "reshape (1)"));
    QCOMPARE(found[0].nodes.size(), std::size_t(8));
    // validateAll runs the rule only when a table is given.
    ValidationOptions options;
    const auto without = validateAll(plan, b, options);
    QCOMPARE(std::count_if(without.begin(), without.end(),
                           [](const Diagnostic &d) { return d.code == "cost.balance"; }),
             0);
    options.latency = &t;
    const auto all = validateAll(plan, b, options);
    QCOMPARE(std::count_if(all.begin(), all.end(),
                           [](const Diagnostic &d) { return d.code == "cost.balance"; }),
             1);
}

// A table from cleave-cli profile: its calibration (microseconds and bytes per second whatever the
// unit) and its provenance as one line.
void TestLatency::calibrationAndProvenance()
{
    const LatencyTable t = parse(R"J({"unit": "ms", "nodes": {"conv": 1.5},
        "provenance": {"tool": "onnxruntime profiler (profile.py)", "onnxruntime": "1.30.0",
                       "execution_provider": "CPUExecutionProvider", "intra_op_threads": 1,
                       "runs": 15, "statistic": "median", "host": "lab"},
        "calibration": {"run_overhead_us": 4.5, "handoff_us": 25, "copy_bytes_per_second": 2e10,
                        "node_dispatch_us": 0.3}})J");
    QVERIFY(t.calibration().has_value());
    QCOMPARE(t.calibration()->runOverheadUs, 4.5);
    QCOMPARE(t.calibration()->handoffUs.value_or(-1), 25.0);
    QCOMPARE(t.calibration()->copyBytesPerSecond.value_or(-1), 2e10);
    QCOMPARE(QString::fromStdString(t.provenance()),
             QStringLiteral("onnxruntime 1.30.0, CPUExecutionProvider, 1 thread, median of 15 "
                            "runs, host lab"));
    QCOMPARE(t.nodeEntries(), std::size_t(1));
    // A hand-written table has neither.
    const LatencyTable plain = parse(R"({"ops": {"add": 1}})");
    QVERIFY(!plain.calibration());
    QVERIFY(plain.provenance().empty());
}

// The calibration's run overhead is paid once by every stage that runs (not by an empty one),
// and is part of the stage's time: all of the residual model in one stage of three costs its
// nodes' latencies plus 10 us.
void TestLatency::stageOverheadInCostModel()
{
    const auto g = load(residual);
    QVERIFY(g);
    LatencyTable table = parse(residualTable);
    LatencyCalibration cal;
    cal.runOverheadUs = 10;
    table.setCalibration(cal);
    FunctionView view(*g, g->mainFunction());
    DeviceSpec device; // stageOverheadUs unset: the table's calibration gives it
    device.latency = &table;
    const CostGraph cost = CostGraph::build(view, { device }, LinkSpec {});
    std::vector<std::int32_t> stageOf(cost.unitCount(), 0);
    double all = 0;
    for (std::size_t u = 0; u < cost.unitCount(); ++u)
        all += cost.timeUs(0, u);
    // residualTable: 4 conv2d (one of them %9 at 250), ... the sum is checked against the units'.
    QVERIFY(all > 250);
    const std::vector<StageCost> stages = cost.evaluate(stageOf, 3);
    QCOMPARE(stages[0].overheadUs, 10.0);
    QCOMPARE(stages[0].timeUs(), all + 10.0);
    QCOMPARE(stages[1].timeUs(), 0.0);
    QCOMPARE(stages[2].overheadUs, 0.0);
}

void TestLatency::runReports_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("diagnostic"); // empty: the report is read
    const QString stage
        = R"("stages": [{"name": "mod0", "measured_us": 120.5, "predicted_us": 100}])";
    QTest::newRow("valid") << "{\"items\": 64, " + stage + "}" << QString();
    QTest::newRow("no stages") << R"({"items": 64})"
                               << "run.json:1:1: error: not a run report";
    QTest::newRow("stage without a time")
        << R"({"stages": [{"name": "mod0"}]})"
        << "run.json:1:13: error: stage 0 needs a \"name\" and a non-negative \"measured_us\"";
    // Found by fuzz_tables in CI: 2.04444e10 items overflowed the int it is kept in (UBSan).
    QTest::newRow("items beyond int") << "{\"items\": 2.04444e10, " + stage + "}"
                                      << "run.json:1:11: error: \"items\" must be a whole number "
                                         "from 0 to 2147483647";
    QTest::newRow("fractional items") << "{\"items\": 1.5, " + stage + "}"
                                      << "run.json:1:11: error: \"items\" must be a whole number";
    QTest::newRow("negative items") << "{\"items\": -4, " + stage + "}"
                                    << "run.json:1:11: error: \"items\" must be a whole number";
}

// Run reports written by run_pipeline.py --bench N --json FILE, read for the Balance dock.
void TestLatency::runReports()
{
    QFETCH(QString, text);
    QFETCH(QString, diagnostic);
    std::string error;
    const auto report = parsePipelineRunReport(text.toStdString(), "run.json", error);
    if (diagnostic.isEmpty()) {
        QVERIFY2(report.has_value(), error.c_str());
        QCOMPARE(report->items, 64);
        QCOMPARE(report->stages.size(), std::size_t(1));
        QCOMPARE(report->stages[0].measuredUs, 120.5);
        QCOMPARE(report->stages[0].predictedUs.value_or(-1), 100.0);
        return;
    }
    QVERIFY(!report);
    const QString got = QString::fromStdString(error);
    QVERIFY2(got.startsWith(diagnostic), qPrintable(got));
}

QTEST_APPLESS_MAIN(TestLatency)
#include "tst_latency.moc"
