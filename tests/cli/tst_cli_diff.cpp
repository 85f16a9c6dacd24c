// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli diff A B` (in process): a sample against a copy written here with three textual
// edits must report exactly those three nodes, with what changed; a model against itself
// matches; a model against one with a node removed reports it and its consumer's new inputs.
#include "CliRunner.h"
#include "ModelEdits.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <string>

namespace {

using cleave::test::CliRun;
using cleave::test::runCli;

const QString sample = QStringLiteral(CLEAVE_SAMPLES_DIR "/stop_fusion.relay");

QByteArray readSample()
{
    return cleave::test::readFileOrAbort(sample);
}

using cleave::test::replaceOnce;

QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &text)
{
    const QString path = dir.filePath(QLatin1String(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

} // namespace

class TestCliDiff : public QObject
{
    Q_OBJECT

private slots:
    void threeEditsAreExactlyThreeDifferences();
    void textListsTheChanges();
    void acrossFormatsSaysKeysDiffer();
    void sameModelMatches();
    void removedNodeAndItsConsumer();
    void unreadableModelIsBadInput();
};

void TestCliDiff::threeEditsAreExactlyThreeDifferences()
{
    QTemporaryDir dir;
    // The three edits of ModelEdits.h: %3's op, an attribute added to %22, %25's axis.
    const QByteArray text = cleave::test::stopFusionWithThreeEdits(readSample());
    const QString copy = writeFile(dir, "edited.relay", text);

    const CliRun run = runCli({ QStringLiteral("diff"), sample, copy, QStringLiteral("--json") });
    QCOMPARE(run.exitCode, 1);
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["equal"].get<bool>(), false);
    QCOMPARE(j["added"].get<int>(), 0);
    QCOMPARE(j["removed"].get<int>(), 0);
    QCOMPARE(j["changed"].get<int>(), 3);
    const auto &nodes = j["nodes"];
    QCOMPARE(nodes.size(), std::size_t(3));

    QCOMPARE(nodes[0]["key"].get<std::string>(), std::string("%3"));
    QCOMPARE(nodes[0]["changes"].size(), std::size_t(1));
    QCOMPARE(nodes[0]["changes"][0]["what"].get<std::string>(), std::string("op"));
    QCOMPARE(nodes[0]["changes"][0]["before"].get<std::string>(), std::string("nn.relu"));
    QCOMPARE(nodes[0]["changes"][0]["after"].get<std::string>(), std::string("sigmoid"));

    QCOMPARE(nodes[1]["key"].get<std::string>(), std::string("%22"));
    QCOMPARE(nodes[1]["changes"].size(), std::size_t(1));
    QCOMPARE(nodes[1]["changes"][0]["what"].get<std::string>(), std::string("attribute layout"));
    QCOMPARE(nodes[1]["changes"][0]["before"].get<std::string>(), std::string());
    QCOMPARE(nodes[1]["changes"][0]["after"].get<std::string>(), std::string("\"NCHW\""));

    QCOMPARE(nodes[2]["key"].get<std::string>(), std::string("%25"));
    QCOMPARE(nodes[2]["changes"].size(), std::size_t(1));
    QCOMPARE(nodes[2]["changes"][0]["what"].get<std::string>(), std::string("attribute axis"));
    QCOMPARE(nodes[2]["changes"][0]["before"].get<std::string>(), std::string("-1"));
    QCOMPARE(nodes[2]["changes"][0]["after"].get<std::string>(), std::string("1"));
}

void TestCliDiff::textListsTheChanges()
{
    QTemporaryDir dir;
    QByteArray text = readSample();
    replaceOnce(text, "%3 = nn.relu(%2)", "%3 = sigmoid(%2)");
    const QString copy = writeFile(dir, "edited.relay", text);
    const CliRun run = runCli({ QStringLiteral("diff"), sample, copy });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains("1 node differs (0 added, 0 removed, 1 changed)"),
             run.out.constData());
    QVERIFY2(!run.out.contains("note:"), run.out.constData()); // both are Relay
    QVERIFY2(run.out.contains("changed %3 sigmoid\n    op: nn.relu -> sigmoid\n"),
             run.out.constData());
}

void TestCliDiff::acrossFormatsSaysKeysDiffer()
{
    // The same residual block as Relay and as graph.json: keys are named per format, and the
    // text says so after the differences.
    const QString relay = QStringLiteral(CLEAVE_TESTDATA_DIR "/map/residual_inception.relay");
    const QString json = QStringLiteral(CLEAVE_TESTDATA_DIR "/map/residual_inception.graph.json");
    const CliRun run = runCli({ QStringLiteral("diff"), relay, json });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains("\nnote: " + relay.toUtf8() + " is relay and " + json.toUtf8()
                              + " is graph.json: nodes are matched by their keys"),
             run.out.constData());
}

void TestCliDiff::sameModelMatches()
{
    const CliRun run = runCli({ QStringLiteral("diff"), sample, sample });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("match node for node"));
}

void TestCliDiff::removedNodeAndItsConsumer()
{
    QTemporaryDir dir;
    QByteArray text = readSample();
    // Drop the last stop_fusion (%21) and let the pool read %20 directly.
    replaceOnce(text,
                "  %21 = annotation.stop_fusion(%20) /* ty=Tensor[(1, 64, 16, 16), float32] */;\n",
                "");
    replaceOnce(text, "nn.global_avg_pool2d(%21)", "nn.global_avg_pool2d(%20)");
    const QString copy = writeFile(dir, "removed.relay", text);
    const CliRun run = runCli({ QStringLiteral("diff"), sample, copy, QStringLiteral("--json") });
    QCOMPARE(run.exitCode, 1);
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["removed"].get<int>(), 1);
    QCOMPARE(j["changed"].get<int>(), 1);
    QCOMPARE(j["added"].get<int>(), 0);
    const auto &nodes = j["nodes"];
    QCOMPARE(nodes[0]["kind"].get<std::string>(), std::string("removed"));
    QCOMPARE(nodes[0]["key"].get<std::string>(), std::string("%21"));
    QCOMPARE(nodes[0]["op"].get<std::string>(), std::string("annotation.stop_fusion"));
    QCOMPARE(nodes[1]["key"].get<std::string>(), std::string("%22"));
    QCOMPARE(nodes[1]["changes"][0]["what"].get<std::string>(), std::string("inputs"));
    QCOMPARE(nodes[1]["changes"][0]["before"].get<std::string>(), std::string("%21"));
    QCOMPARE(nodes[1]["changes"][0]["after"].get<std::string>(), std::string("%20"));
}

void TestCliDiff::unreadableModelIsBadInput()
{
    const CliRun run
        = runCli({ QStringLiteral("diff"), sample, QStringLiteral("/nonexistent.relay") });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("/nonexistent.relay"));
}

QTEST_GUILESS_MAIN(TestCliDiff)
#include "tst_cli_diff.moc"
