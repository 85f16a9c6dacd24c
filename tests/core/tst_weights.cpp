// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Weights passed as graph inputs are parameters: detection, validation, param_connection export.
#include "CliRunner.h"
#include "TestGraphs.h"
#include "TestSupport.h"
#include "core/analysis/WeightInputs.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/DiagnosticFix.h"
#include "core/partition/PartitionPlan.h"
#include "core/validation/Validation.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace cleave;
using namespace cleave::test;

namespace {

QString corpus(const char *name)
{
    return QStringLiteral(CLEAVE_CORPUS_DIR) + QStringLiteral("/relay/") + QLatin1String(name);
}

/// Two conv + bias + relu layers: three weights, the bias %b read by both layers.
const char *twoLayers = R"(#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 8, 8), float32], %w1: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32], %w2: Tensor[(4, 4, 3, 3), float32]) -> Tensor[(1, 4, 8, 8), float32] {
  %0 = nn.conv2d(%data, %w1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %1 = nn.bias_add(%0, %b) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %2 = nn.relu(%1) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %3 = nn.conv2d(%2, %w2, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %4 = nn.bias_add(%3, %b) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  nn.relu(%4) /* ty=Tensor[(1, 4, 8, 8), float32] */
}
)";

std::set<std::string> activationNames(const Graph &g)
{
    const std::vector<WeightInput> weights = weightInputs(g, g.mainFunction());
    std::set<std::string> names;
    for (NodeId p : g.function(g.mainFunction()).params) {
        if (!isWeightInput(weights, p))
            names.insert(globalInputName(g, p));
    }
    return names;
}

} // namespace

class TestWeights : public QObject
{
    Q_OBJECT

private slots:
    void detectsWeightOperands();
    void corpusActivations_data();
    void corpusActivations();
    void paramNamesParse();
    void sharedWeightNeedsNoRouting();
    void activationStillRouted();
    void exactParamConnection();
    void markedParamViaCli();
    void corpusCutExports_data();
    void corpusCutExports();
};

void TestWeights::detectsWeightOperands()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/two.relay");
    QVERIFY(writeAll(path, twoLayers));
    const auto g = load(path);
    QVERIFY(g);
    const std::vector<WeightInput> w = weightInputs(*g, g->mainFunction());
    QCOMPARE(w.size(), std::size_t(3));
    QCOMPARE(w[0].name, std::string("w1"));
    QCOMPARE(w[1].name, std::string("b"));
    QCOMPARE(w[2].name, std::string("w2"));
    QVERIFY(w[1].reason == WeightReason::Operand);
    // Marking an activation makes it a parameter too.
    const std::vector<WeightInput> marked = weightInputs(*g, g->mainFunction(), { "%data" });
    QCOMPARE(marked.size(), std::size_t(4));
    QCOMPARE(marked[0].name, std::string("data"));
    QVERIFY(marked[0].reason == WeightReason::Marked);
}

void TestWeights::corpusActivations_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("activations");
    // The model inputs as the source frameworks name them; every other parameter is a weight.
    QTest::newRow("rnnt") << corpus("rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt")
                          << QStringList { "feat_lens", "feats", "txt" };
    QTest::newRow("resnet50 pytorch")
        << corpus("resnet50_pytorch_simplifyinference_with-adt-typedefs_3la.relay.txt")
        << QStringList { "image" };
    QTest::newRow("squeezenet mxnet")
        << corpus("squeezenet_mxnet_let-anf_calyx.relay.txt") << QStringList { "data" };
    QTest::newRow("mobilenet keras") << corpus("mobilenet-v1_keras_tvm-v0.6-era_heterocl.relay.txt")
                                     << QStringList { "input_1" };
    QTest::newRow("efficientnet onnx")
        << corpus("efficientnet-lite4_onnx_glenside.relay.txt") << QStringList { "images_0" };
    QTest::newRow("resnet50 tf") << corpus(
        "resnet50_tensorflow_simplifyinference_with-prelude-adt_3la.relay.txt")
                                 << QStringList { "input_tensor" };
}

void TestWeights::corpusActivations()
{
    QFETCH(QString, file);
    QFETCH(QStringList, activations);
    if (!QFile::exists(file))
        QSKIP("corpus file not available");
    const auto g = load(file);
    QVERIFY(g);
    std::set<std::string> expected;
    for (const QString &a : activations)
        expected.insert(a.toStdString());
    const std::set<std::string> actual = activationNames(*g);
    std::string extra;
    for (const std::string &a : actual) {
        if (!expected.count(a))
            extra += a + " ";
    }
    QVERIFY2(actual == expected, ("also taken for activations: " + extra).c_str());
}

void TestWeights::paramNamesParse()
{
    std::string error;
    QCOMPARE(*parseParamNames("w1, %b ,w2", false, error),
             (std::vector<std::string> { "w1", "b", "w2" }));
    QCOMPARE(*parseParamNames("# weights\nw1\n\n  b\n", true, error),
             (std::vector<std::string> { "w1", "b" }));
    QCOMPARE(*parseParamNames("[\"w1\", \"%w2\"]", true, error),
             (std::vector<std::string> { "w1", "w2" }));
    QCOMPARE(*parseParamNames("{\"cleave_plan\": 1, \"params\": [\"b\"]}", true, error),
             (std::vector<std::string> { "b" }));
    QVERIFY(parseParamNames("{\"cleave_plan\": 1}", true, error)->empty());
    QVERIFY(!parseParamNames("[1, 2]", true, error));
    QCOMPARE(error, std::string("parameter names must be strings, got 1"));
    QVERIFY(!parseParamNames("{\"params\": 3}", true, error));
}

void TestWeights::sharedWeightNeedsNoRouting()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/two.relay");
    QVERIFY(writeAll(path, twoLayers));
    const auto g = load(path);
    QVERIFY(g);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.relu", 0 } });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    // %b is read by both partitions but is a weight: nothing to route.
    QVERIFY(checkSharedGlobalInputs(plan).empty());
}

void TestWeights::activationStillRouted()
{
    // residualIdentity: `data` feeds the conv (as data) and the residual add of stage1.
    auto g = residualIdentity();
    PartitionPlan plan(*g);
    plan.cutAfterOp("nn.conv2d", 0);
    const std::vector<Diagnostic> found = checkSharedGlobalInputs(plan);
    QCOMPARE(found.size(), std::size_t(1));
    QCOMPARE(found[0].code, std::string("pipeline.routed_input"));
    QVERIFY(found[0].severity == Severity::Info);
    QCOMPARE(found[0].message,
             std::string("global input data is read by 2 partitions (stage0, stage1); the export "
                         "forwards it: stage0 returns it as an extra output feeding stage1 (treat "
                         "it as a parameter if it is a weight)"));
    const std::optional<DiagnosticFix> fix = diagnosticFix(*g, found[0]);
    QVERIFY(fix.has_value());
    QCOMPARE(fix->action, std::string("mark_params"));
    QCOMPARE(fix->label, std::string("Treat data as a parameter"));
    QCOMPARE(fix->arguments, std::vector<std::string> { "data" });
    // Applying the fix (marking it) leaves nothing to report.
    QVERIFY(checkSharedGlobalInputs(plan, fix->arguments).empty());
}

void TestWeights::exactParamConnection()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/two.relay");
    QVERIFY(writeAll(path, twoLayers));
    const auto g = load(path);
    QVERIFY(g);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.relu", 0 } });
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult r = exportPartitions(plan, computeBoundary(plan), {}, dir.toStdString());
    QVERIFY(r.ok);
    // Written by hand from TVM's schema (docs/DESIGN.md §5.1): one param group per weight and
    // reading module; %b is read by both modules, so it has a group per module.
    QCOMPARE(QString::fromStdString(readAll(dir + QStringLiteral("/pipeline_config.json"))),
             QStringLiteral(
                 "{\"param_connection\": [{\"global_param_name\": \"w1\", \"mod_idx\": 0}, "
                 "{\"global_param_name\": \"b@mod0\", \"mod_idx\": 0}, {\"global_param_name\": "
                 "\"b@mod1\", \"mod_idx\": 1}, {\"global_param_name\": \"w2\", \"mod_idx\": 1}], "
                 "\"input_connection\": [{\"global_interface_name\": \"data\", \"mod_idx\": 0, "
                 "\"module_interface_name\": \"data\"}], \"module_connection\": [{\"mod_idx\": 0, "
                 "\"cpu_affinity\": \"\", \"output\": [{\"output_idx\": 0, \"dependencies\": "
                 "[{\"mod_idx\": 1, \"input_name\": \"data_n_0\"}]}], \"dev\": \"1,0\"}, "
                 "{\"mod_idx\": 1, \"cpu_affinity\": \"\", \"output\": [{\"output_idx\": 0, "
                 "\"dependencies\": [{\"global_output_index\": 0}]}], \"dev\": \"1,0\"}]}\n"));
    const std::string mod1 = readAll(dir + QStringLiteral("/mod1.relay"));
    QVERIFY2(mod1.find("def @main(%data_n_0: Tensor[(1, 4, 8, 8), float32], %w2: Tensor[(4, 4, 3, "
                       "3), float32], %b: Tensor[(4), float32])")
                 != std::string::npos,
             mod1.c_str());
    const auto manifest = nlohmann::json::parse(readAll(dir + QStringLiteral("/partitions.json")));
    QCOMPARE(manifest["params"].size(), std::size_t(3));
    QCOMPARE(manifest["params"][1]["name"].get<std::string>(), std::string("b"));
    QCOMPARE(manifest["params"][1]["reason"].get<std::string>(), std::string("weight_operand"));
    QCOMPARE(manifest["params"][1]["param_connection"].size(), std::size_t(2));
    QCOMPARE(manifest["params"][1]["param_connection"][1]["global_param_name"].get<std::string>(),
             std::string("b@mod1"));
    QCOMPARE(manifest["params"][1]["bytes"].get<int>(), 16);
    QCOMPARE(manifest["global_inputs"][1]["param"].get<bool>(), true);
    QCOMPARE(manifest["global_inputs"][0]["param"].get<bool>(), false);
    const std::string script = readAll(dir + QStringLiteral("/build_pipeline.py"));
    QVERIFY(script.find("cfg[\"param_group\"][\"b@mod1\"].connect(cfg[mods[1]][\"param\"])")
            != std::string::npos);
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestWeights::markedParamViaCli()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/res.relay");
    QVERIFY(writeAll(path, printRelay(*residualIdentity())));
    const QString list = tmp.path() + QStringLiteral("/params.txt");
    QVERIFY(writeAll(list, "# the residual input is a constant here\ndata\n"));
    const QString dir = tmp.path() + QStringLiteral("/out");
    const CliRun run = runCli({ QStringLiteral("partition"), path, QStringLiteral("--cut-after"),
                                QStringLiteral("nn.conv2d:0"), QStringLiteral("--params"), list,
                                QStringLiteral("--out"), dir });
    QCOMPARE(run.exitCode, 0);
    const auto config
        = nlohmann::json::parse(readAll(dir + QStringLiteral("/pipeline_config.json")));
    QCOMPARE(config["input_connection"].size(), std::size_t(0));
    QCOMPARE(config["param_connection"].dump(),
             std::string("[{\"global_param_name\":\"data@mod0\",\"mod_idx\":0},"
                         "{\"global_param_name\":\"data@mod1\",\"mod_idx\":1}]"));
    // No pass-through output: mod0 has exactly the one cut output.
    QCOMPARE(config["module_connection"][0]["output"].size(), std::size_t(1));
    const CliRun verify = runCli({ QStringLiteral("verify"), dir });
    QCOMPARE(verify.exitCode, 0);
    // Without the list the input is routed, and the report offers the fix.
    const CliRun dry = runCli({ QStringLiteral("partition"), path, QStringLiteral("--cut-after"),
                                QStringLiteral("nn.conv2d:0"), QStringLiteral("--dry-run") });
    QCOMPARE(dry.exitCode, 0);
    QVERIFY2(dry.out.contains("fix: Treat data as a parameter (--params data)"),
             dry.out.constData());
}

void TestWeights::corpusCutExports_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("cut");
    QTest::newRow("rnnt") << corpus("rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt")
                          << QStringLiteral("nn.dense:300");
    QTest::newRow("resnet50 pytorch")
        << corpus("resnet50_pytorch_simplifyinference_with-adt-typedefs_3la.relay.txt")
        << QStringLiteral("nn.relu:10");
    QTest::newRow("squeezenet") << corpus("squeezenet_mxnet_let-anf_calyx.relay.txt")
                                << QStringLiteral("nn.relu:5");
    QTest::newRow("mobilenet keras")
        << corpus("mobilenet-v1_keras_tvm-v0.6-era_heterocl.relay.txt") << QStringLiteral("clip:6");
    QTest::newRow("efficientnet") << corpus("efficientnet-lite4_onnx_glenside.relay.txt")
                                  << QStringLiteral("nn.conv2d:20");
}

void TestWeights::corpusCutExports()
{
    QFETCH(QString, file);
    QFETCH(QString, cut);
    if (!QFile::exists(file))
        QSKIP("corpus file not available");
    const auto g = load(file);
    QVERIFY(g);
    PartitionPlan plan(*g);
    const QStringList point = cut.split(QLatin1Char(':'));
    const PlanEdit edit = plan.cutAfterOps({ { point[0].toStdString(), point[1].toULong() } });
    QVERIFY(!hasErrors(edit.diagnostics));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const BoundaryTable boundary = computeBoundary(plan);
    const std::vector<Diagnostic> found = validateAll(plan, boundary);
    for (const Diagnostic &d : found)
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult r = exportPartitions(plan, boundary, {}, dir.toStdString());
    QVERIFY(r.ok);
    const auto config
        = nlohmann::json::parse(readAll(dir + QStringLiteral("/pipeline_config.json")));
    // Every weight reaches every module that reads it through a param group, never as data.
    const std::vector<WeightInput> weights = weightInputs(*g, g->mainFunction());
    std::size_t expectedGroups = 0;
    for (const WeightInput &w : weights) {
        for (const PartitionInterface &iface : boundary.interfaces) {
            expectedGroups += std::count_if(iface.inputs.begin(), iface.inputs.end(),
                                            [&](const PartitionInput &in) {
                                                return in.boundary < 0 && in.globalInput == w.input;
                                            });
        }
    }
    QVERIFY(expectedGroups > 0);
    QCOMPARE(config["param_connection"].size(), expectedGroups);
    for (const auto &in : config["input_connection"])
        QVERIFY(!isWeightInput(weights,
                               g->findByKey("%" + in["global_interface_name"].get<std::string>())));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_APPLESS_MAIN(TestWeights)
#include "tst_weights.moc"
