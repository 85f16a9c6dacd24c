// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// graph.json kernels ↔ Relay ops (cleave-cli map), plan conversion between the two levels, and
// cuts after fused blocks (--cut-after-block); the map command's JSON and the CLI's fusion
// options are tested in tests/cli/.
#include "CliRunner.h"
#include "TestSupport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/KernelMapping.h"
#include "core/analysis/OpPattern.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BlockCuts.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanConversion.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <string>
#include <vector>

using namespace cleave;

namespace {

const std::string mapDir = CLEAVE_TESTDATA_DIR "/map/";

using test::load;

std::vector<std::string> keys(const Graph &g, const std::vector<NodeId> &nodes)
{
    std::vector<std::string> out;
    for (NodeId n : nodes)
        out.push_back(g.key(n));
    return out;
}

std::string join(const std::vector<std::string> &parts)
{
    std::string out;
    for (const std::string &p : parts)
        out += (out.empty() ? "" : " ") + p;
    return out;
}

} // namespace

class TestKernelMapping : public QObject
{
    Q_OBJECT

private slots:
    void decompose_data();
    void decompose();
    void corpusKernelNamesDecompose();
    void handWrittenPairMatchesEveryKernel();
    void alteredPairsReportTheMismatch_data();
    void alteredPairsReportTheMismatch();
    void blockNames_data();
    void blockNames();
    void cutAfterBlock();
    void cutAfterMissingBlockChangesNothing();
    void kernelPlanToRelayOps();
    void relayPlanSplittingAKernelIsRefused();
};

void TestKernelMapping::decompose_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("ops");
    QTest::addColumn<bool>("truncated");
    QTest::newRow("conv-add-relu") << "tvmgen_default_fused_nn_conv2d_add_nn_relu"
                                   << "nn.conv2d add nn.relu" << false;
    QTest::newRow("repeat suffix") << "tvmgen_default_fused_nn_conv2d_add_nn_relu_13"
                                   << "nn.conv2d add nn.relu" << false;
    QTest::newRow("pre-v0.8") << "fused_nn_max_pool2d"
                              << "nn.max_pool2d" << false;
    QTest::newRow("dense pack") << "tvmgen_default_fused_nn_contrib_dense_pack_add"
                                << "nn.contrib_dense_pack add" << false;
    QTest::newRow("strided slice") << "tvmgen_default_fused_strided_slice_divide"
                                   << "strided_slice divide" << false;
    QTest::newRow("byoc") << "tvmgen_default_dnnl_main_0"
                          << "" << false;
    QTest::newRow("truncated")
        << "tvmgen_default_fused_transpose_reshape_transpose_reshape_transpose_reshape_transpose_"
           "reshape_co_6915023575542332385_"
        << "transpose reshape transpose reshape transpose reshape transpose reshape" << true;
}

void TestKernelMapping::decompose()
{
    QFETCH(QString, name);
    QFETCH(QString, ops);
    QFETCH(bool, truncated);
    bool cut = false;
    const auto parts
        = decomposeFusedName(name.toStdString(), OpPatternTable::builtin().opNames(), cut);
    QCOMPARE(QString::fromStdString(join(parts)), ops);
    QCOMPARE(cut, truncated);
}

void TestKernelMapping::corpusKernelNamesDecompose()
{
    CLEAVE_REQUIRE_CORPUS("graph_json");
    // Every Relay-era kernel of the corpus spells known ops (the NNVM file uses NNVM op names).
    const std::vector<std::string> vocabulary = OpPatternTable::builtin().opNames();
    int fused = 0;
    int truncated = 0;
    for (const char *file :
         { "resnet_deeppose_cpu.graph.json", "tinyyolov3_byoc_mera_drp.graph.json",
           "ultraface_byoc_mera_drp.graph.json" }) {
        const auto g = load(std::string(CLEAVE_CORPUS_DIR "/graph_json/") + file);
        QVERIFY2(g, file);
        for (std::size_t i = 0; i < g->nodeCount(); ++i) {
            const Node &n = g->node(NodeId(i));
            if (n.kind != NodeKind::OpCall || n.op == "__nop")
                continue;
            bool cut = false;
            const auto parts = decomposeFusedName(n.op, vocabulary, cut);
            if (parts.empty())
                continue; // a BYOC kernel
            ++fused;
            truncated += cut ? 1 : 0;
            for (const std::string &op : parts)
                QVERIFY2(OpPatternTable::builtin().contains(op), (n.op.str() + ": " + op).c_str());
        }
    }
    QCOMPARE(fused, 70); // 56 + 3 + 11 tvm_op nodes with `_fused_` in func_name
    QCOMPARE(truncated, 2);
}

void TestKernelMapping::handWrittenPairMatchesEveryKernel()
{
    const auto kernels = load(mapDir + "residual_inception.graph.json");
    const auto relay = load(mapDir + "residual_inception.relay");
    QVERIFY(kernels && relay);
    const KernelMapping m = mapKernels(*kernels, *relay);
    QCOMPARE(m.kernels.size(), std::size_t(9));
    QCOMPARE(m.matchedCount(), std::size_t(9));
    QVERIFY(m.unmatchedRelayNodes.empty());
    QVERIFY(m.isComplete());
    const std::vector<std::vector<std::string>> expected = {
        { "%0", "%1", "%2" },
        { "%3", "%4", "%5", "%6" },
        { "%7" },
        { "%8" },
        { "%9", "%10" },
        { "%12" },
        { "%13" },
        { "%14" },
        { "%15", "%ret" },
    };
    for (std::size_t k = 0; k < expected.size(); ++k) {
        QCOMPARE(keys(*relay, m.kernels[k].relayNodes), expected[k]);
        QCOMPARE(m.kernels[k].kernel.index(), 9 + k);
        QCOMPARE(m.kernels[k].firstEntry, std::uint32_t(9 + k));
        QCOMPARE(m.kernels[k].endEntry, std::uint32_t(10 + k));
    }
    QCOMPARE(join(m.kernels[1].expectedOps), std::string("nn.conv2d add add nn.relu"));
    QCOMPARE(m.kernels[7].name, std::string("reshape_nop"));
    QCOMPARE(m.kernelOf(relay->findByKey("%5"))->name,
             std::string("tvmgen_default_fused_nn_conv2d_add_add_nn_relu"));
}

void TestKernelMapping::alteredPairsReportTheMismatch_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("matched");
    QTest::addColumn<int>("firstBad");
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QString>("unmatchedOps");
    QTest::newRow("residual add missing")
        << "mismatched_residual.graph.json" << 1 << 1
        << "no unclaimed nn.relu reads the kernel's inputs (after 2 of 3 ops matched)"
        << "%3 %4 %5 %6 %7 %8 %9 %10 %12 %13 %14 %15 %ret";
    QTest::newRow("dense tail renamed")
        << "mismatched_dense.graph.json" << 8 << 8
        << "no unclaimed multiply reads the kernel's inputs (after 1 of 2 ops matched)"
        << "%15 %ret";
}

void TestKernelMapping::alteredPairsReportTheMismatch()
{
    QFETCH(QString, file);
    QFETCH(int, matched);
    QFETCH(int, firstBad);
    QFETCH(QString, problem);
    QFETCH(QString, unmatchedOps);
    const auto kernels = load(mapDir + file.toStdString());
    const auto relay = load(mapDir + "residual_inception.relay");
    QVERIFY(kernels && relay);
    const KernelMapping m = mapKernels(*kernels, *relay);
    QCOMPARE(int(m.matchedCount()), matched);
    QVERIFY(!m.isComplete());
    const KernelMatch &bad = m.kernels[std::size_t(firstBad)];
    QVERIFY(!bad.matched);
    QCOMPARE(QString::fromStdString(bad.problem), problem);
    QCOMPARE(QString::fromStdString(join(keys(*relay, m.unmatchedRelayNodes))), unmatchedOps);
    // The claimed ops of a failed kernel are released again.
    QVERIFY(bad.relayNodes.empty());

    const auto run = test::runCli({ QStringLiteral("map"), QString::fromStdString(mapDir) + file,
                                    QString::fromStdString(mapDir + "residual_inception.relay") });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains(("UNMATCHED: " + problem).toUtf8()), run.out.constData());
}

void TestKernelMapping::blockNames_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("query");
    QTest::addColumn<bool>("matches");
    QTest::newRow("short") << "fused_nn_conv2d_add_nn_relu"
                           << "nn_conv2d_add_nn_relu" << true;
    QTest::newRow("dots") << "fused_nn_conv2d_add_nn_relu"
                          << "nn.conv2d_add_nn.relu" << true;
    QTest::newRow("prefixed") << "tvmgen_default_fused_nn_conv2d_add_nn_relu_3"
                              << "fused_nn_conv2d_add_nn_relu" << true;
    QTest::newRow("variant asked") << "fused_add_1"
                                   << "add_1" << true;
    QTest::newRow("other variant") << "fused_add_2"
                                   << "add_1" << false;
    QTest::newRow("longer name") << "fused_nn_conv2d_add"
                                 << "nn_conv2d" << false;
    QTest::newRow("byoc") << "tvmgen_default_dnnl_main_0"
                          << "tvmgen_default_dnnl_main_0" << true;
}

void TestKernelMapping::blockNames()
{
    QFETCH(QString, block);
    QFETCH(QString, query);
    QFETCH(bool, matches);
    QCOMPARE(blockNameMatches(block.toStdString(), query.toStdString()), matches);
}

void TestKernelMapping::cutAfterBlock()
{
    const auto relay = load(mapDir + "residual_inception.relay");
    QVERIFY(relay);
    const auto blocks = fuseOps(*relay, relay->mainFunction());
    PartitionPlan plan(*relay);
    const PlanEdit edit = cutAfterBlocks(plan, blocks, { { "nn_max_pool2d", 0 } });
    QVERIFY(edit.diagnostics.empty());
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(keys(*relay, plan.nodesOf(plan.partitions()[0].id)),
             (std::vector<std::string> { "%0", "%1", "%2", "%3", "%4", "%5", "%6", "%7" }));
    const BoundaryTable b = computeBoundary(plan);
    QCOMPARE(b.tensors.size(), std::size_t(1));
    QCOMPARE(relay->key(b.tensors[0].tensor.node), std::string("%7"));
    QCOMPARE(keys(*relay, b.tensors[0].consumers[0].nodes),
             (std::vector<std::string> { "%8", "%9" }));
    // Undo gives the single partition back.
    plan.revert(edit);
    QCOMPARE(plan.partitionCount(), std::size_t(1));

    // Two block cuts in one edit: after the first conv block and after the concat.
    const PlanEdit two
        = cutAfterBlocks(plan, blocks, { { "nn_conv2d_add_nn_relu", 0 }, { "concatenate", 0 } });
    QVERIFY(two.diagnostics.empty());
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    QCOMPARE(plan.nodeCount(plan.partitions()[0].id), std::size_t(3));
    QCOMPARE(keys(*relay, plan.nodesOf(plan.partitions()[2].id)),
             (std::vector<std::string> { "%13", "%14", "%15", "%ret" }));
}

void TestKernelMapping::cutAfterMissingBlockChangesNothing()
{
    const auto relay = load(mapDir + "residual_inception.relay");
    QVERIFY(relay);
    const auto blocks = fuseOps(*relay, relay->mainFunction());
    PartitionPlan plan(*relay);
    const PlanEdit edit = cutAfterBlocks(plan, blocks, { { "nn_max_pool2d", 1 } });
    QCOMPARE(edit.diagnostics.size(), std::size_t(1));
    QCOMPARE(edit.diagnostics[0].code, std::string("cut.split_point_not_found"));
    QCOMPARE(
        edit.diagnostics[0].message,
        std::string("no block nn_max_pool2d:1: the function has 1 block(s) named nn_max_pool2d"));
    QCOMPARE(plan.partitionCount(), std::size_t(1));
}

void TestKernelMapping::kernelPlanToRelayOps()
{
    const auto kernels = load(mapDir + "residual_inception.graph.json");
    const auto relay = load(mapDir + "residual_inception.relay");
    QVERIFY(kernels && relay);
    const KernelMapping m = mapKernels(*kernels, *relay);
    PartitionPlan kernelPlan(*kernels);
    kernelPlan.cutAfterOp("tvmgen_default_fused_nn_max_pool2d", 0);
    QCOMPARE(kernelPlan.partitionCount(), std::size_t(2));
    const PlanConversion c = kernelPlanToRelay(kernelPlan, m, *relay);
    QVERIFY(c.plan);
    QVERIFY(c.diagnostics.empty());
    QCOMPARE(c.plan->partitionCount(), std::size_t(2));
    QCOMPARE(keys(*relay, c.plan->nodesOf(c.plan->partitions()[0].id)),
             (std::vector<std::string> { "%0", "%1", "%2", "%3", "%4", "%5", "%6", "%7" }));
    // The tuple feeding concatenate follows its producers into the second partition.
    QCOMPARE(c.plan->indexOf(c.plan->partitionOf(relay->findByKey("%11"))), 1);
    const BoundaryTable b = computeBoundary(*c.plan);
    QCOMPARE(b.tensors.size(), std::size_t(1));

    // And back: the same cut between the same kernels.
    const PlanConversion back = relayPlanToKernels(*c.plan, m, *kernels);
    QVERIFY(back.diagnostics.empty());
    QCOMPARE(back.plan->partitionCount(), std::size_t(2));
    for (std::size_t i = 0; i < kernels->nodeCount(); ++i) {
        const NodeId n(i);
        QCOMPARE(back.plan->indexOf(back.plan->partitionOf(n)),
                 kernelPlan.indexOf(kernelPlan.partitionOf(n)));
    }
}

void TestKernelMapping::relayPlanSplittingAKernelIsRefused()
{
    const auto kernels = load(mapDir + "residual_inception.graph.json");
    const auto relay = load(mapDir + "residual_inception.relay");
    QVERIFY(kernels && relay);
    const KernelMapping m = mapKernels(*kernels, *relay);
    PartitionPlan relayPlan(*relay);
    relayPlan.cutAfterOp("add", 1); // between the residual block's bias add and skip add
    const PlanConversion c = relayPlanToKernels(relayPlan, m, *kernels);
    QCOMPARE(c.diagnostics.size(), std::size_t(1));
    QCOMPARE(c.diagnostics[0].code, std::string("convert.split_kernel"));
    QCOMPARE(c.diagnostics[0].message,
             std::string("kernel tvmgen_default_fused_nn_conv2d_add_add_nn_relu runs ops of 2 "
                         "partitions (stage0, stage1: %3, %4, %5, %6); a kernel cannot be split, "
                         "so it goes with its output op"));
    QCOMPARE(c.plan->nodeCount(c.plan->partitions()[0].id), std::size_t(1));

    // Through the CLI: the converted plan is written and the exit status says it is invalid.
    QTemporaryDir dir;
    const QString planPath = dir.filePath(QStringLiteral("relay.plan.json"));
    const QString outPath = dir.filePath(QStringLiteral("kernels.plan.json"));
    QCOMPARE(test::runCli({ QStringLiteral("partition"),
                            QString::fromStdString(mapDir + "residual_inception.relay"),
                            QStringLiteral("--cut-after"), QStringLiteral("add:1"),
                            QStringLiteral("--save-plan"), planPath })
                 .exitCode,
             0);
    const auto run = test::runCli(
        { QStringLiteral("map"), QString::fromStdString(mapDir + "residual_inception.graph.json"),
          QString::fromStdString(mapDir + "residual_inception.relay"), QStringLiteral("--plan"),
          planPath, QStringLiteral("--save-plan"), outPath });
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.contains("[convert.split_kernel]"));
    QVERIFY(QFile::exists(outPath));
}

QTEST_APPLESS_MAIN(TestKernelMapping)
#include "tst_kernelmapping.moc"
