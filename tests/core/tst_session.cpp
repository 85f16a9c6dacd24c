// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The plan pipeline (core/session/PlanPipeline): the one place where a plan is checked with the
// engine settings and the writer's capabilities, and exported or refused. The editor's Document
// and the CLI verbs reach validation and export only through it (tst_editor and
// tst_cli_partition check the refusal through those entry points).
#include "TestSupport.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/PlanFile.h"
#include "core/session/PlanPipeline.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

using namespace cleave;

namespace {

/// resnet18.relay split so that the partitions feed each other: a = {%0, %1, %3}, b = the
/// rest with %2 (which reads %1 and feeds %3): a -> b -> a, a cycle.
std::string cyclicPlan()
{
    std::string nodes = "\"%2\"";
    for (int i = 4; i < 90; ++i)
        nodes += ", \"%" + std::to_string(i) + "\"";
    return R"({"cleave_plan": 1, "partitions": [{"name": "a", "nodes": ["%0", "%1", "%3"]},)"
           R"( {"name": "b", "nodes": [)"
        + nodes + R"(, "%ret"]}]})";
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSession : public QObject
{
    Q_OBJECT

private slots:
    void invalidPlanIsRefused();
    void writerCapabilitiesApplied();
    void settingsReachTheExport();
};

// The cycle is an error, so exportPlan writes nothing: the folder and the user's file in it are
// left as they were, and the result says why (export.invalid_plan first, then the errors).
void TestSession::invalidPlanIsRefused()
{
    const auto g = test::loadSample("resnet18.relay");
    QVERIFY(g);
    PlanLoadResult loaded = planFromJson(*g, cyclicPlan(), "cycle.json");
    QVERIFY(loaded.ok());
    const PlanPipeline pipeline(*g, EngineSettings {});
    const CheckedPlan checked = pipeline.check(*loaded.plan);
    QVERIFY(!checked.valid());
    QCOMPARE(checked.diagnostics.front().code, std::string("partition.cycle"));

    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(out));
    QFile user(out + QStringLiteral("/notes.txt"));
    QVERIFY(user.open(QIODevice::WriteOnly));
    user.write("mine");
    user.close();

    const ExportResult r = pipeline.exportPlan(*loaded.plan, {}, out.toStdString());
    QVERIFY(!r.ok);
    QVERIFY(r.files.empty());
    QVERIFY(r.diagnostics.size() >= 2);
    QCOMPARE(r.diagnostics[0].code, std::string("export.invalid_plan"));
    QVERIFY2(r.diagnostics[0].message.starts_with("the plan is invalid ("),
             r.diagnostics[0].message.c_str());
    QVERIFY2(r.diagnostics[0].message.ends_with("nothing was exported; " + out.toStdString()
                                                + " was left as it was"),
             r.diagnostics[0].message.c_str());
    // Only errors follow, the cycle first.
    QCOMPARE(r.diagnostics[1].code, std::string("partition.cycle"));
    for (std::size_t i = 1; i < r.diagnostics.size(); ++i)
        QCOMPARE(r.diagnostics[i].severity, Severity::Error);
    QCOMPARE(QDir(out).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
             QStringList { QStringLiteral("notes.txt") });
    QCOMPARE(readAll(out + QStringLiteral("/notes.txt")), QByteArray("mine"));
}

// The pipeline applies the capabilities of the model's module writer: the pipeline executor
// (Relay) carries tensors only, the Relax writer forwards any value.
void TestSession::writerCapabilitiesApplied()
{
    const auto relay = test::loadSample("resnet18.relay");
    QVERIFY(relay);
    QVERIFY(!PlanPipeline(*relay, EngineSettings {}).validationOptions().forwardsAnyValue);
    const QStringList files = test::corpusFiles("relax", QStringLiteral("*.relax.py"));
    if (files.isEmpty())
        QSKIP("no Relax module in the shared corpus");
    const auto module = test::load(files.front());
    QVERIFY(module);
    QVERIFY(PlanPipeline(*module, EngineSettings {}).validationOptions().forwardsAnyValue);
}

// What the settings say reaches validation and the export without the caller repeating it:
// the latency table is the one the rules read, and lifted constants are written as such.
void TestSession::settingsReachTheExport()
{
    const auto g = test::loadSample("resnet18.relay");
    QVERIFY(g);
    PartitionPlan plan(*g);
    QVERIFY(!hasErrors(plan.cutAfterOps({ { "add", 1 } }).diagnostics));
    EngineSettings settings;
    settings.liftConstants = true;
    std::vector<Diagnostic> problems;
    settings.latency = std::make_shared<const LatencyTable>(
        *LatencyTable::fromJson(R"({"ops": {"nn.conv2d": 10}})", "lat.json", problems));
    const PlanPipeline pipeline(*g, settings);
    QCOMPARE(pipeline.validationOptions().latency, settings.latency.get());
    QVERIFY(pipeline.check(plan).valid());

    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("out"));
    ExportOptions options; // liftConstants not set here: the settings say so
    const ExportResult r = pipeline.exportPlan(plan, options, out.toStdString());
    QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());
    const auto manifest
        = nlohmann::json::parse(readAll(out + QStringLiteral("/partitions.json")).toStdString());
    QCOMPARE(manifest["lift_constants"].get<bool>(), true);
}

QTEST_APPLESS_MAIN(TestSession)
#include "tst_session.moc"
