// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Runs the real cleave-cli binary and checks its exit codes, JSON and diagnostics.
#include "CliRunner.h"
#include "TestSupport.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

namespace {

using Run = cleave::test::CliRun;
using cleave::test::runCliBinary;
namespace test = cleave::test;

const QString onnxSample = QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet_inception.onnx");
const QString residualInception
    = QStringLiteral(CLEAVE_TESTDATA_DIR "/map/residual_inception.relay");

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
    void inspectBlocks();
    void inspectGraphJsonCountsKernels();
    void inspectOnnxJson();
    void inspectFusionOptions();
};

void TestCli::inspectJson()
{
    CLEAVE_REQUIRE_CORPUS("relay");
    const QString model
        = corpusFile("conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt");
    const Run run = runCliBinary({ QStringLiteral("inspect"), model, QStringLiteral("--json") });
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
    CLEAVE_REQUIRE_CORPUS("relay");
    const QString model
        = corpusFile("conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt");
    const Run run = runCliBinary({ QStringLiteral("inspect"), model, QStringLiteral("--blocks") });
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
    CLEAVE_REQUIRE_CORPUS("relay");
    const QDir corpus(QStringLiteral(CLEAVE_CORPUS_DIR "/relay"));
    const QStringList files = corpus.entryList({ QStringLiteral("*.relay.txt") }, QDir::Files);
    QVERIFY(files.size() >= 15); // the corpus as of this writing
    for (const QString &file : files)
        QTest::newRow(qPrintable(file)) << corpus.filePath(file);
}

void TestCli::inspectEveryCorpusFile()
{
    QFETCH(QString, path);
    const Run run = runCliBinary({ QStringLiteral("inspect"), QStringLiteral("--json"), path });
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
    const Run run = runCliBinary({ QStringLiteral("inspect"), missing });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(missing.toUtf8() + ":1:1: error: cannot open file"),
             run.err.constData());
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

    const Run run = runCliBinary({ QStringLiteral("inspect"), QStringLiteral("--json"), path });
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
    const Run run = runCliBinary(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.startsWith(QStringLiteral("cleave-cli: ") + message + QLatin1Char('\n')),
             qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("Usage: cleave-cli ")), qPrintable(err));
}

void TestCli::helpAndVersion()
{
    const Run help = runCliBinary({ QStringLiteral("--help") });
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("  inspect MODEL [--json] [--blocks [FUSION OPTIONS]]\n"));

    const Run commandHelp = runCliBinary({ QStringLiteral("inspect"), QStringLiteral("--help") });
    QCOMPARE(commandHelp.exitCode, 0);
    QVERIFY(commandHelp.out.startsWith(
        "Usage: cleave-cli inspect MODEL [--json] [--blocks [FUSION OPTIONS]]\n"));

    const Run version = runCliBinary({ QStringLiteral("--version") });
    QCOMPARE(version.exitCode, 0);
    QCOMPARE(version.out, QByteArray("cleave-cli " CLEAVE_VERSION "\n"));
}

void TestCli::inspectBlocks()
{
    auto run = [](const QStringList &args) {
        const Run r = runCliBinary(args);
        return std::make_pair(r.exitCode, r.out);
    };
    const QString model = QStringLiteral(CLEAVE_SAMPLES_DIR "/stop_fusion.relay");
    const auto [code, out] = run(
        { QStringLiteral("inspect"), model, QStringLiteral("--json"), QStringLiteral("--blocks") });
    QCOMPARE(code, 0);
    const auto j = nlohmann::json::parse(out.toStdString());
    QVERIFY(j.contains("block_functions")); // the module's own fused functions, listed apart
    const auto &blocks = j["blocks"];
    QCOMPARE(blocks.size(), std::size_t(14));
    QCOMPARE(blocks[1]["name"].get<std::string>(),
             std::string("fused_nn_conv2d_nn_bias_add_nn_relu"));
    QCOMPARE(blocks[1]["nodes"].dump(), std::string(R"(["%1","%2","%3"])"));
    QCOMPARE(blocks[1]["ops"].dump(), std::string(R"(["nn.conv2d","nn.bias_add","nn.relu"])"));
    QCOMPARE(blocks[1]["inputs"].dump(),
             std::string(R"(["%0","meta[relay.Constant][0]","meta[relay.Constant][1]"])"));
    QCOMPARE(blocks[1]["outputs"].dump(), std::string(R"(["%3"])"));
    QCOMPARE(blocks[1]["pattern"].get<std::string>(), std::string("out_elemwise_fusable"));
    // Every op call of the model in exactly one block.
    std::set<std::string> nodes;
    std::size_t ops = 0;
    for (const auto &b : blocks) {
        ops += b["ops"].size();
        for (const auto &n : b["nodes"])
            QVERIFY(nodes.insert(n.get<std::string>()).second);
    }
    QCOMPARE(ops, j["op_calls"].get<std::size_t>());
    QCOMPARE(nodes.size(), std::size_t(27)); // %0 .. %25 and the result call %ret

    const auto [textCode, text]
        = run({ QStringLiteral("inspect"), model, QStringLiteral("--blocks") });
    QCOMPARE(textCode, 0);
    QVERIFY(text.contains("\nFused blocks (14)\n"));
    QVERIFY(text.contains("  fused_annotation_stop_fusion_2         1 node   "
                          "annotation.stop_fusion  (%20 -> %21)\n"));

    // An existing BYOC function is one block; its JSON names the function.
    const auto [byocCode, byoc]
        = run({ QStringLiteral("inspect"),
                QStringLiteral(CLEAVE_SAMPLES_DIR "/byoc_dnnl_partitioned.relay"),
                QStringLiteral("--json"), QStringLiteral("--blocks") });
    QCOMPARE(byocCode, 0);
    const auto jb = nlohmann::json::parse(byoc.toStdString());
    QCOMPARE(jb["blocks"][0]["function"].get<std::string>(),
             std::string("@tvmgen_default_dnnl_main_0"));
}

void TestCli::inspectGraphJsonCountsKernels()
{
    CLEAVE_REQUIRE_CORPUS("graph_json");
    const Run run = runCliBinary(
        { QStringLiteral("inspect"),
          test::corpusDir("graph_json").filePath(QStringLiteral("resnet_deeppose_cpu.graph.json")),
          QStringLiteral("--json") });
    QVERIFY(run.exitCode != -1); // finished
    QCOMPARE(run.exitCode, 0);
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["format"].get<std::string>(), std::string("graph.json"));
    QCOMPARE(j["op_calls"].get<int>(), 58);
    QCOMPARE(j["ops"]["__nop"].get<int>(), 2);
    QCOMPARE(j["ops"]["tvmgen_default_fused_nn_conv2d_add_add_nn_relu_2"].get<int>(), 6);
    QCOMPARE(j["inputs"].size(), std::size_t(1));
    QCOMPARE(j["inputs"][0]["name"].get<std::string>(), std::string("input0"));
    QCOMPARE(j["inputs"][0]["shape"].dump(), std::string("[1,3,256,256]"));
    QCOMPARE(j["outputs"][0]["shape"].dump(), std::string("[1,98,2]"));
    QCOMPARE(j["constants"]["count"].get<int>(), 108);
}

void TestCli::inspectOnnxJson()
{
    const auto run
        = runCliBinary({ QStringLiteral("inspect"), onnxSample, QStringLiteral("--json") });
    QCOMPARE(run.exitCode, 0);
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["format"].get<std::string>(), std::string("onnx"));
    QCOMPARE(j["op_calls"].get<int>(), 40);
    QCOMPARE(j["ops"]["Conv"].get<int>(), 13);
    QCOMPARE(j["inputs"][0]["shape"].dump(), std::string("[1,3,32,32]"));

    const auto cut
        = runCliBinary({ QStringLiteral("partition"), onnxSample, QStringLiteral("--cut-after"),
                         QStringLiteral("Relu:3"), QStringLiteral("--json") });
    QCOMPARE(cut.exitCode, 0);
    const auto p = nlohmann::json::parse(cut.out.toStdString());
    QCOMPARE(p["partitions"].size(), std::size_t(2));
    QCOMPARE(p["boundary"].size(), std::size_t(2));
}

void TestCli::inspectFusionOptions()
{
    auto blockCount = [](QStringList args) {
        args.prepend(QStringLiteral("inspect"));
        args << QStringLiteral("--blocks") << QStringLiteral("--json");
        const auto run = runCliBinary(args);
        return run.exitCode == 0
            ? int(nlohmann::json::parse(run.out.toStdString())["blocks"].size())
            : -run.exitCode;
    };
    const QString stopFusion = QStringLiteral(CLEAVE_SAMPLES_DIR "/stop_fusion.relay");
    QCOMPARE(blockCount({ stopFusion }), 14);
    QCOMPARE(blockCount({ stopFusion, QStringLiteral("--transparent-stop-fusion") }), 11);

    // An op pattern file that makes nn.relu opaque takes it out of its three blocks.
    QTemporaryDir dir;
    const QString patterns = dir.filePath(QStringLiteral("patterns.json"));
    std::ofstream(patterns.toStdString()) << R"({"nn.relu": "opaque"})";
    const QString model = residualInception;
    QCOMPARE(blockCount({ model }), 9);
    QCOMPARE(blockCount({ model, QStringLiteral("--op-patterns"), patterns }), 12);

    std::ofstream(patterns.toStdString()) << "{\"nn.relu\": \"sometimes\"}";
    const auto bad = runCliBinary({ QStringLiteral("inspect"), model, QStringLiteral("--blocks"),
                                    QStringLiteral("--op-patterns"), patterns });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("unknown pattern \"sometimes\""), bad.err.constData());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
