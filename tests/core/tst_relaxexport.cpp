// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "TestSupport.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace cleave;
using namespace cleave::test;

namespace {

QString corpusPath(const QString &name)
{
    return QStringLiteral(CLEAVE_CORPUS_DIR "/relax/") + name;
}

std::vector<SplitPoint> parsePoints(const QString &spec)
{
    std::vector<SplitPoint> points;
    for (const QString &p : spec.split(',', Qt::SkipEmptyParts)) {
        const int colon = p.lastIndexOf(':');
        points.push_back(
            { p.left(colon).toStdString(), static_cast<std::size_t>(p.mid(colon + 1).toInt()) });
    }
    return points;
}

/// Per Codegen function of a module: its target and the histogram of the operators inside it
/// (its Composite closures included), as a sorted list.
std::multiset<std::pair<std::string, std::map<std::string, int>>> codegenRegions(const Graph &g)
{
    std::multiset<std::pair<std::string, std::map<std::string, int>>> regions;
    for (std::size_t f = 0; f < g.functionCount(); ++f) {
        const Function &fn = g.function(FunctionId(f));
        if (fn.kind != Function::Kind::Global || fn.attrs.stringOr("Codegen", "").empty())
            continue;
        std::map<std::string, int> ops;
        for (const Node &n : g.nodes()) {
            if (n.kind == NodeKind::OpCall && g.topLevelFunction(n.function) == FunctionId(f))
                ++ops[n.op];
        }
        regions.emplace(fn.attrs.stringOr("Codegen", ""), ops);
    }
    return regions;
}

/// The Composite names of the closures inside each Codegen function, sorted.
std::multiset<std::string> composites(const Graph &g)
{
    std::multiset<std::string> names;
    for (const Function &fn : g.functions()) {
        if (fn.kind == Function::Kind::Literal && !fn.composite().empty())
            names.insert(fn.composite());
    }
    return names;
}

/// Python's own parser accepts every file (TVMScript is Python syntax).
void checkPythonSyntax(const QStringList &files)
{
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        return;
    QProcess p;
    p.start(
        python,
        QStringList { "-c", "import ast, sys\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f)" }
            + files);
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
}

} // namespace

class TestRelaxExport : public QObject
{
    Q_OBJECT

private slots:
    void exportAndVerify_data();
    void exportAndVerify();
    void byocMatchesMergeCompositeFunctions();
    void placedModule();
    void cliFunctionAndInspect();
    void samDrawnCutRecomposes();
};

void TestRelaxExport::exportAndVerify_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("cuts");
    QTest::addColumn<int>("partitions");
    QTest::newRow("resnet18 2") << "resnet18_onnx_adreno-texture_tvm-v0.26.relax.py"
                                << "relax.nn.conv2d:6" << 2;
    QTest::newRow("resnet18 4") << "resnet18_onnx_adreno-texture_tvm-v0.26.relax.py"
                                << "relax.nn.conv2d:3,relax.nn.conv2d:9,relax.nn.conv2d:15" << 4;
    QTest::newRow("sam 2") << "sam-vit-b_pytorch_cutlass-test_2023.relax.py"
                           << "relax.matmul:40" << 2;
    QTest::newRow("sam 3") << "sam-vit-b_pytorch_cutlass-test_2023.relax.py"
                           << "relax.matmul:20,relax.nn.conv2d:1" << 3;
    QTest::newRow("diamond 2") << "diamond-A-B-A_before-merge_tvm-test.relax.py"
                               << "fused_relax_nn_conv2d:0" << 2;
    QTest::newRow("diamond 3") << "diamond-A-B-A_before-merge_tvm-test.relax.py"
                               << "fused_relax_nn_relu:0,fused_relax_nn_gelu:0" << 3;
    QTest::newRow("merged diamond 2") << "diamond-A-B-A_merged-codegen_tvm-test.relax.py"
                                      << "fused_relax_nn_conv2d_relax_nn_relu_compiler_A:0" << 2;
}

void TestRelaxExport::exportAndVerify()
{
    QFETCH(QString, file);
    QFETCH(QString, cuts);
    QFETCH(int, partitions);
    if (!QFile::exists(corpusPath(file)))
        QSKIP("the Relax corpus is not available");
    const auto graph = loadOrAbort(corpusPath(file));
    PartitionPlan plan(*graph);
    const PlanEdit edit = plan.cutAfterOps(parsePoints(cuts));
    QVERIFY2(!hasErrors(edit.diagnostics),
             edit.diagnostics.empty() ? "" : edit.diagnostics.front().message.c_str());
    QCOMPARE(int(plan.partitionCount()), partitions);
    const BoundaryTable boundary = computeBoundary(plan);
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/out";
    const ExportResult r = exportPartitions(plan, boundary, {}, dir.toStdString());
    QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());
    QVERIFY(!QFile::exists(dir + "/pipeline_config.json")); // no pipeline executor in TVM >= 0.20
    QVERIFY(QFile::exists(dir + "/partitions.json"));
    QVERIFY(QFile::exists(dir + "/placed.relax.py"));
    QVERIFY(QFile::exists(dir + "/build_relax.py"));
    QStringList python { dir + "/placed.relax.py", dir + "/build_relax.py" };
    int metadataModules = 0;
    for (int k = 0; k < partitions; ++k) {
        const QString mod = dir + QStringLiteral("/mod%1.relax.py").arg(k);
        python << mod;
        const ImportResult m = importFile(mod.toStdString());
        QVERIFY2(m.ok(), m.firstError().c_str());
        QCOMPARE(QString::fromStdString(m.graph->format()), QStringLiteral("relax"));
        const FunctionId main = m.graph->findFunction("main");
        QVERIFY(main.isValid());
        // main takes the boundary tensors, named as the boundary table names them.
        const auto &inputs = boundary.interfaces[static_cast<std::size_t>(k)].inputs;
        QCOMPARE(m.graph->function(main).params.size(), inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i)
            QCOMPARE(m.graph->node(m.graph->function(main).params[i]).name, inputs[i].name);
        // Its outputs, plus the global inputs it forwards to later readers (read by several
        // partitions, entering the first one).
        std::size_t forwarded = 0;
        for (NodeId in : plan.view().inputs()) {
            std::vector<int> readers;
            for (std::size_t j = 0; j < boundary.interfaces.size(); ++j) {
                for (const PartitionInput &pi : boundary.interfaces[j].inputs) {
                    if (pi.boundary < 0 && pi.globalInput == in)
                        readers.push_back(int(j));
                }
            }
            forwarded += readers.size() > 1 && readers.front() == k ? 1 : 0;
        }
        QCOMPARE(m.graph->outputs(main).size(),
                 boundary.interfaces[static_cast<std::size_t>(k)].outputs.size() + forwarded);
        // Only the PrimFuncs its kernels call.
        std::set<std::string> called;
        for (const Node &n : m.graph->nodes()) {
            if (n.kind == NodeKind::OpCall && n.attrs.stringOr("call", "") == "call_tir")
                called.insert(n.op);
        }
        std::set<std::string> prims;
        for (const Function &f : m.graph->functions()) {
            if (!f.sourceText.empty())
                prims.insert(f.name);
        }
        QCOMPARE(prims, called);
        metadataModules += m.graph->metadata().empty() ? 0 : 1;
    }
    if (!graph->metadata().empty()) {
        // SAM: the one constant of the header lives in the partition that reads it.
        QCOMPARE(metadataModules, 1);
    }
    checkPythonSyntax(python);
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestRelaxExport::byocMatchesMergeCompositeFunctions()
{
    const QString before = corpusPath("diamond-A-B-A_before-merge_tvm-test.relax.py");
    const QString merged = corpusPath("diamond-A-B-A_merged-codegen_tvm-test.relax.py");
    if (!QFile::exists(before) || !QFile::exists(merged))
        QSKIP("the Relax corpus is not available");
    const auto graph = loadOrAbort(before);
    PartitionPlan plan(*graph);
    // {conv2d, relu} on A, {gelu} on B, {add} on A: A -> B -> A with a direct A -> A edge.
    plan.cutAfterOps(parsePoints("fused_relax_nn_relu:0,fused_relax_nn_gelu:0"));
    QCOMPARE(int(plan.partitionCount()), 3);
    ExportOptions options;
    options.targets = { "compiler_A", "compiler_B", "compiler_A" };
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/byoc";
    const ExportResult r
        = exportPartitions(plan, computeBoundary(plan), options, dir.toStdString());
    QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());
    const auto byoc = loadOrAbort(dir + "/byoc.relax.py");
    const auto reference = loadOrAbort(merged);
    const auto mine = codegenRegions(*byoc);
    QCOMPARE(mine.size(), std::size_t(3));
    QVERIFY(mine == codegenRegions(*reference));
    QVERIFY(composites(*byoc) == composites(*reference));
    // main calls the three regions.
    const FunctionId main = byoc->findFunction("main");
    int calls = 0;
    for (NodeId n : byoc->function(main).nodes) {
        const Node &node = byoc->node(n);
        calls += node.kind == NodeKind::FunctionCall
            && !byoc->function(node.callee).attrs.stringOr("Codegen", "").empty();
    }
    QCOMPARE(calls, 3);
    checkPythonSyntax({ dir + "/byoc.relax.py" });
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestRelaxExport::placedModule()
{
    const QString resnet = corpusPath("resnet18_onnx_adreno-texture_tvm-v0.26.relax.py");
    if (!QFile::exists(resnet))
        QSKIP("the Relax corpus is not available");
    const auto graph = loadOrAbort(resnet);
    PartitionPlan plan(*graph);
    plan.cutAfterOps(parsePoints("relax.nn.conv2d:5,relax.nn.conv2d:12"));
    QCOMPARE(int(plan.partitionCount()), 3);
    const BoundaryTable boundary = computeBoundary(plan);
    ExportOptions options;
    options.targets = { "cuda", "llvm", "cuda" };
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/placed";
    const ExportResult r = exportPartitions(plan, boundary, options, dir.toStdString());
    QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());
    const auto placed = loadOrAbort(dir + "/placed.relax.py");
    const AttrValue *infos = placed->moduleAttrs().find("global_infos");
    QVERIFY(infos);
    QCOMPARE(QString::fromStdString(infos->text),
             QStringLiteral("{\"vdevice\": [I.vdevice(\"cuda\", 0), I.vdevice(\"llvm\", 0), "
                            "I.vdevice(\"cuda\", 1)]}"));
    const char *devices[] = { "cuda:0", "llvm:0", "cuda:1" };
    // One R.to_vdevice per (boundary tensor, consuming partition), to the consumer's device.
    std::size_t expectedMoves = 0;
    for (const BoundaryTensor &t : boundary.tensors)
        expectedMoves += t.consumers.size();
    std::size_t moves = 0;
    const FunctionId main = placed->findFunction("main");
    for (NodeId n : placed->function(main).nodes) {
        const Node &node = placed->node(n);
        if (node.op == "relax.to_vdevice") {
            ++moves;
            QCOMPARE(node.outputType().name, node.attrs.stringOr("dst_vdevice", ""));
        }
    }
    QCOMPARE(moves, expectedMoves);
    // Every tensor binding carries its partition's vdevice.
    for (NodeId n : plan.view().order()) {
        const Node &src = graph->node(n);
        if (src.kind != NodeKind::OpCall || !src.outputType().isTensor())
            continue;
        const NodeId copy = placed->findByKey(graph->key(n));
        QVERIFY2(copy.isValid(), graph->key(n).c_str());
        const int k = plan.indexOf(plan.partitionOf(n));
        QCOMPARE(placed->node(copy).outputType().name, std::string(devices[k]));
        QCOMPARE(placed->node(copy).outputType().shape, src.outputType().shape);
    }
    checkPythonSyntax({ dir + "/placed.relax.py" });
}

void TestRelaxExport::cliFunctionAndInspect()
{
    const QString llama = corpusPath("llama7b-1layer_mlc-before-quantize_2023.relax.py");
    if (!QFile::exists(llama) || !QFile::exists(QStringLiteral(CLEAVE_CLI_PATH)))
        QSKIP("the Relax corpus or cleave-cli is not available");
    // inspect --json: format "relax"; `decoding` holds 4 call_packed kernels among its ops.
    QProcess inspect;
    inspect.start(QStringLiteral(CLEAVE_CLI_PATH), { "inspect", llama, "--json" });
    QVERIFY(inspect.waitForFinished(60000));
    QCOMPARE(inspect.exitCode(), 0);
    const QJsonObject summary = QJsonDocument::fromJson(inspect.readAllStandardOutput()).object();
    QCOMPARE(summary.value("format").toString(), QStringLiteral("relax"));
    QCOMPARE(summary.value("ops").toObject().value("vm.builtin.attention_kv_cache_append").toInt(),
             4);
    // partition --function decoding: the plan and the export work on that function.
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/decoding";
    QProcess partition;
    partition.start(QStringLiteral(CLEAVE_CLI_PATH),
                    { "partition", llama, "--function", "decoding", "--cut-after", "relax.matmul:3",
                      "--out", dir });
    QVERIFY(partition.waitForFinished(60000));
    QVERIFY2(QFile::exists(dir + "/mod1.relax.py"), partition.readAllStandardError().constData());
    QFile manifest(dir + "/partitions.json");
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    const QJsonObject m = QJsonDocument::fromJson(manifest.readAll()).object();
    QCOMPARE(m.value("source").toObject().value("function").toString(), QStringLiteral("decoding"));
    QCOMPARE(m.value("module_format").toString(), QStringLiteral("relax"));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
    QProcess unknown;
    unknown.start(QStringLiteral(CLEAVE_CLI_PATH),
                  { "partition", llama, "--function", "rms_norm" });
    QVERIFY(unknown.waitForFinished(60000));
    QCOMPARE(unknown.exitCode(), 2); // a PrimFunc is not a dataflow function
}

// The plan drawn in the editor on SAM ViT-H's `forward` (../shared/repro): the stroke left the
// rotary tables `sin1` / `cos1` (computed from constants only) in stage0, which handed them to
// stage1 as the fields of the inline tuple `(sin1, cos1)`. Weight-only values now follow their
// consumers, so they are computed in stage1 and mod0 neither lists nor returns them; the export
// still recomposes the source.
void TestRelaxExport::samDrawnCutRecomposes()
{
    const QString sam = corpusPath("sam-vit-h_pytorch_metadata_2023.relax.py");
    const QString plan
        = QStringLiteral(CLEAVE_CORPUS_DIR "/../repro/sam_vit_h_drawn_cut.plan.json");
    if (!QFile::exists(sam) || !QFile::exists(plan) || !QFile::exists(CLEAVE_CLI_PATH))
        QSKIP("the SAM ViT-H module, its drawn plan or cleave-cli is not available");
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/sam";
    QProcess partition;
    partition.start(QStringLiteral(CLEAVE_CLI_PATH),
                    { "partition", sam, "--plan", plan, "--out", dir });
    QVERIFY(partition.waitForFinished(120000));
    QVERIFY2(partition.exitCode() == 0, partition.readAllStandardError().constData());
    QFile mod0(dir + "/mod0.relax.py");
    QVERIFY(mod0.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(mod0.readAll());
    const QRegularExpression output(QStringLiteral("R\\.output\\(([^)]*)\\)"));
    const QRegularExpressionMatch m = output.match(text);
    QVERIFY(m.hasMatch());
    const QStringList listed = m.captured(1).split(QStringLiteral(", "));
    QVERIFY(!listed.contains(QStringLiteral("sin1")));
    QVERIFY(!listed.contains(QStringLiteral("cos1")));
    QVERIFY(!text.contains(QStringLiteral("sin1")));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_GUILESS_MAIN(TestRelaxExport)
#include "tst_relaxexport.moc"
