// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// ONNX models get the same analysis as Relay: FLOPs by the Relay formulas, FuseOps grouping.
#include "core/analysis/Cost.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace cleave;

namespace {

std::unique_ptr<Graph> sample()
{
    ImportResult r = importFile(std::string(CLEAVE_SAMPLES_DIR) + "/resnet_inception.onnx");
    return r.ok() ? std::move(r.graph) : nullptr;
}

} // namespace

class TestOnnxParity : public QObject
{
    Q_OBJECT

private slots:
    void flopsByRelayFormulas_data();
    void flopsByRelayFormulas();
    void fuseOpsGroupsConvBnRelu();
    void byocTargetNamesExecutionProviders();
};

void TestOnnxParity::flopsByRelayFormulas_data()
{
    QTest::addColumn<QString>("node");
    QTest::addColumn<qlonglong>("flops");
    // samples/gen_onnx_sample.py, input 1×3×32×32:
    // stem.conv: 3→16, 3×3, pad 1 → out 1×16×32×32 = 16384; K = 3·3·3 = 27 → 2·16384·27.
    QTest::newRow("Conv") << QStringLiteral("stem.conv") << qlonglong(2LL * 16384 * 27);
    // pool: MaxPool 2×2 / 2 on 1×24×16×16 → 1×24×8×8 = 1536 outputs × window 4.
    QTest::newRow("MaxPool") << QStringLiteral("pool") << qlonglong(1536LL * 4);
    // fc: Gemm 32 → 10 with transB: 2·M·N·K = 2·1·10·32.
    QTest::newRow("Gemm") << QStringLiteral("fc") << qlonglong(2LL * 10 * 32);
    // stem.relu: one operation per output element, 16384.
    QTest::newRow("Relu") << QStringLiteral("stem.relu") << qlonglong(16384);
    // stem.bn: batch norm counts two operations per input element, as nn.batch_norm.
    QTest::newRow("BatchNormalization") << QStringLiteral("stem.bn") << qlonglong(2LL * 16384);
}

void TestOnnxParity::flopsByRelayFormulas()
{
    QFETCH(QString, node);
    QFETCH(qlonglong, flops);
    const auto g = sample();
    QVERIFY(g);
    const NodeId id = g->findByKey(node.toStdString());
    QVERIFY2(id.isValid(), qPrintable(node));
    QCOMPARE(static_cast<qlonglong>(nodeFlops(*g, id)), flops);
}

void TestOnnxParity::fuseOpsGroupsConvBnRelu()
{
    const auto g = sample();
    QVERIFY(g);
    const std::vector<FusedBlock> blocks = fuseOps(*g, g->mainFunction());
    auto blockOf = [&](const char *key) -> const FusedBlock * {
        const NodeId id = g->findByKey(key);
        for (const FusedBlock &b : blocks) {
            if (std::find(b.nodes.begin(), b.nodes.end(), id) != b.nodes.end())
                return &b;
        }
        return nullptr;
    };
    // As TVM after from_onnx + SimplifyInference: the conv takes its batch norm and relu.
    const FusedBlock *stem = blockOf("stem.conv");
    QVERIFY(stem);
    QCOMPARE(blockOps(*g, *stem),
             (std::vector<std::string> { "Conv", "BatchNormalization", "Relu" }));
    QCOMPARE(stem->name, std::string("fused_Conv_BatchNormalization_Relu"));
    // The residual tail: conv2 + bn2 + the shortcut Add + the block's last Relu.
    const FusedBlock *tail = blockOf("layer1.conv2");
    QVERIFY(tail);
    QCOMPARE(blockOps(*g, *tail),
             (std::vector<std::string> { "Conv", "BatchNormalization", "Add", "Relu" }));
    // Two convolutions never share a block.
    QVERIFY(blockOf("layer1.conv1") != tail);
}

void TestOnnxParity::byocTargetNamesExecutionProviders()
{
    const auto g = sample();
    QVERIFY(g);
    PartitionPlan plan(*g);
    QVERIFY(!hasErrors(plan.cutAfterOps({ { "MaxPool", 0 } }).diagnostics));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    ExportOptions options;
    options.targets = { "llvm", "dnnl" };
    const ExportResult r
        = exportPartitions(plan, computeBoundary(plan), options, dir.toStdString());
    QVERIFY(r.ok);
    // ONNX modules, never Relay text around ONNX ops.
    QVERIFY(std::find(r.files.begin(), r.files.end(), "mod1.onnx") != r.files.end());
    QVERIFY(std::find(r.files.begin(), r.files.end(), "byoc.relay") == r.files.end());
    QVERIFY(std::find(r.files.begin(), r.files.end(), "byoc_annotated.relay") == r.files.end());
    QFile f(dir + QStringLiteral("/partitions.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto manifest = nlohmann::json::parse(f.readAll().toStdString());
    QCOMPARE(manifest["partitions"][0]["execution_provider"].get<std::string>(),
             std::string("CPUExecutionProvider"));
    QCOMPARE(manifest["partitions"][1]["execution_provider"].get<std::string>(),
             std::string("DnnlExecutionProvider"));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_APPLESS_MAIN(TestOnnxParity)
#include "tst_onnx_parity.moc"
