// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "CliRunner.h"
#include "TestGraphs.h"
#include "TestSupport.h"
#include "core/export/relay/RelayMetadataSubset.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/PlanFile.h"
#include "core/partition/WeightFollowers.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

using namespace cleave;
using namespace cleave::test;

namespace {

QString samples()
{
    return QStringLiteral(CLEAVE_SAMPLES_DIR);
}

/// Writes an in-memory test graph as a Relay file and imports it back (so that verify can
/// re-read the source named in the manifest).
std::unique_ptr<Graph> materialise(const Graph &g, const QString &path)
{
    if (!writeAll(path, printRelay(g)))
        return nullptr;
    return loadOrAbort(path);
}

ExportResult exportTo(const PartitionPlan &plan, const QString &dir, ExportOptions options = {})
{
    return exportPartitions(plan, computeBoundary(plan), options, dir.toStdString());
}

/// Operator nodes of the main function (calls of ops and of functions) in program order.
/// The calls that compute activations: weight-only nodes (arithmetic on constants) follow their
/// consumers, so a cut after one of them or isolating one changes nothing.
std::vector<NodeId> opCalls(const PartitionPlan &plan)
{
    std::vector<NodeId> calls;
    for (NodeId n : plan.view().assignableNodes()) {
        const NodeKind kind = plan.graph().node(n).kind;
        if ((kind == NodeKind::OpCall || kind == NodeKind::FunctionCall)
            && !plan.weightFollowers().contains(n))
            calls.push_back(n);
    }
    return calls;
}

/// Cuts after each of the nodes in program order (graph_split's rule for any node kind):
/// everything after a node goes to the next partition.
void cutAfterNodes(PartitionPlan &plan, const std::vector<NodeId> &nodes)
{
    std::vector<std::vector<NodeId>> groups;
    for (NodeId cut : nodes) {
        std::vector<NodeId> after;
        for (NodeId n : plan.view().assignableNodes()) {
            if (plan.view().position(n) > plan.view().position(cut))
                after.push_back(n);
        }
        groups.push_back(std::move(after));
    }
    const PlanEdit edit = plan.cutBeforeNodes(groups);
    QVERIFY(!hasErrors(edit.diagnostics));
}

/// FLOPs of ResNet-18 (samples/resnet18.relay, NCHW, batch 1) from the first residual add's
/// relu (%13) to the softmax: stage1 of `--cut-after add:0`, derived from the layer shapes with
/// the cost model's formulas (docs/DESIGN.md §3.8; shapes by TVM's type relations):
///   conv2d            2·N·O·OH·OW·C·KH·KW / groups (a multiply and an add per weight use)
///   nn.batch_norm     2 per input element (scale and shift)
///   relu, add, bias_add, softmax   1 per output element
///   global_avg_pool2d 1 per input element; dense 2·units·K; batch_flatten and %k.0 are free.
std::int64_t resnet18FlopsAfterFirstAdd()
{
    constexpr std::int64_t n = 1; // batch
    constexpr std::int64_t groups = 1; // no grouped convolution in ResNet-18
    // O output channels at OH = OW = hw, C input channels, a k×k kernel.
    const auto conv = [](std::int64_t o, std::int64_t hw, std::int64_t c, std::int64_t k) {
        return 2 * n * o * hw * hw * c * k * k / groups;
    };
    const auto elements = [](std::int64_t c, std::int64_t hw) { return c * hw * hw; };
    std::int64_t flops = elements(64, 56); // %13 = nn.relu(%12)
    // layer1's second block at 64×56×56: conv-bn-relu-conv-bn, add, relu.
    flops += 2 * conv(64, 56, 64, 3) + 2 * 2 * elements(64, 56) + 3 * elements(64, 56);
    // layer2..4: a downsampling block (3×3 stride-2 conv, 3×3 conv, 1×1 stride-2 shortcut conv,
    // three batch norms, relu, add, relu) then a plain block like layer1's.
    for (const auto &[c, hw] :
         { std::pair<std::int64_t, std::int64_t> { 128, 28 }, { 256, 14 }, { 512, 7 } }) {
        flops += conv(c, hw, c / 2, 3) + conv(c, hw, c, 3) + conv(c, hw, c / 2, 1)
            + 3 * 2 * elements(c, hw) + 3 * elements(c, hw);
        flops += 2 * conv(c, hw, c, 3) + 2 * 2 * elements(c, hw) + 3 * elements(c, hw);
    }
    flops += elements(512, 7); // global_avg_pool2d reads 512×7×7
    flops += 2 * 1000 * 512; // dense to 1000 classes
    flops += 1000 + 1000; // bias_add, softmax
    return flops;
}

/// Parameter bytes of the same stage: every constant operand, float32 (4 bytes): conv weights
/// O·C·KH·KW, four C-vectors per batch_norm (gamma, beta, moving mean, moving variance), the
/// dense weight 1000×512 and its bias.
std::int64_t resnet18ParamBytesAfterFirstAdd()
{
    std::int64_t weights = 2 * 64 * 64 * 3 * 3 + 2 * 4 * 64; // layer1's second block
    for (const std::int64_t c : { 128, 256, 512 }) {
        weights += c * (c / 2) * 3 * 3 + c * c * 3 * 3 + c * (c / 2) + 3 * 4 * c;
        weights += 2 * c * c * 3 * 3 + 2 * 4 * c;
    }
    weights += 1000 * 512 + 1000;
    return 4 * weights;
}

QStringList relayModels()
{
    QStringList files;
    for (const QString &f :
         QDir(samples()).entryList({ QStringLiteral("*.relay") }, QDir::Files, QDir::Name))
        files << samples() + QLatin1Char('/') + f;
    const QString corpus = QStringLiteral(CLEAVE_CORPUS_DIR) + QStringLiteral("/relay");
    for (const QString &f :
         QDir(corpus).entryList({ QStringLiteral("*.relay.txt") }, QDir::Files, QDir::Name))
        files << corpus + QLatin1Char('/') + f;
    return files;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private slots:
    void exportThenVerify_data();
    void exportThenVerify();
    void resnetAddZeroPipelineConfig();
    void seedResnetIdentityBlock();
    void reimportPrintsTvmStyle();
    void manifestContents();
    void liftConstants();
    void globalInputRoutedThroughFirstUser();
    void tupleFieldsCrossing();
    void metadataCarriesOnlyOwnConstants();
    void verifyDetectsAlteredExport();
    void failedExportKeepsFolder();
    void planFileExport();
    void buildScriptCompiles();
};

void TestExport::exportThenVerify_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("config");
    for (const QString &model : relayModels()) {
        const QString name = QFileInfo(model).fileName();
        const bool big = QFileInfo(model).size() > 500 * 1024;
        if (!big) {
            // A module whose @main is one call (a whole BYOC function) cannot be cut.
            const auto graph = loadOrAbort(model);
            if (opCalls(PartitionPlan(*graph)).size() < 3) {
                QTest::newRow(qPrintable(name + QStringLiteral(" whole")))
                    << model << QStringLiteral("whole");
                continue;
            }
        }
        QTest::newRow(qPrintable(name + QStringLiteral(" single")))
            << model << QStringLiteral("single");
        if (big)
            continue;
        QTest::newRow(qPrintable(name + QStringLiteral(" multi")))
            << model << QStringLiteral("multi");
        QTest::newRow(qPrintable(name + QStringLiteral(" branch")))
            << model << QStringLiteral("branch");
        QTest::newRow(qPrintable(name + QStringLiteral(" isolate")))
            << model << QStringLiteral("isolate");
    }
    if (corpusFiles("relay", QStringLiteral("*.relay.txt")).isEmpty())
        QTest::newRow(missingCorpusRow()) << QString() << QString();
    QTest::newRow("resnet18 add:0")
        << samples() + QStringLiteral("/resnet18.relay") << QStringLiteral("add:0");
    QTest::newRow("resnet18 add:0 add:3 lifted")
        << samples() + QStringLiteral("/resnet18.relay") << QStringLiteral("add:0 add:3 lift");
}

void TestExport::exportThenVerify()
{
    QFETCH(QString, model);
    QFETCH(QString, config);
    CLEAVE_SKIP_MISSING_CORPUS_ROW(model);
    const auto graph = loadOrAbort(model);
    PartitionPlan plan(*graph);
    const std::vector<NodeId> calls = opCalls(plan);
    ExportOptions options;
    std::size_t expected = 1;
    if (config == QLatin1String("whole")) {
        expected = 1;
    } else if (config == QLatin1String("single")) {
        cutAfterNodes(plan, { calls[calls.size() / 2] });
        expected = 2;
    } else if (config == QLatin1String("multi")) {
        std::vector<NodeId> at { calls[calls.size() / 4], calls[calls.size() / 2],
                                 calls[3 * calls.size() / 4] };
        at.erase(std::unique(at.begin(), at.end()), at.end());
        cutAfterNodes(plan, at);
        expected = at.size() + 1;
    } else if (config == QLatin1String("branch")) {
        // Cut right after the first operator whose value is read twice (a branch or a skip).
        NodeId fork = calls[calls.size() / 3];
        for (NodeId n : calls) {
            if (graph->uses(n).size() >= 2 && n != calls.back()) {
                fork = n;
                break;
            }
        }
        cutAfterNodes(plan, { fork });
        expected = 2;
    } else if (config == QLatin1String("isolate")) {
        // A middle operator as its own partition: before-part, the operator, after-part.
        const PlanEdit edit = plan.isolateSelection({ calls[calls.size() / 2] });
        QVERIFY(!hasErrors(edit.diagnostics));
        expected = 3;
    } else {
        const bool lift = config.endsWith(QLatin1String(" lift"));
        options.liftConstants = lift;
        std::vector<SplitPoint> points;
        for (const QString &p :
             QString(config).remove(QStringLiteral(" lift")).split(QLatin1Char(' '))) {
            const QStringList parts = p.split(QLatin1Char(':'));
            points.push_back({ parts[0].toStdString(), parts[1].toULongLong() });
        }
        plan.cutAfterOps(points);
        expected = points.size() + 1;
    }
    QCOMPARE(plan.partitionCount(), expected);
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult result = exportTo(plan, dir, options);
    QVERIFY2(result.ok,
             result.diagnostics.empty() ? "" : result.diagnostics.front().toString().c_str());
    for (std::size_t k = 0; k < expected; ++k)
        QVERIFY(QFile::exists(dir + QStringLiteral("/mod%1.relay").arg(k)));
    QVERIFY(!QFile::exists(dir + QStringLiteral("/mod%1.relay").arg(expected)));
    const VerifyResult verified = verifyExport(dir.toStdString());
    QVERIFY2(verified.ok, verified.firstDifference.c_str());
}

void TestExport::resnetAddZeroPipelineConfig()
{
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/resnet");
    const CliRun run = runCli(
        { QStringLiteral("partition"), samples() + QStringLiteral("/resnet18.relay"),
          QStringLiteral("--cut-after"), QStringLiteral("add:0"), QStringLiteral("--out"), dir });
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(QString::fromStdString(readAll(dir + QStringLiteral("/pipeline_config.json"))),
             QStringLiteral(
                 "{\"param_connection\": [], \"input_connection\": [{\"global_interface_name\": "
                 "\"data\", \"mod_idx\": 0, \"module_interface_name\": \"data\"}], "
                 "\"module_connection\": [{\"mod_idx\": 0, \"cpu_affinity\": \"\", \"output\": "
                 "[{\"output_idx\": 0, \"dependencies\": [{\"mod_idx\": 1, \"input_name\": "
                 "\"data_n_0\"}]}], \"dev\": \"1,0\"}, {\"mod_idx\": 1, \"cpu_affinity\": \"\", "
                 "\"output\": [{\"output_idx\": 0, \"dependencies\": [{\"global_output_index\": "
                 "0}]}], \"dev\": \"1,0\"}]}\n"));
    const CliRun verify = runCli({ QStringLiteral("verify"), dir });
    QCOMPARE(verify.exitCode, 0);
    QCOMPARE(QString::fromUtf8(verify.out),
             dir + QStringLiteral(": export recomposes the source model\n"));
}

void TestExport::seedResnetIdentityBlock()
{
    // relay.testing.resnet's identity unit after add:0: the add feeds the next conv and the
    // next residual add, so the tensor enters mod1 once and is read twice there.
    QTemporaryDir tmp;
    const auto graph = materialise(*residualIdentity(), tmp.path() + QStringLiteral("/res.relay"));
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "add", 0 } });
    const QString dir = tmp.path() + QStringLiteral("/out");
    QVERIFY(exportTo(plan, dir).ok);
    QCOMPARE(QString::fromStdString(readAll(dir + QStringLiteral("/pipeline_config.json"))),
             QStringLiteral(
                 "{\"param_connection\": [], \"input_connection\": [{\"global_interface_name\": "
                 "\"data\", \"mod_idx\": 0, \"module_interface_name\": \"data\"}], "
                 "\"module_connection\": [{\"mod_idx\": 0, \"cpu_affinity\": \"\", \"output\": "
                 "[{\"output_idx\": 0, \"dependencies\": [{\"mod_idx\": 1, \"input_name\": "
                 "\"data_n_0\"}]}], \"dev\": \"1,0\"}, {\"mod_idx\": 1, \"cpu_affinity\": \"\", "
                 "\"output\": [{\"output_idx\": 0, \"dependencies\": [{\"global_output_index\": "
                 "0}]}], \"dev\": \"1,0\"}]}\n"));
    const std::string mod1 = readAll(dir + QStringLiteral("/mod1.relay"));
    QVERIFY2(mod1.find("def @main(%data_n_0: Tensor[(1, 64, 56, 56), float32]) -> Tensor[(1, 64, "
                       "56, 56), float32] {")
                 != std::string::npos,
             mod1.c_str());
    std::size_t uses = 0;
    for (std::size_t at = mod1.find("%data_n_0"); at != std::string::npos;
         at = mod1.find("%data_n_0", at + 1))
        ++uses;
    QCOMPARE(uses, std::size_t(3)); // the parameter plus its two readers
    QVERIFY(mod1.find("data_n_1") == std::string::npos);
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExport::manifestContents()
{
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    QCOMPARE(runCli({ QStringLiteral("partition"), samples() + QStringLiteral("/resnet18.relay"),
                      QStringLiteral("--cut-after"), QStringLiteral("add:0"),
                      QStringLiteral("--out"), dir })
                 .exitCode,
             0);
    using json = nlohmann::json;
    const json m = json::parse(readAll(dir + QStringLiteral("/partitions.json")));
    QCOMPARE(m["cleave_version"].get<std::string>(), std::string(CLEAVE_VERSION));
    QCOMPARE(m["source"]["path"].get<std::string>(),
             QDir::cleanPath(samples() + QStringLiteral("/resnet18.relay")).toStdString());
    QCOMPARE(m["source"]["checksum"].get<std::string>(),
             loadOrAbort(samples() + QStringLiteral("/resnet18.relay"))->checksum());
    QCOMPARE(m["module_format"].get<std::string>(), std::string("relay"));
    const json &p0 = m["partitions"][0];
    const json &p1 = m["partitions"][1];
    QCOMPARE(p0["name"].get<std::string>(), std::string("stage0"));
    QCOMPARE(p0["ops"].get<int>(), 10);
    QCOMPARE(p1["ops"].get<int>(), 61);
    QCOMPARE(p1["flops"].get<std::int64_t>(), resnet18FlopsAfterFirstAdd());
    QCOMPARE(p1["param_bytes"].get<std::int64_t>(), resnet18ParamBytesAfterFirstAdd());
    QCOMPARE(p1["nodes"].size(), std::size_t(78));
    QCOMPARE(p1["nodes"][0].get<std::string>(), std::string("%13"));
    QCOMPARE(p1["inputs"],
             json::parse(R"([{"name": "data_n_0", "type": "Tensor[(1, 64, 56, 56), float32]",
        "shape": [1, 64, 56, 56], "dtype": "float32", "bytes": 802816,
        "from": {"mod_idx": 0, "output_idx": 0, "tensor": "%12"}}])"));
    QCOMPARE(p0["outputs"][0]["to"], json::parse(R"([{"mod_idx": 1, "input_name": "data_n_0"}])"));
    QCOMPARE(p1["outputs"][0]["to"], json::parse(R"([{"global_output_index": 0}])"));
    QCOMPARE(p1["constants"][0], json::parse(R"({"source_ref": "meta[relay.Constant][15]",
        "source_node": "meta[relay.Constant][15]", "module_ref": "meta[relay.Constant][0]",
        "type": "Tensor[(64, 64, 3, 3), float32]", "shape": [64, 64, 3, 3], "dtype": "float32",
        "bytes": 147456})"));
    QCOMPARE(m["boundary"].size(), std::size_t(1));
    QCOMPARE(m["boundary"][0]["tensor"].get<std::string>(), std::string("%12"));
    QCOMPARE(m["diagnostics"][0]["code"].get<std::string>(), std::string("partition.boundary"));
    QCOMPARE(m["lifted_constants"], json::array());
}

void TestExport::reimportPrintsTvmStyle()
{
    const auto graph = loadOrAbort(samples() + QStringLiteral("/resnet18.relay"));
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "add", 0 } });
    QTemporaryDir tmp;
    QVERIFY(exportTo(plan, tmp.path()).ok);
    const std::string text = readAll(tmp.path() + QStringLiteral("/mod0.relay"));
    // Re-import with our importer and print again: identical text.
    const auto mod0 = loadOrAbort(tmp.path() + QStringLiteral("/mod0.relay"));
    QCOMPARE(QString::fromStdString(printRelay(*mod0)), QString::fromStdString(text));
    // TVM's style, line by line as in the source dump (which TVM printed).
    const std::string source = readAll(samples() + QStringLiteral("/resnet18.relay"));
    QVERIFY(
        text.rfind("#[version = \"0.0.5\"]\ndef @main(%data: Tensor[(1, 3, 224, 224), float32]) -> "
                   "Tensor[(1, 64, 56, 56), float32] {\n",
                   0)
        == 0);
    const std::string conv
        = "  %0 = nn.conv2d(%data, meta[relay.Constant][0] /* ty=Tensor[(64, 3, 7, 7), "
          "float32] */, strides=[2, 2], padding=[3, 3, 3, 3], channels=64, "
          "kernel_size=[7, 7]) /* ty=Tensor[(1, 64, 112, 112), float32] */;\n";
    QVERIFY(source.find(conv) != std::string::npos);
    QVERIFY(text.find(conv) != std::string::npos);
    QVERIFY(text.size() > 2 && text.substr(text.size() - 2) == "}\n");
}

void TestExport::liftConstants()
{
    QTemporaryDir tmp;
    const auto graph = materialise(*chainWithSkip(), tmp.path() + QStringLiteral("/skip.relay"));
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "nn.relu", 1 } }); // {%0 relu, %1 add(c1), %2 relu} | {%3 add(c2), %4 add}
    ExportOptions options;
    options.liftConstants = true;
    const QString dir = tmp.path() + QStringLiteral("/lifted");
    QVERIFY(exportTo(plan, dir, options).ok);
    const std::string mod0 = readAll(dir + QStringLiteral("/mod0.relay"));
    const std::string mod1 = readAll(dir + QStringLiteral("/mod1.relay"));
    QVERIFY2(
        mod0.find(
            "def @main(%data: Tensor[(1, 16), float32], %const_0: Tensor[(1, 16), float32]) -> "
            "(Tensor[(1, 16), float32], Tensor[(1, 16), float32]) {")
            != std::string::npos,
        mod0.c_str());
    QVERIFY(mod0.find("meta[") == std::string::npos);
    QVERIFY2(
        mod1.find(
            "def @main(%data_n_0: Tensor[(1, 16), float32], %data_n_1: Tensor[(1, 16), float32], "
            "%const_0: Tensor[(1, 16), float32]) -> Tensor[(1, 16), float32] {")
            != std::string::npos,
        mod1.c_str());
    const auto manifest = nlohmann::json::parse(readAll(dir + QStringLiteral("/partitions.json")));
    QCOMPARE(manifest["lift_constants"].get<bool>(), true);
    const auto &lifted = manifest["lifted_constants"];
    QCOMPARE(lifted.size(), std::size_t(2));
    QCOMPARE(lifted[0]["mod_idx"].get<int>(), 0);
    QCOMPARE(lifted[0]["parameter"].get<std::string>(), std::string("const_0"));
    QCOMPARE(lifted[0]["source_ref"].get<std::string>(), std::string("meta[relay.Constant][0]"));
    QCOMPARE(lifted[1]["mod_idx"].get<int>(), 1);
    QCOMPARE(lifted[1]["source_ref"].get<std::string>(), std::string("meta[relay.Constant][1]"));
    QCOMPARE(manifest["partitions"][1]["inputs"][2]["from"]["constant"].get<std::string>(),
             std::string("meta[relay.Constant][1]"));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExport::globalInputRoutedThroughFirstUser()
{
    // %3 add(%2, data) reads the global input in the second partition too.
    QTemporaryDir tmp;
    const auto graph = materialise(*residualIdentity(), tmp.path() + QStringLiteral("/res.relay"));
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "nn.relu", 0 } });
    const QString dir = tmp.path() + QStringLiteral("/out");
    QVERIFY(exportTo(plan, dir).ok);
    QCOMPARE(QString::fromStdString(readAll(dir + QStringLiteral("/pipeline_config.json"))),
             QStringLiteral(
                 "{\"param_connection\": [], \"input_connection\": [{\"global_interface_name\": "
                 "\"data\", \"mod_idx\": 0, \"module_interface_name\": \"data\"}], "
                 "\"module_connection\": [{\"mod_idx\": 0, \"cpu_affinity\": \"\", \"output\": "
                 "[{\"output_idx\": 0, \"dependencies\": [{\"mod_idx\": 1, \"input_name\": "
                 "\"data_n_0\"}]}, {\"output_idx\": 1, \"dependencies\": [{\"mod_idx\": 1, "
                 "\"input_name\": \"data\"}]}], \"dev\": \"1,0\"}, {\"mod_idx\": 1, "
                 "\"cpu_affinity\": \"\", \"output\": [{\"output_idx\": 0, \"dependencies\": "
                 "[{\"global_output_index\": 0}]}], \"dev\": \"1,0\"}]}\n"));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExport::tupleFieldsCrossing()
{
    // A cut right after nn.batch_norm: its field 0 crosses as its own input.
    QTemporaryDir tmp;
    const auto graph = materialise(*batchNormBlock(), tmp.path() + QStringLiteral("/bn.relay"));
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "nn.batch_norm", 0 } });
    const QString dir = tmp.path() + QStringLiteral("/out");
    QVERIFY(exportTo(plan, dir).ok);
    const std::string mod0 = readAll(dir + QStringLiteral("/mod0.relay"));
    const std::string tail = "  %1.0 /* ty=Tensor[(1, 64, 56, 56), float32] */\n}\n";
    QVERIFY2(mod0.size() > tail.size() && mod0.substr(mod0.size() - tail.size()) == tail,
             mod0.c_str());
    const std::string mod1 = readAll(dir + QStringLiteral("/mod1.relay"));
    QVERIFY2(mod1.find("def @main(%data_n_0: Tensor[(1, 64, 56, 56), float32])")
                 != std::string::npos,
             mod1.c_str());
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());

    // A whole tuple crossing: the inception block's concatenate isolated from its branches.
    // The four fields enter as data_n_0..3 and are regrouped before the concatenate.
    const auto inception = loadOrAbort(samples() + QStringLiteral("/inception_block.relay"));
    PartitionPlan split(*inception);
    NodeId concat;
    for (NodeId n : split.view().order()) {
        if (inception->node(n).op == "concatenate") {
            concat = n;
            break;
        }
    }
    QVERIFY(concat.isValid());
    QVERIFY(!hasErrors(split.isolateSelection({ concat }).diagnostics));
    const QString dir2 = tmp.path() + QStringLiteral("/inception");
    QVERIFY(exportTo(split, dir2).ok);
    const std::string mid = readAll(dir2 + QStringLiteral("/mod1.relay"));
    QVERIFY2(mid.find("  %0 = (%data_n_0, %data_n_1, %data_n_2, %data_n_3)") != std::string::npos,
             mid.c_str());
    const VerifyResult v2 = verifyExport(dir2.toStdString());
    QVERIFY2(v2.ok, v2.firstDifference.c_str());
}

void TestExport::metadataCarriesOnlyOwnConstants()
{
    // Two constants with values (the corpus's metadata section), one per partition.
    CLEAVE_REQUIRE_CORPUS("relay");
    const std::string corpus = readAll(
        QStringLiteral(CLEAVE_CORPUS_DIR)
        + QStringLiteral("/relay/conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt"));
    const std::size_t meta = corpus.find("#[metadata]");
    QVERIFY(meta != std::string::npos);
    const std::string model = "#[version = \"0.0.5\"]\n"
                              "def @main(%x: Tensor[(1), int32], %y: Tensor[(1, 3, 32, 32), int8]) "
                              "-> Tensor[(1, 1, 30, 30), int32] {\n"
                              "  %0 = add(%x, meta[relay.Constant][1] /* ty=Tensor[(1), int32] */) "
                              "/* ty=Tensor[(1), int32] */;\n"
                              "  %1 = nn.relu(%0) /* ty=Tensor[(1), int32] */;\n"
                              "  %2 = nn.conv2d(%y, meta[relay.Constant][0] /* ty=Tensor[(1, 3, 3, "
                              "3), int8] */, kernel_size=[3, 3], "
                              "out_dtype=\"int32\") /* ty=Tensor[(1, 1, 30, 30), int32] */;\n"
                              "  add(%2, %1) /* ty=Tensor[(1, 1, 30, 30), int32] */\n"
                              "}\n\n"
        + corpus.substr(meta);
    QTemporaryDir tmp;
    QVERIFY(writeAll(tmp.path() + QStringLiteral("/model.relay"), model));
    const auto graph = loadOrAbort(tmp.path() + QStringLiteral("/model.relay"));
    const auto source = constantPayloads(graph->metadata());
    QVERIFY(source && source->size() == 2);
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "nn.relu", 0 } });
    const QString dir = tmp.path() + QStringLiteral("/out");
    QVERIFY(exportTo(plan, dir).ok);
    const auto mod0 = loadOrAbort(dir + QStringLiteral("/mod0.relay"));
    const auto mod1 = loadOrAbort(dir + QStringLiteral("/mod1.relay"));
    QCOMPARE(constantPayloads(mod0->metadata()),
             std::optional(std::vector<std::string> { (*source)[1] }));
    QCOMPARE(constantPayloads(mod1->metadata()),
             std::optional(std::vector<std::string> { (*source)[0] }));
    const std::string text0 = readAll(dir + QStringLiteral("/mod0.relay"));
    QVERIFY(text0.find("add(%x, meta[relay.Constant][0] /* ty=Tensor[(1), int32] */)")
            != std::string::npos);
    QVERIFY(text0.find("meta[relay.Constant][1]") == std::string::npos);
    VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());

    // Another value in mod1's section: verify names the constant.
    std::string text1 = readAll(dir + QStringLiteral("/mod1.relay"));
    const std::size_t at = text1.find((*source)[0]);
    QVERIFY(at != std::string::npos);
    text1[at + 60] = text1[at + 60] == 'A' ? 'B' : 'A';
    QVERIFY(writeAll(dir + QStringLiteral("/mod1.relay"), text1));
    v = verifyExport(dir.toStdString());
    QVERIFY(!v.ok && !v.badInput);
    QCOMPARE(QString::fromStdString(v.firstDifference),
             QStringLiteral("mod1: the value of meta[relay.Constant][0] differs from the source's "
                            "meta[relay.Constant][0]"));
}

void TestExport::verifyDetectsAlteredExport()
{
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/resnet");
    QCOMPARE(runCli({ QStringLiteral("partition"), samples() + QStringLiteral("/resnet18.relay"),
                      QStringLiteral("--cut-after"), QStringLiteral("add:0"),
                      QStringLiteral("--out"), dir })
                 .exitCode,
             0);
    std::string mod1 = readAll(dir + QStringLiteral("/mod1.relay"));
    const std::string from = "%0 = nn.relu(%data_n_0)";
    const std::size_t at = mod1.find(from);
    QVERIFY(at != std::string::npos);
    mod1.replace(at, from.size(), "%0 = nn.sigmoid(%data_n_0)");
    QVERIFY(writeAll(dir + QStringLiteral("/mod1.relay"), mod1));
    const CliRun run = runCli({ QStringLiteral("verify"), dir });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains("export does not recompose the source model: ")
                 && run.out.contains("nn.sigmoid") && run.out.contains("nn.relu"),
             run.out.constData());
    // A manifest naming a module outside the folder, or unreadable: bad input (exit 2).
    std::string manifest = readAll(dir + QStringLiteral("/partitions.json"));
    const std::size_t file = manifest.find("\"mod1.relay\"");
    QVERIFY(file != std::string::npos);
    QVERIFY(writeAll(dir + QStringLiteral("/partitions.json"),
                     std::string(manifest).replace(file, 12, "\"../mod1.relay\"")));
    const CliRun escaping = runCli({ QStringLiteral("verify"), dir });
    QCOMPARE(escaping.exitCode, 2);
    QVERIFY2(escaping.err.contains("module file '../mod1.relay' is not a plain file name"),
             escaping.err.constData());
    QVERIFY(writeAll(dir + QStringLiteral("/partitions.json"), "{\"source\": "));
    const CliRun broken = runCli({ QStringLiteral("verify"), dir });
    QCOMPARE(broken.exitCode, 2);
    QVERIFY2(broken.err.contains("partitions.json: invalid JSON"), broken.err.constData());
    // A missing folder is bad input.
    QCOMPARE(runCli({ QStringLiteral("verify"), tmp.path() + QStringLiteral("/nothing") }).exitCode,
             2);
}

void TestExport::failedExportKeepsFolder()
{
    const auto graph = loadOrAbort(samples() + QStringLiteral("/resnet18.relay"));
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "add", 0 } });
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    QVERIFY(exportTo(plan, dir).ok);
    const std::string before = readAll(dir + QStringLiteral("/mod1.relay"));
    const QStringList filesBefore = QDir(dir).entryList(QDir::Files, QDir::Name);
    QVERIFY(writeAll(dir + QStringLiteral("/user-notes.txt"), "mine"));

    // Three targets for two partitions: refused before anything is written.
    ExportOptions bad;
    bad.targets = { "llvm", "cuda", "llvm" };
    const ExportResult failed = exportTo(plan, dir, bad);
    QVERIFY(!failed.ok);
    QCOMPARE(QString::fromStdString(failed.diagnostics.front().code),
             QStringLiteral("export.targets"));
    QCOMPARE(readAll(dir + QStringLiteral("/mod1.relay")), before);
    QCOMPARE(readAll(dir + QStringLiteral("/user-notes.txt")), std::string("mine"));
    // An output path that is a file: export.io, the file is untouched, no temporary left.
    QVERIFY(writeAll(tmp.path() + QStringLiteral("/file"), "x"));
    const ExportResult io = exportTo(plan, tmp.path() + QStringLiteral("/file"));
    QVERIFY(!io.ok);
    // (resnet18.relay has no metadata section: export.no_metadata warnings come first.)
    QCOMPARE(QString::fromStdString(io.diagnostics.back().code), QStringLiteral("export.io"));
    QCOMPARE(readAll(tmp.path() + QStringLiteral("/file")), std::string("x"));
    // Beside them only the lock files that serialise exports into each folder (.<dir>.lock).
    QCOMPARE(QDir(tmp.path())
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name),
             QStringList({ QStringLiteral(".file.lock"), QStringLiteral(".out.lock"),
                           QStringLiteral("file"), QStringLiteral("out") }));
    // A successful export replaces what Cleave wrote and keeps the user's file.
    QVERIFY(exportTo(plan, dir).ok);
    QStringList expected = filesBefore;
    expected << QStringLiteral("user-notes.txt");
    expected.sort();
    QCOMPARE(QDir(dir).entryList(QDir::Files, QDir::Name), expected);
    QCOMPARE(readAll(dir + QStringLiteral("/user-notes.txt")), std::string("mine"));
}

void TestExport::planFileExport()
{
    QTemporaryDir tmp;
    const QString model = samples() + QStringLiteral("/inception_block.relay");
    const QString planPath = tmp.path() + QStringLiteral("/plan.json");
    QCOMPARE(runCli({ QStringLiteral("partition"), model, QStringLiteral("--cut-after"),
                      QStringLiteral("nn.relu:0"), QStringLiteral("--save-plan"), planPath,
                      QStringLiteral("--out"), tmp.path() + QStringLiteral("/a") })
                 .exitCode,
             0);
    QCOMPARE(runCli({ QStringLiteral("partition"), model, QStringLiteral("--plan"), planPath,
                      QStringLiteral("--out"), tmp.path() + QStringLiteral("/b") })
                 .exitCode,
             0);
    for (const QString &f : { QStringLiteral("mod0.relay"), QStringLiteral("mod1.relay"),
                              QStringLiteral("pipeline_config.json") })
        QCOMPARE(readAll(tmp.path() + QStringLiteral("/b/") + f),
                 readAll(tmp.path() + QStringLiteral("/a/") + f));
    QCOMPARE(runCli({ QStringLiteral("verify"), tmp.path() + QStringLiteral("/b") }).exitCode, 0);
}

void TestExport::buildScriptCompiles()
{
    QTemporaryDir tmp;
    const auto graph = loadOrAbort(samples() + QStringLiteral("/resnet18.relay"));
    PartitionPlan plan(*graph);
    plan.cutAfterOps({ { "add", 0 }, { "add", 2 } });
    ExportOptions options;
    options.targets = { "llvm", "cuda", "dnnl" };
    QVERIFY(exportTo(plan, tmp.path() + QStringLiteral("/out"), options).ok);
    const std::string script = readAll(tmp.path() + QStringLiteral("/out/build_pipeline.py"));
    QVERIFY(script.find("    cfg[\"input\"][\"data\"].connect(cfg[mods[0]][\"input\"][\"data\"])\n")
            != std::string::npos);
    QVERIFY(script.find(
                "    cfg[mods[0]][\"output\"][0].connect(cfg[mods[1]][\"input\"][\"data_n_0\"])\n")
            != std::string::npos);
    QVERIFY(script.find("    cfg[mods[2]][\"output\"][0].connect(cfg[\"output\"][0])\n")
            != std::string::npos);
    QVERIFY(script.find("tvm.parser.parse") != std::string::npos);
    QProcess python;
    python.start(QStringLiteral("python3"),
                 { QStringLiteral("-m"), QStringLiteral("py_compile"),
                   tmp.path() + QStringLiteral("/out/build_pipeline.py") });
    QVERIFY(python.waitForFinished(30000));
    QCOMPARE(python.exitCode(), 0);
    const auto manifest
        = nlohmann::json::parse(readAll(tmp.path() + QStringLiteral("/out/partitions.json")));
    QCOMPARE(manifest["partitions"][1]["dev"].get<std::string>(), std::string("2,0"));
    QCOMPARE(manifest["partitions"][2]["byoc"].get<bool>(), true);
    QCOMPARE(manifest["cleave_version"].get<std::string>(), std::string(CLEAVE_VERSION));
    QCOMPARE(manifest["source"]["checksum"].get<std::string>(), graph->checksum());
}

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
