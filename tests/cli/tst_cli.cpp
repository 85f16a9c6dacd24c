// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Runs the real cleave-cli binary and checks its exit codes, JSON and diagnostics.
#include "CliRunner.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

using Run = cleave::test::CliRun;
using cleave::test::runCli;

QString corpusFile(const char *name)
{
    return QStringLiteral(CLEAVE_CORPUS_DIR "/relay/") + QString::fromUtf8(name);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private slots:
    void inspectJson();
    void inspectText();
    void inspectEveryCorpusFile_data();
    void inspectEveryCorpusFile();
    void missingFile();
    void malformedModel();
    void usageErrors_data();
    void usageErrors();
    void helpAndVersion();
};

void TestCli::inspectJson()
{
    const QString model
        = corpusFile("conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt");
    const Run run = runCli({ QStringLiteral("inspect"), model, QStringLiteral("--json") });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto j = nlohmann::json::parse(run.out.toStdString());

    QCOMPARE(j["format"].get<std::string>(), std::string("relay"));
    QCOMPARE(j["op_calls"].get<int>(), 3);
    QCOMPARE(j["ops"].dump(), std::string(R"({"nn.bias_add":1,"nn.conv2d":1,"nn.relu":1})"));
    QCOMPARE(j["inputs"].size(), std::size_t(1));
    QCOMPARE(j["inputs"][0]["name"].get<std::string>(), std::string("input_0"));
    QCOMPARE(j["inputs"][0]["shape"].dump(), std::string("[1,3,32,32]"));
    QCOMPARE(j["inputs"][0]["dtype"].get<std::string>(), std::string("int8"));
    QCOMPARE(j["outputs"].size(), std::size_t(1));
    QCOMPARE(j["outputs"][0]["shape"].dump(), std::string("[1,1,16,16]"));
    QCOMPARE(j["outputs"][0]["dtype"].get<std::string>(), std::string("int32"));

    // @main, the BYOC partition @tvmgen_default_match_main_0 and its composite fn literal.
    QCOMPARE(j["functions"].size(), std::size_t(3));
    QCOMPARE(j["block_functions"].size(), std::size_t(2));
    QCOMPARE(j["block_functions"][0]["name"].get<std::string>(),
             std::string("@tvmgen_default_match_main_0"));
    QCOMPARE(j["block_functions"][0]["kind"].get<std::string>(), std::string("external"));
    QCOMPARE(j["block_functions"][1]["kind"].get<std::string>(), std::string("composite"));
    QCOMPARE(j["block_functions"][1]["attrs"]["Composite"].get<std::string>(),
             std::string("match.neoptex.neoptexvectcpu.vec_conv"));
    // Two weights from the metadata: int8 1×3×3×3 (27 B) and int32 (1) (4 B).
    QCOMPARE(j["constants"]["count"].get<int>(), 2);
    QCOMPARE(j["constants"]["bytes"].get<int>(), 31);
    QCOMPARE(j["constants"]["bytes_known"].get<bool>(), true);
}

void TestCli::inspectText()
{
    const QString model
        = corpusFile("conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt");
    const Run run = runCli({ QStringLiteral("inspect"), model, QStringLiteral("--blocks") });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString text = QString::fromUtf8(run.out);
    QVERIFY2(text.contains(QStringLiteral("\n  Format     relay\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("\n  Op calls   3\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("\nBlocks (2: 1 composite, 1 external)\n")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("nn.bias_add×1 nn.conv2d×1 nn.relu×1")),
             qPrintable(text));
}

void TestCli::inspectEveryCorpusFile_data()
{
    QTest::addColumn<QString>("path");
    const QDir corpus(QStringLiteral(CLEAVE_CORPUS_DIR "/relay"));
    const QStringList files = corpus.entryList({ QStringLiteral("*.relay.txt") }, QDir::Files);
    QVERIFY(files.size() >= 15); // the corpus as of this writing
    for (const QString &file : files)
        QTest::newRow(qPrintable(file)) << corpus.filePath(file);
}

void TestCli::inspectEveryCorpusFile()
{
    QFETCH(QString, path);
    const Run run = runCli({ QStringLiteral("inspect"), QStringLiteral("--json"), path });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["format"].get<std::string>(), std::string("relay"));
    std::size_t histogramTotal = 0;
    for (const auto &[op, count] : j["ops"].items())
        histogramTotal += count.get<std::size_t>();
    QCOMPARE(j["op_calls"].get<std::size_t>(), histogramTotal);
    QVERIFY(j["op_calls"].get<std::size_t>() > 0);
    QVERIFY(!j["outputs"].empty());
}

void TestCli::missingFile()
{
    const QString missing = QDir::temp().filePath(QStringLiteral("cleave-no-such-model.relay"));
    const Run run = runCli({ QStringLiteral("inspect"), missing });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(missing.toUtf8() + ": error:"), run.err.constData());
}

void TestCli::malformedModel()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("truncated.relay"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#[version = \"0.0.5\"]\n"
               "def @main(%x: Tensor[(1, 4), float32]) {\n"
               "  %0 = nn.relu(%x;\n"
               "  %0\n"
               "}\n");
    file.close();

    const Run run = runCli({ QStringLiteral("inspect"), QStringLiteral("--json"), path });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    // file:line:col: error: ... on the line of the unclosed call.
    const QRegularExpression diagnostic(QRegularExpression::escape(path)
                                        + QStringLiteral(":3:\\d+: error: "));
    QVERIFY2(diagnostic.match(QString::fromUtf8(run.err)).hasMatch(), run.err.constData());
}

void TestCli::usageErrors_data()
{
    const QString model
        = corpusFile("conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList {} << QStringLiteral("no command given");
    QTest::newRow("unknown command") << QStringList { QStringLiteral("slice"), model }
                                     << QStringLiteral("unknown command 'slice'");
    QTest::newRow("unknown option")
        << QStringList { QStringLiteral("inspect"), model, QStringLiteral("--yaml") }
        << QStringLiteral("unknown option '--yaml' for inspect");
    QTest::newRow("no model") << QStringList { QStringLiteral("inspect") }
                              << QStringLiteral("inspect takes 1 argument, 0 given");
    QTest::newRow("two models") << QStringList { QStringLiteral("inspect"), model, model }
                                << QStringLiteral("inspect takes 1 argument, 2 given");
}

void TestCli::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run run = runCli(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.startsWith(QStringLiteral("cleave-cli: ") + message + QLatin1Char('\n')),
             qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("Usage: cleave-cli ")), qPrintable(err));
}

void TestCli::helpAndVersion()
{
    const Run help = runCli({ QStringLiteral("--help") });
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("  inspect MODEL [--json] [--blocks [FUSION OPTIONS]]\n"));

    const Run commandHelp = runCli({ QStringLiteral("inspect"), QStringLiteral("--help") });
    QCOMPARE(commandHelp.exitCode, 0);
    QVERIFY(commandHelp.out.startsWith("Usage: cleave-cli inspect MODEL [--json] [--blocks [FUSION OPTIONS]]\n"));

    const Run version = runCli({ QStringLiteral("--version") });
    QCOMPARE(version.exitCode, 0);
    QCOMPARE(version.out, QByteArray("cleave-cli " CLEAVE_VERSION "\n"));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
