// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli auto`: the JSON keys and values, device files, memory limits, infeasible
// requests, regions mode, and the round trip through validate / partition --plan / verify.
#include "CliRunner.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace cleave::test;

namespace {

const QString resnet = QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay");
const QString table = QStringLiteral(CLEAVE_TESTDATA_DIR "/auto/resnet18_latency.json");

nlohmann::json jsonOf(const CliRun &run)
{
    return nlohmann::json::parse(run.out.toStdString());
}

void writeFile(const QString &path, const QByteArray &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class TestCliAuto : public QObject
{
    Q_OBJECT

private slots:
    void resnet18ThreeStagesJson();
    void savedPlanValidatesExportsAndVerifies();
    void deviceFileSetsTargetsAndLimits();
    void infeasibleRequests();
    void regionsExportByoc();
    void blocksLevel();
    void usageErrors();
};

void TestCliAuto::resnet18ThreeStagesJson()
{
    // --bandwidth 1e9 GB/s = 10^18 bytes/s; the hand computation is in tst_auto.
    const CliRun run = runCli({ "auto", resnet, "--stages", "3", "--latency", table, "--bandwidth",
                                "1e9", "--link-latency", "10", "--json" });
    QCOMPARE(run.exitCode, 0);
    const nlohmann::json j = jsonOf(run);
    QCOMPARE(j["objective"].get<std::string>(), std::string("throughput"));
    QCOMPARE(j["mode"].get<std::string>(), std::string("exact"));
    QVERIFY(std::abs(j["bottleneck_us"].get<double>() - (710.0 + 200704e-12)) < 1e-9);
    QVERIFY(std::abs(j["lower_bound_us"].get<double>() - 2000.0 / 3.0) < 1e-9);
    const auto times = j["stage_times_us"];
    QCOMPARE(times.size(), std::size_t { 3 });
    QVERIFY(std::abs(times[0].get<double>() - 700.0) < 1e-9);
    QVERIFY(std::abs(times[1].get<double>() - (620.0 + 802816e-12)) < 1e-9);
    QVERIFY(std::abs(times[2].get<double>() - (710.0 + 200704e-12)) < 1e-9);
    // The `partition --json` report is there too.
    QCOMPARE(j["partitions"].size(), std::size_t { 3 });
    QVERIFY(j.contains("boundary") && j.contains("diagnostics"));
    QCOMPARE(j["baselines"].size(), std::size_t { 3 });
    QCOMPARE(j["baselines"][0]["name"].get<std::string>(), std::string("uniform"));
    QCOMPARE(j["baselines"][1]["name"].get<std::string>(), std::string("parameters"));
    QCOMPARE(j["baselines"][2]["name"].get<std::string>(), std::string("flops"));
    for (const auto &b : j["baselines"])
        QVERIFY(b["bottleneck_us"].get<double>() >= j["bottleneck_us"].get<double>());
    // Parameter-balanced by hand: a third of the 46.8 MB of parameters (15.6 MB) is passed
    // at %65, the first 512-channel conv (weights up to %64: 11.1 MB, with %65: 15.8 MB), so
    // its first stage runs 16 convolutions with no transfer in: 1600 us, the bottleneck.
    QCOMPARE(j["baselines"][1]["bottleneck_us"].get<double>(), 1600.0);
}

void TestCliAuto::savedPlanValidatesExportsAndVerifies()
{
    QTemporaryDir tmp;
    const QString plan = tmp.path() + "/auto.plan.json";
    const QString out = tmp.path() + "/export";
    CliRun run = runCli({ "auto", resnet, "--stages", "4", "--save-plan", plan });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("auto: 4 stages"));
    run = runCli({ "validate", resnet, "--plan", plan });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("plan is valid (4 partitions)"));
    run = runCli({ "partition", resnet, "--plan", plan, "--out", out });
    QCOMPARE(run.exitCode, 0);
    run = runCli({ "verify", out });
    QCOMPARE(run.exitCode, 0);
    // --out on auto itself writes the same kind of folder.
    run = runCli({ "auto", resnet, "--stages", "2", "--out", tmp.path() + "/direct" });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(QFile::exists(tmp.path() + "/direct/pipeline_config.json"));
    QCOMPARE(runCli({ "verify", tmp.path() + "/direct" }).exitCode, 0);
}

void TestCliAuto::deviceFileSetsTargetsAndLimits()
{
    QTemporaryDir tmp;
    const QString devices = tmp.path() + "/devices.json";
    writeFile(devices, R"({"devices": [{"name": "gpu0", "target": "cuda", "gflops": 50000},
                                       {"name": "cpu", "target": "llvm", "gflops": 500,
                                        "memory": "64MiB"}],
                          "links": {"bandwidth": "12GB/s", "latency": "20us"}})");
    const CliRun run = runCli({ "auto", resnet, "--devices", devices, "--json" });
    QCOMPARE(run.exitCode, 0);
    const nlohmann::json j = jsonOf(run);
    QCOMPARE(j["partitions"].size(), std::size_t { 2 });
    QCOMPARE(j["partitions"][0]["target"].get<std::string>(), std::string("cuda"));
    QCOMPARE(j["partitions"][1]["target"].get<std::string>(), std::string("llvm"));
    // The CPU is 100x slower: it gets the light tail of the network.
    QVERIFY(j["partitions"][1]["ops"].get<int>() < j["partitions"][0]["ops"].get<int>());
    QVERIFY(j["stage_memory_bytes"][1].get<std::int64_t>() <= 64LL * 1024 * 1024);

    writeFile(devices, "{\"devices\": [\n  {\"gflops\": -1}]}");
    const CliRun bad = runCli({ "auto", resnet, "--devices", devices });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("devices.json"));
    QVERIFY(bad.err.contains("gflops"));
}

void TestCliAuto::infeasibleRequests()
{
    CliRun run = runCli({ "auto", resnet, "--stages", "500" });
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("non-empty stages: at most"), run.err.constData());
    QVERIFY2(run.err.trimmed().endsWith("[auto.stage_count]"), run.err.constData());

    run = runCli({ "auto", resnet, "--stages", "2", "--memory-limit", "1MB" });
    QCOMPARE(run.exitCode, 2);
    const QRegularExpression limit("smallest feasible limit is (\\d+) bytes");
    const auto match = limit.match(QString::fromUtf8(run.err));
    QVERIFY2(match.hasMatch(), run.err.constData());
    QVERIFY2(run.err.trimmed().endsWith("[auto.memory_limit]"), run.err.constData());
    const qint64 smallest = match.captured(1).toLongLong();
    QCOMPARE(
        runCli({ "auto", resnet, "--stages", "2", "--memory-limit", QString::number(smallest) })
            .exitCode,
        0);
    QCOMPARE(
        runCli({ "auto", resnet, "--stages", "2", "--memory-limit", QString::number(smallest - 1) })
            .exitCode,
        2);
}

void TestCliAuto::regionsExportByoc()
{
    QTemporaryDir tmp;
    const QString out = tmp.path() + "/byoc";
    const CliRun run
        = runCli({ "auto", CLEAVE_TESTDATA_DIR "/auto/seed001_layers.relay", "--targets",
                   CLEAVE_TESTDATA_DIR "/auto/dnnl_ops.json", "--out", out, "--json" });
    QCOMPARE(run.exitCode, 2); // a T=FILE entry is required
    const CliRun ok = runCli({ "auto", CLEAVE_TESTDATA_DIR "/auto/seed001_layers.relay",
                               "--targets", "dnnl=" CLEAVE_TESTDATA_DIR "/auto/dnnl_ops.json,llvm",
                               "--out", out, "--json" });
    QCOMPARE(ok.exitCode, 0);
    const nlohmann::json j = jsonOf(ok);
    QCOMPARE(j["mode"].get<std::string>(), std::string("regions"));
    QCOMPARE(j["partitions"].size(), std::size_t { 3 });
    QCOMPARE(j["partitions"][0]["target"].get<std::string>(), std::string("dnnl"));
    QCOMPARE(j["partitions"][1]["target"].get<std::string>(), std::string("llvm"));
    QFile annotated(out + "/byoc_annotated.relay");
    QVERIFY(annotated.open(QIODevice::ReadOnly));
    QCOMPARE(annotated.readAll().count("annotation.compiler_begin"), 12);
    QCOMPARE(runCli({ "verify", out }).exitCode, 0);
    // --min-region 5: both 4-node (3-op) dnnl regions stay on llvm.
    const CliRun small = runCli(
        { "auto", CLEAVE_TESTDATA_DIR "/auto/seed001_layers.relay", "--targets",
          "dnnl=" CLEAVE_TESTDATA_DIR "/auto/dnnl_ops.json,llvm", "--min-region", "5", "--json" });
    QCOMPARE(small.exitCode, 0);
    QCOMPARE(jsonOf(small)["partitions"].size(), std::size_t { 1 });
}

void TestCliAuto::blocksLevel()
{
    const CliRun run = runCli(
        { "auto", resnet, "--stages", "4", "--level", "blocks", "--fold-batch-norm", "--json" });
    QCOMPARE(run.exitCode, 0);
    const nlohmann::json j = jsonOf(run);
    QCOMPARE(j["level"].get<std::string>(), std::string("blocks"));
    QCOMPARE(j["partitions"].size(), std::size_t { 4 });
}

void TestCliAuto::usageErrors()
{
    QCOMPARE(runCli({ "auto", resnet }).exitCode, 2);
    QCOMPARE(runCli({ "auto", resnet, "--stages", "2", "--targets", "dnnl=x.json" }).exitCode, 2);
    CliRun run = runCli({ "auto", resnet, "--stages", "2", "--objective", "fastest" });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("--objective"));
    run = runCli({ "auto", resnet, "--stages", "two" });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("--stages expects"));
    run = runCli({ "auto", "--help" });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("--flops-rate GFLOPS"));
}

QTEST_GUILESS_MAIN(TestCliAuto)
#include "tst_cli_auto.moc"
