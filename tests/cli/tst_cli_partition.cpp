// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Runs the real cleave-cli binary: `partition` and `validate`, their JSON and exit codes.
#include "CliRunner.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>

namespace {

using Run = cleave::test::CliRun;
using cleave::test::runCliBinary;

const QString resnet = QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay");
const QString residualInception
    = QStringLiteral(CLEAVE_TESTDATA_DIR "/map/residual_inception.relay");

// Measured latencies for residual_inception.relay (per op, and one node entry for %9).
const std::string residualTable
    = R"({"unit": "us", "ops": {"nn.conv2d": 100, "add": 2, "nn.relu": 1, "nn.max_pool2d": 5,
          "concatenate": 3, "nn.global_avg_pool2d": 2, "reshape": 0, "nn.dense": 8},
          "nodes": {"%9": 250}})";

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

/// Writes `cycle.json` into `dir`: resnet18.relay split into a = {%0, %1, %3} and b = the rest,
/// %2 = %1.0 included, so a -> b -> a (a cycle, and both partitions non-convex).
QString writeCyclePlan(const QTemporaryDir &dir)
{
    const QString plan = dir.filePath(QStringLiteral("cycle.json"));
    QByteArray nodes = "\"%2\"";
    for (int i = 4; i < 90; ++i)
        nodes += ", \"%" + QByteArray::number(i) + "\"";
    writeFile(plan,
              "{\"cleave_plan\": 1, \"partitions\": [{\"name\": \"a\", \"nodes\": [\"%0\", "
              "\"%1\", \"%3\"]}, {\"name\": \"b\", \"nodes\": ["
                  + nodes + ", \"%ret\"]}]}");
    return plan;
}

} // namespace

class TestCliPartition : public QObject
{
    Q_OBJECT

private slots:
    void partitionCutAfterAddJson();
    void partitionText();
    void savePlanThenValidate();
    void validateInvalidPlan();
    void exportRefusesInvalidPlan();
    void validateOpSupport();
    void badInput_data();
    void badInput();
    void cutAfterBlock();
    void partitionWithLatency();
};

void TestCliPartition::partitionCutAfterAddJson()
{
    const Run r = runCliBinary({ QStringLiteral("partition"), resnet, QStringLiteral("--cut-after"),
                                 QStringLiteral("add:0"), QStringLiteral("--dry-run"),
                                 QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const nlohmann::json report = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(report["partitions"].size(), std::size_t(2));
    QCOMPARE(report["partitions"][1]["inputs"].dump(), std::string(R"(["data_n_0"])"));
    QCOMPARE(report["boundary"].size(), std::size_t(1));
    QCOMPARE(report["boundary"][0].dump(),
             std::string(
                 R"({"bytes":802816,"consumers":[{"input_name":"data_n_0","nodes":["%13"],)"
                 R"("partition":"stage1"}],"dtype":"float32","producer":{"node":"%12",)"
                 R"("output_index":0,"partition":"stage0"},"shape":[1,64,56,56],"tensor":"%12"})"));
    QCOMPARE(report["diagnostics"].size(), std::size_t(1));
    QCOMPARE(report["diagnostics"][0]["code"].get<std::string>(),
             std::string("partition.boundary"));
}

void TestCliPartition::partitionText()
{
    const Run r
        = runCliBinary({ QStringLiteral("partition"), resnet, QStringLiteral("--cut-after=add:0"),
                         QStringLiteral("--cut-after"), QStringLiteral("add:3") });
    QCOMPARE(r.exitCode, 0);
    const QString text = QString::fromUtf8(r.out);
    QVERIFY2(text.startsWith(QStringLiteral("Partitions (3):\n")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("\nBoundary tensors (2):\n")));
    QVERIFY(text.contains(QStringLiteral("stage1.data_n_0 (%13)")));
}

void TestCliPartition::savePlanThenValidate()
{
    QTemporaryDir dir;
    const QString plan = dir.filePath(QStringLiteral("plan.json"));
    Run r = runCliBinary({ QStringLiteral("partition"), resnet, QStringLiteral("--cut-after"),
                           QStringLiteral("add:1"), QStringLiteral("--save-plan"), plan });
    QCOMPARE(r.exitCode, 0);
    QVERIFY(QFile::exists(plan));
    r = runCliBinary({ QStringLiteral("validate"), resnet, QStringLiteral("--plan"), plan });
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.endsWith("plan is valid (2 partitions)\n"), r.out.constData());

    // The same plan drives `partition --plan`.
    r = runCliBinary({ QStringLiteral("partition"), resnet, QStringLiteral("--plan"), plan,
                       QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(nlohmann::json::parse(r.out.toStdString())["boundary"].size(), std::size_t(1));

    // --dry-run writes nothing.
    const QString other = dir.filePath(QStringLiteral("other.json"));
    r = runCliBinary({ QStringLiteral("partition"), resnet, QStringLiteral("--cut-after"),
                       QStringLiteral("add:1"), QStringLiteral("--save-plan"), other,
                       QStringLiteral("--dry-run") });
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!QFile::exists(other));
}

void TestCliPartition::validateInvalidPlan()
{
    QTemporaryDir dir;
    const QString plan = writeCyclePlan(dir);
    const Run r = runCliBinary({ QStringLiteral("validate"), resnet, QStringLiteral("--plan"), plan,
                                 QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 1);
    const nlohmann::json out = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(out["valid"].get<bool>(), false);
    QStringList codes;
    for (const auto &d : out["diagnostics"])
        codes << QString::fromStdString(d["code"].get<std::string>());
    QCOMPARE(codes.join(u','),
             QStringLiteral("partition.cycle,partition.nonconvex,partition.nonconvex,"
                            "partition.disconnected,partition.disconnected,"
                            "partition.tuple_crossing,partition.boundary,partition.boundary"));
    QCOMPARE(out["diagnostics"][0]["message"].get<std::string>(),
             std::string("partitions form a cycle: a -> b -> a (through %1 -> %2, %2 -> %3)"));

    // Printed, each finding points at the entry of the partition it is about in the plan file
    // (issue 34: every finding located): a's entry starts at the first {"name", b's at the
    // second (columns counted in the file's one line).
    QFile file(plan);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    const QString a = plan + QStringLiteral(":1:%1: ").arg(text.indexOf("{\"name\"") + 1);
    const QString b = plan
        + QStringLiteral(":1:%1: ").arg(text.indexOf("{\"name\"", text.indexOf("{\"name\"") + 1)
                                        + 1);
    const Run printed
        = runCliBinary({ QStringLiteral("validate"), resnet, QStringLiteral("--plan"), plan });
    QCOMPARE(printed.exitCode, 1);
    const QStringList lines = QString::fromUtf8(printed.out).split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 9); // 8 findings and the verdict
    QVERIFY2(lines[0].startsWith(a + QStringLiteral("error: partitions form a cycle")),
             qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith(a + QStringLiteral("error: partition a is not convex")),
             qPrintable(lines[1]));
    QVERIFY2(lines[2].startsWith(b + QStringLiteral("error: partition b is not convex")),
             qPrintable(lines[2]));
    QVERIFY2(lines[3].startsWith(a + QStringLiteral("warning: partition a falls into 2")),
             qPrintable(lines[3]));
    QVERIFY2(lines[4].startsWith(b + QStringLiteral("warning: partition b falls into 2")),
             qPrintable(lines[4]));
}

// `partition --plan --out` exports through the plan pipeline, which refuses an invalid plan:
// exit 1, the refusal and the cycle on stderr, the folder and the user's file in it untouched.
void TestCliPartition::exportRefusesInvalidPlan()
{
    QTemporaryDir dir;
    const QString plan = writeCyclePlan(dir);
    const QString out = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(out));
    writeFile(out + QStringLiteral("/notes.txt"), "mine");
    const Run r = runCliBinary({ QStringLiteral("partition"), resnet, QStringLiteral("--plan"),
                                 plan, QStringLiteral("--out"), out });
    QCOMPARE(r.exitCode, 1);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains(out + QStringLiteral(": error: the plan is invalid (")), qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("so nothing was exported; ") + out
                          + QStringLiteral(" was left as it was [export.invalid_plan]")),
             qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("[partition.cycle]")), qPrintable(err));
    QCOMPARE(QDir(out).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
             QStringList { QStringLiteral("notes.txt") });
}

void TestCliPartition::validateOpSupport()
{
    QTemporaryDir dir;
    const QString plan = dir.filePath(QStringLiteral("plan.json"));
    QCOMPARE(
        runCliBinary({ QStringLiteral("partition"), resnet, QStringLiteral("--save-plan"), plan })
            .exitCode,
        0);
    QFile f(plan);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll().replace("\"llvm\"", "\"dnnl\"");
    f.close();
    writeFile(plan, text);
    const QString ops = dir.filePath(QStringLiteral("dnnl.json"));
    writeFile(ops, R"({"target": "dnnl", "ops": ["nn.conv2d", "nn.batch_norm", "nn.relu", "add",
                       "nn.max_pool2d", "nn.global_avg_pool2d", "nn.batch_flatten", "nn.dense",
                       "nn.bias_add"]})");
    const Run r = runCliBinary({ QStringLiteral("validate"), resnet, QStringLiteral("--plan"), plan,
                                 QStringLiteral("--op-support"), ops });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.out.contains("target dnnl of partition stage0 does not support nn.softmax (1 node: "),
        r.out.constData());
    QVERIFY(r.out.contains("[target.unsupported_op]"));
}

void TestCliPartition::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("stderrPart");
    QTest::newRow("no plan") << QStringList { QStringLiteral("validate"), resnet }
                             << QStringLiteral("validate needs --plan");
    QTest::newRow("missing plan file")
        << QStringList { QStringLiteral("validate"), resnet, QStringLiteral("--plan"),
                         QStringLiteral("/nonexistent.json") }
        << QStringLiteral("/nonexistent.json: error: cannot open the plan file [plan.unreadable]");
    QTest::newRow("bad split") << QStringList {
        QStringLiteral("partition"), resnet, QStringLiteral("--cut-after"), QStringLiteral("add")
    } << QStringLiteral("--cut-after expects OP:INDEX");
    QTest::newRow("missing op") << QStringList {
        QStringLiteral("partition"), resnet, QStringLiteral("--cut-after"),
        QStringLiteral("nn.softmax:3")
    } << QStringLiteral("no nn.softmax:3 split point: the function has 1 call(s) of nn.softmax");
    QTest::newRow("missing value")
        << QStringList { QStringLiteral("partition"), resnet, QStringLiteral("--plan") }
        << QStringLiteral("option '--plan' needs a value");
    QTest::newRow("both") << QStringList { QStringLiteral("partition"),   resnet,
                                           QStringLiteral("--plan"),      QStringLiteral("x.json"),
                                           QStringLiteral("--cut-after"), QStringLiteral("add:0") }
                          << QStringLiteral(
                                 "give either --cut-after / --cut-after-block or --plan, not both");
}

void TestCliPartition::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, stderrPart);
    const Run r = runCliBinary(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(stderrPart), r.err.constData());
}

void TestCliPartition::cutAfterBlock()
{
    // samples/resnet_fused.relay: the third conv-add-relu kernel ends inside a residual block, so
    // its skip connection crosses too (two tensors, one input each).
    const auto run = runCliBinary(
        { QStringLiteral("partition"), QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet_fused.relay"),
          QStringLiteral("--cut-after-block"), QStringLiteral("nn_conv2d_add_nn_relu:2"),
          QStringLiteral("--json") });
    QCOMPARE(run.exitCode, 0);
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["partitions"].size(), std::size_t(2));
    QCOMPARE(j["boundary"].size(), std::size_t(2));

    const auto bad = runCliBinary(
        { QStringLiteral("partition"), QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet_fused.relay"),
          QStringLiteral("--cut-after-block"), QStringLiteral("nn_softmax:x") });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("--cut-after-block expects NAME[:INDEX]"));
}

void TestCliPartition::partitionWithLatency()
{
    QTemporaryDir dir;
    const QString table = dir.filePath(QStringLiteral("lat.json"));
    std::ofstream(table.toStdString()) << residualTable;
    const auto run
        = runCliBinary({ QStringLiteral("partition"), residualInception,
                         QStringLiteral("--cut-after"), QStringLiteral("nn.max_pool2d:0"),
                         QStringLiteral("--latency"), table, QStringLiteral("--json") });
    QCOMPARE(run.exitCode, 0);
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["partitions"][0]["latency_us"].get<double>(), 213.0);
    QCOMPARE(j["partitions"][1]["latency_us"].get<double>(), 366.0);
    QCOMPARE(j["partitions"][1]["latency_missing"].get<int>(), 0);

    const auto text = runCliBinary(
        { QStringLiteral("partition"), residualInception, QStringLiteral("--latency"), table });
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("latency"), text.out.constData());
    QVERIFY(text.out.contains("579.0 us"));

    const auto missing
        = runCliBinary({ QStringLiteral("partition"), residualInception,
                         QStringLiteral("--latency"), dir.filePath(QStringLiteral("none.json")) });
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.err.contains(
        "none.json: error: cannot open the latency file [latency.unreadable]"));
}

QTEST_APPLESS_MAIN(TestCliPartition)
#include "tst_cli_partition.moc"
