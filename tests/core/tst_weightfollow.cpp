// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Weight-only subgraphs follow their consumers in every plan edit, and weights passed as inputs
// count where they live: on the real rnnt Relay dump (LSTM weights as inputs) and the SAM ViT-H
// Relax module, a cut across the edges leaving a layer moves what --cut-after at that layer
// moves, no stage falls into pieces because of weights, and Params per stage equal an
// independent count of the weight bytes each stage reads.
#include "TestSupport.h"
#include "TiedWeights.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/RandomOps.h"
#include "core/auto/AutoPlan.h"
#include "core/auto/StageSearch.h"
#include "core/formats/Exporter.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionCost.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/PlanFile.h"
#include "core/partition/WeightFollowers.h"
#include "core/validation/CutCost.h"
#include "core/validation/Validation.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

using namespace cleave;
using namespace cleave::test;

namespace {

const char *rnntFile = "rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt";
const char *samFile = "sam-vit-h_pytorch_metadata_2023.relax.py";

std::int64_t boundaryBytes(const PartitionPlan &plan)
{
    std::int64_t bytes = 0;
    for (const PartitionInterface &i : computeBoundary(plan).interfaces)
        bytes += i.bytesOut;
    return bytes;
}

/// The cut a stroke across every edge leaving `node` makes (what the editor's cut tool does
/// with the edges it crossed).
PlanEdit cutAcrossOutEdges(PartitionPlan &plan, NodeId node)
{
    std::vector<EdgeRef> edges;
    for (const FlowEdge &e : plan.view().outEdges(node))
        edges.push_back({ e.tensor, e.consumer });
    return plan.cutAcrossEdges(edges);
}

/// The cut a horizontal stroke at the height of `node` makes in a layered drawing (dot ranks
/// nodes by their longest path from the sources): it crosses every edge from a node ranked at
/// or above `node` to a node ranked below it, in every column the line runs through.
PlanEdit cutAcrossSpanningEdges(PartitionPlan &plan, NodeId node)
{
    const FunctionView &v = plan.view();
    std::vector<std::int32_t> rank(v.graph().nodeCount(), 0);
    for (NodeId n : v.assignableNodes()) {
        for (const FlowEdge *e : v.inEdges(n))
            rank[n.index()] = std::max(rank[n.index()], rank[e->tensor.node.index()] + 1);
    }
    const std::int32_t line = rank[node.index()];
    std::vector<EdgeRef> edges;
    for (NodeId n : v.assignableNodes()) {
        if (rank[n.index()] > line)
            continue;
        for (const FlowEdge &e : v.outEdges(n)) {
            if (rank[e.consumer.index()] > line)
                edges.push_back({ e.tensor, e.consumer });
        }
    }
    return plan.cutAcrossEdges(edges);
}

std::size_t disconnectedCount(const PartitionPlan &plan)
{
    return withCode(validateAll(plan, computeBoundary(plan), {}), "partition.disconnected").size();
}

} // namespace

class TestWeightFollow : public QObject
{
    Q_OBJECT

private slots:
    void weightOnlyNodesFollowTheirConsumer();
    void tiedWeightIsComputedAgainNotSent();
    void costlyWeightValueIsSent();
    void drawnCutMovesWhatCutAfterMoves_data();
    void drawnCutMovesWhatCutAfterMoves();
    void samDrawnPlanFileNoLongerShipsWeights();
    void rnntParamsAreTheWeightsEachStageReads();
    void autoNamesStagesInOrderAndKeepsKernels_data();
    void autoNamesStagesInOrderAndKeepsKernels();
    void largestPublicFunctionOpensFirst();
    void impliedCostBeyondTenTimesIsNotValid();
    void randomDrawsAreNeverComputedAgain();
};

void TestWeightFollow::weightOnlyNodesFollowTheirConsumer()
{
    // %w is a weight (read as the dense weight through a transpose), %x the activation.
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("two_dense.relay"));
    QVERIFY(writeAll(path, R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %w1: Tensor[(8, 8), float32], %w2: Tensor[(8, 8), float32]) {
  %0 = transpose(%w1) /* ty=Tensor[(8, 8), float32] */;
  %1 = transpose(%w2) /* ty=Tensor[(8, 8), float32] */;
  %2 = nn.dense(%x, %0) /* ty=Tensor[(1, 8), float32] */;
  %3 = nn.relu(%2) /* ty=Tensor[(1, 8), float32] */;
  %4 = nn.dense(%3, %1) /* ty=Tensor[(1, 8), float32] */;
  %4
}
)"));
    const auto g = loadOrAbort(path);
    PartitionPlan plan(*g);
    QCOMPARE(plan.weightFollowers().nodes(), nodes(*g, { "%0", "%1" }));
    // A cut after the relu: %1 (the second layer's transposed weight) is no descendant of the
    // cut, yet it goes with its consumer instead of travelling 256 B from stage0.
    const PlanEdit edit = plan.cutAcrossEdges({ { { node(*g, "%3"), 0 }, node(*g, "%4") } });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(plan.partitionOf(node(*g, "%1")), plan.partitionOf(node(*g, "%4")));
    QCOMPARE(plan.partitionOf(node(*g, "%0")), plan.partitionOf(node(*g, "%2")));
    QCOMPARE(boundaryBytes(plan), std::int64_t(1 * 8 * 4)); // only %3 crosses
    QVERIFY(edit.impliedEdges.empty());
    // Undo and redo replay the move with the cut.
    plan.revert(edit);
    QCOMPARE(plan.partitionCount(), std::size_t(1));
    plan.apply(edit);
    QCOMPARE(plan.partitionOf(node(*g, "%1")), plan.partitionOf(node(*g, "%4")));
    // A selection of only the weight preprocessing is not a stage: it stays with its consumer.
    const PartitionId before = plan.partitionOf(node(*g, "%1"));
    plan.partitionFromSelection(nodes(*g, { "%1" }));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(plan.partitionOf(node(*g, "%1")), before);
    // Params: %w1 (256 B) in stage0, %w2 (256 B) in stage1, each where it is read.
    const auto costs = partitionCosts(plan, computeBoundary(plan));
    QCOMPARE(costs[0].weightInputBytes, std::int64_t(8 * 8 * 4));
    QCOMPARE(costs[1].weightInputBytes, std::int64_t(8 * 8 * 4));
}

namespace {

QStringList interfaceInputs(const BoundaryTable &t, std::size_t k)
{
    QStringList names;
    for (const PartitionInput &in : t.interfaces[k].inputs)
        names << QString::fromStdString(in.name);
    return names;
}

} // namespace

void TestWeightFollow::tiedWeightIsComputedAgainNotSent()
{
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("tied.relay"));
    QVERIFY(writeAll(path, tiedWeightsRelay));
    const auto g = loadOrAbort(path);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.relu", 0 }, { "nn.relu", 1 } });
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    QCOMPARE(plan.weightFollowers().nodes(), nodes(*g, { "%0", "%1" }));
    // The tied weight sits with its first reader, %2 in stage0.
    QCOMPARE(plan.partitionOf(node(*g, "%1")), plan.partitionOf(node(*g, "%2")));

    const BoundaryTable t = computeBoundary(plan);
    // Only the activations cross: %3 and %5, 1x8 float32 = 32 B each. Sending %1 (8x8 float32,
    // 256 B) to stage1 and stage2 would cost 256 B each per inference; recomputing it there is
    // a transpose (0 FLOPs) and a multiply (64 FLOPs).
    QCOMPARE(t.tensors.size(), std::size_t(2));
    QCOMPARE(t.tensors[0].tensor.node, node(*g, "%3"));
    QCOMPARE(t.tensors[1].tensor.node, node(*g, "%5"));
    QCOMPARE(t.interfaces[0].bytesOut, std::int64_t(32));
    QCOMPARE(t.interfaces[1].bytesIn, std::int64_t(32));
    QCOMPARE(t.interfaces[2].bytesIn, std::int64_t(32));
    QVERIFY(t.interfaces[0].replicas.empty());
    QCOMPARE(t.interfaces[1].replicas, nodes(*g, { "%0", "%1" }));
    QCOMPARE(t.interfaces[2].replicas, nodes(*g, { "%0", "%1" }));
    // Each later stage reads the weights themselves, in first-use order (the replicas first).
    QCOMPARE(interfaceInputs(t, 1), (QStringList { "w", "s", "data_n_0" }));
    QCOMPARE(interfaceInputs(t, 2), (QStringList { "w", "s", "data_n_1" }));
    QCOMPARE(t.replicated.size(), std::size_t(1));
    const ReplicatedValue &r = t.replicated.front();
    QCOMPARE(r.tensor.node, node(*g, "%1"));
    QCOMPARE(r.readers,
             (std::vector<PartitionId> { plan.partitions()[1].id, plan.partitions()[2].id }));
    QCOMPARE(r.nodes, nodes(*g, { "%0", "%1" }));
    QCOMPARE(r.flops, std::int64_t(64));
    QCOMPARE(r.bytes, std::optional<std::int64_t>(256));

    const auto all = validateAll(plan, t, {});
    QCOMPARE(withCode(all, "partition.weight_crossing").size(), std::size_t(0));
    const auto duplicated = withCode(all, "partition.weight_duplicated");
    QCOMPARE(duplicated.size(), std::size_t(1));
    QCOMPARE(duplicated.front().severity, Severity::Info);
    QVERIFY2(duplicated.front().message.find("stage1, stage2 read it too and compute it again "
                                             "from the weights (2 nodes")
                     != std::string::npos
                 && duplicated.front().message.find("instead of receiving 256 B")
                     != std::string::npos,
             duplicated.front().message.c_str());
    // Params: every stage holds %w (256 B) and %s (32 B); the replicas' FLOPs count where they
    // run: stage1 = its dense (2*8*8 = 128) + relu (8) + the multiply (64).
    const auto costs = partitionCosts(plan, t);
    for (const PartitionCost &c : costs)
        QCOMPARE(c.weightInputBytes, std::int64_t(256 + 32));
    QCOMPARE(costs[1].ops, std::size_t(2));

    // The export computes %1 in each module and recomposes the source.
    const QString dir = tmp.filePath(QStringLiteral("out"));
    const ExportResult exported = exportPartitions(plan, t, {}, dir.toStdString());
    QVERIFY2(exported.ok,
             exported.diagnostics.empty() ? "" : exported.diagnostics.front().toString().c_str());
    for (int k = 1; k <= 2; ++k) {
        const QString module
            = QString::fromStdString(readAll(dir + QStringLiteral("/mod%1.relay").arg(k)));
        QVERIFY2(module.contains(QStringLiteral("transpose(%w)"))
                     && module.contains(QStringLiteral("multiply(")),
                 qPrintable(module));
        QVERIFY(module.contains(QStringLiteral("def @main(%w: Tensor[(8, 8), float32], %s: "
                                               "Tensor[(8), float32], %data_n_")));
    }
    const auto manifest = nlohmann::json::parse(readAll(dir + "/partitions.json"));
    std::vector<std::string> groups;
    for (const auto &p : manifest["params"]) {
        if (p["name"] == "w") {
            for (const auto &c : p["param_connection"])
                groups.push_back(c["global_param_name"].get<std::string>());
        }
    }
    QCOMPARE(groups, (std::vector<std::string> { "w@mod0", "w@mod1", "w@mod2" }));
    const VerifyResult verified = verifyExport(dir.toStdString());
    QVERIFY2(verified.ok, verified.firstDifference.c_str());
}

void TestWeightFollow::costlyWeightValueIsSent()
{
    // ww = w x w is 2*4096^3 = 1.37e11 FLOPs (0.137 s at 1 TFLOP/s) for 64 MiB (6.7 ms at
    // 10 GB/s): sending it is cheaper, so it crosses and the warning counts it.
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("costly.relax.py"));
    QVERIFY(writeAll(path, R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4096), dtype="float32"), w: R.Tensor((4096, 4096), dtype="float32")) -> R.Tensor((1, 4096), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            ww: R.Tensor((4096, 4096), dtype="float32") = R.matmul(w, w, out_dtype=None)
            h: R.Tensor((1, 4096), dtype="float32") = R.matmul(x, ww, out_dtype=None)
            r: R.Tensor((1, 4096), dtype="float32") = R.nn.relu(h)
            y: R.Tensor((1, 4096), dtype="float32") = R.matmul(r, ww, out_dtype=None)
            R.output(y)
        return y
)"));
    const auto g = loadOrAbort(path);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "relax.nn.relu", 0 } });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(plan.weightFollowers().nodes(), nodes(*g, { "ww" }));
    QVERIFY(!replicationIsCheaper(std::int64_t(2) * 4096 * 4096 * 4096, 4096 * 4096 * 4));
    const BoundaryTable t = computeBoundary(plan);
    QVERIFY(t.replicated.empty());
    QVERIFY(t.interfaces[1].replicas.empty());
    QCOMPARE(t.interfaces[1].bytesIn, std::int64_t(4096 * 4) + std::int64_t(4096) * 4096 * 4);
    const auto all = validateAll(plan, t, {});
    QCOMPARE(withCode(all, "partition.weight_crossing").size(), std::size_t(1));
    QCOMPARE(withCode(all, "partition.weight_duplicated").size(), std::size_t(0));
}

void TestWeightFollow::drawnCutMovesWhatCutAfterMoves_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("function");
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("layer");
    QTest::addColumn<bool>("spanning");
    QTest::addColumn<qint64>("expectedBytes");
    QTest::addColumn<qint64>("independentBytes");
    // rnnt: a horizontal stroke across both pre_rnn LSTM columns at the layer-0 dense of time
    // step 50 (nn.dense:100: two denses per step), crossing every edge that spans that height.
    // By hand from the model text: the step's gate pre-activation (1×4096 float32, 16 KiB),
    // the h and c states of both layers (4 × 1×1024, 16 KiB), the 226 input frames of steps
    // 51–276 (1×240 each, 960 B) and the layer-1 outputs of steps 0–48 waiting for the
    // time-reduction stack (49 × 1×1024, 4 KiB each): 450,432 B. The stroke leaves above it
    // what reads only other inputs, which --cut-after (program order) puts after: the
    // prediction network on `txt` (its 1×48×512 float32 output, 98,304 B) and the `feat_lens`
    // output (1 int32).
    QTest::newRow("rnnt step 50") << QString::fromLatin1(rnntFile) << QStringLiteral("main")
                                  << QStringLiteral("nn.dense") << 100 << QStringLiteral("%2727")
                                  << true << qint64(16384 + 4 * 4096 + 226 * 960 + 49 * 4096)
                                  << qint64(48 * 512 * 4 + 4);
    // SAM ViT-H: the residual add closing vision block 17 (add507, 1×64×64×1280 float32 =
    // 20 MiB); it is the 180th R.add of forward in program order. Left above the stroke: the
    // prompt encoder on `input_points` (1×1×7×128 and two 1×1×7×256 float32 tensors).
    QTest::newRow("sam block 17") << QString::fromLatin1(samFile) << QStringLiteral("forward")
                                  << QStringLiteral("relax.add") << 179
                                  << QStringLiteral("@forward:add507") << false
                                  << qint64(1LL * 64 * 64 * 1280 * 4)
                                  << qint64(1 * 7 * 128 * 4 + 2 * 7 * 256 * 4);
}

void TestWeightFollow::drawnCutMovesWhatCutAfterMoves()
{
    QFETCH(QString, model);
    QFETCH(QString, function);
    QFETCH(QString, op);
    QFETCH(int, index);
    QFETCH(QString, layer);
    QFETCH(bool, spanning);
    QFETCH(qint64, expectedBytes);
    QFETCH(qint64, independentBytes);
    const QString sub
        = model.endsWith(QLatin1String(".py")) ? QStringLiteral("relax") : QStringLiteral("relay");
    const QString path = corpusDir(sub.toLatin1().constData()).filePath(model);
    if (!QFile::exists(path))
        QSKIP("the corpus model is missing");
    const auto g = loadOrAbort(path);
    const FunctionId f = g->findFunction(function.toStdString());
    QVERIFY(f.isValid());

    PartitionPlan drawn(*g, f);
    const NodeId at = node(*g, layer.toLatin1().constData());
    if (spanning)
        cutAcrossSpanningEdges(drawn, at);
    else
        cutAcrossOutEdges(drawn, at);
    PartitionPlan cutAfter(*g, f);
    cutAfter.cutAfterOp(op.toStdString(), static_cast<std::size_t>(index));
    QCOMPARE(drawn.partitionCount(), std::size_t(2));
    QCOMPARE(cutAfter.partitionCount(), std::size_t(2));
    // --cut-after at the layer moves exactly the layer's output.
    QCOMPARE(boundaryBytes(cutAfter), expectedBytes);
    // The stroke moves the same within 10 %, besides the branches that read other inputs only.
    const double ratio = double(boundaryBytes(drawn)) / double(expectedBytes + independentBytes);
    QVERIFY2(
        ratio >= 0.9 && ratio <= 1.1,
        qPrintable(
            QStringLiteral("drawn %1 B vs %2 B").arg(boundaryBytes(drawn)).arg(expectedBytes)));
    // No weight crosses and no stage falls into pieces because of weights: every weight-only
    // node sits in the earliest stage that reads it, so it is joined to a reader there.
    QCOMPARE(disconnectedCount(cutAfter), std::size_t(0));
    for (const PartitionPlan *plan : { &drawn, &cutAfter }) {
        const auto all = validateAll(*plan, computeBoundary(*plan), {});
        QCOMPARE(withCode(all, "partition.weight_crossing").size(), std::size_t(0));
        for (NodeId n : plan->weightFollowers().nodes()) {
            int first = -1;
            for (const FlowEdge &e : plan->view().outEdges(n)) {
                const int i = plan->indexOf(plan->partitionOf(e.consumer));
                first = first < 0 || (i >= 0 && i < first) ? i : first;
            }
            if (first >= 0)
                QCOMPARE(plan->indexOf(plan->partitionOf(n)), first);
        }
    }
}

void TestWeightFollow::samDrawnPlanFileNoLongerShipsWeights()
{
    const QString path = corpusDir("relax").filePath(QString::fromLatin1(samFile));
    const QString planPath
        = QStringLiteral(CLEAVE_CORPUS_DIR "/../repro/sam_vit_h_drawn_cut.plan.json");
    if (!QFile::exists(path) || !QFile::exists(planPath))
        QSKIP("the SAM corpus model or its drawn plan is missing");
    const auto g = loadOrAbort(path);
    PlanLoadOptions options;
    options.force = true; // the plan names the model by a path relative to the repro folder
    const PlanLoadResult loaded = loadPlanFile(*g, planPath.toStdString(), options);
    QVERIFY(loaded.plan);
    const PartitionPlan *plan = &*loaded.plan;
    // The plan was drawn with the stroke just before add507: add500 and the attention output
    // strided_slice45 (1×64×64×1280 float32 each, 20 MiB) cross, plus the three small tensors
    // of the prompt encoder (it reads only input_points) that the stroke left above it. No
    // weight crosses (forward declares num_input 3: the rest of its parameters are weights,
    // the no-mask embedding among them): before, 1.14 GiB did.
    const std::int64_t activations = 2LL * 64 * 64 * 1280 * 4;
    const std::int64_t prompts = 1LL * 7 * 128 * 4 + 2LL * 7 * 256 * 4;
    QCOMPARE(boundaryBytes(*plan), activations + prompts);
}

void TestWeightFollow::rnntParamsAreTheWeightsEachStageReads()
{
    const QString path = corpusDir("relay").filePath(QString::fromLatin1(rnntFile));
    if (!QFile::exists(path))
        QSKIP("the rnnt corpus model is missing");
    const auto g = loadOrAbort(path);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.dense", 100 }, { "nn.dense", 600 } });
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    QTemporaryDir tmp;
    const QString planPath = tmp.filePath(QStringLiteral("plan.json"));
    QVERIFY(savePlanFile(plan, planPath.toStdString()));
    QProcess python;
    python.start(QStringLiteral("python3"),
                 { QStringLiteral(CLEAVE_SOURCE_DIR "/tests/core/stage_weights.py"), path, planPath,
                   QStringLiteral("feats,txt,feat_lens") });
    if (!python.waitForStarted())
        QSKIP("python3 is not available");
    QVERIFY(python.waitForFinished(120000));
    QCOMPARE(python.exitCode(), 0);
    const auto expected = nlohmann::json::parse(python.readAllStandardOutput().toStdString());
    const auto costs = partitionCosts(plan, computeBoundary(plan));
    for (std::size_t i = 0; i < costs.size(); ++i) {
        const std::string &name = plan.partitions()[i].name;
        QCOMPARE(costs[i].weightInputBytes, expected.at(name).get<std::int64_t>());
        QVERIFY(costs[i].paramBytes >= costs[i].weightInputBytes);
    }
    // Every LSTM weight is read by some stage: together they read at least all weight bytes.
    QVERIFY(costs[0].weightInputBytes > 1000000);
}

void TestWeightFollow::autoNamesStagesInOrderAndKeepsKernels_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("stages");
    const QDir samples(QStringLiteral(CLEAVE_SAMPLES_DIR));
    for (const QString &f : samples.entryList(
             { QStringLiteral("*.relay"), QStringLiteral("*.onnx") }, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(f)) << samples.filePath(f) << 3;
    for (const QString &p : corpusFiles("relay", QStringLiteral("*.relay.txt")))
        QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p << 3;
    for (const QString &p : corpusFiles("relax", QStringLiteral("*.relax.py")))
        QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p << 2;
    if (corpusFiles("relay", QStringLiteral("*.relay.txt")).isEmpty())
        QTest::newRow(missingCorpusRow()) << QString() << 0;
}

void TestWeightFollow::autoNamesStagesInOrderAndKeepsKernels()
{
    QFETCH(QString, model);
    QFETCH(int, stages);
    CLEAVE_SKIP_MISSING_CORPUS_ROW(model);
    const auto g = loadOrAbort(model);
    auto view = std::make_shared<const FunctionView>(*g, g->mainFunction());
    const std::vector<FusedBlock> blocks = fuseOps(*g, view->function(), {});
    const CostGraph cost = CostGraph::buildBlocks(*view, blocks, { DeviceSpec {} }, LinkSpec {});
    StageSearchOptions options;
    options.stages = static_cast<std::size_t>(stages);
    const StageSearchResult result = searchStages(cost, options, {});
    if (!result.ok) {
        // Fewer kernels than stages: an error that says why, never an empty stage.
        QVERIFY2(cost.unitCount() < options.stages, result.error.c_str());
        QVERIFY(result.error.find("non-empty stages") != std::string::npos);
        return;
    }
    const PartitionPlan plan = planFromStages(view, cost, result.stageOf, options.stages);
    const auto problem = stageCountProblem(plan, cost, options.stages);
    // Either K non-empty stages named stage0.. in order, or a reason.
    if (problem) {
        QVERIFY(plan.partitionCount() < options.stages);
        QVERIFY(!problem->empty());
    } else {
        QCOMPARE(plan.partitionCount(), options.stages);
    }
    for (std::size_t i = 0; i < plan.partitionCount(); ++i) {
        QCOMPARE(plan.partitions()[i].name, "stage" + std::to_string(i));
        QVERIFY(plan.nodeCount(plan.partitions()[i].id) > 0);
    }
    // No kernel is split: every node of a block lies in one stage (weight-only nodes, which
    // follow their first consumer, are the only ones that may leave their block's stage).
    for (const FusedBlock &b : blocks) {
        PartitionId stage;
        for (NodeId n : b.nodes) {
            if (plan.weightFollowers().contains(n))
                continue;
            if (!stage.isValid())
                stage = plan.partitionOf(n);
            QCOMPARE(plan.partitionOf(n), stage);
        }
    }
}

void TestWeightFollow::largestPublicFunctionOpensFirst()
{
    const QString path = corpusDir("relax").filePath(QString::fromLatin1(samFile));
    if (!QFile::exists(path))
        QSKIP("the SAM corpus model is missing");
    const auto g = loadOrAbort(path);
    // No main: forward (2,787 ops) opens, not _initialize_effect (1 op, defined first).
    QCOMPARE(g->function(g->mainFunction()).name, std::string("forward"));
    const std::string why = g->mainFunctionReason();
    QVERIFY2(why.find("no main") != std::string::npos, why.c_str());
    QVERIFY2(why.find("forward is its largest public function (2787 ops") != std::string::npos,
             why.c_str());
}

void TestWeightFollow::impliedCostBeyondTenTimesIsNotValid()
{
    // A stroke across the 4-byte mean %1 -> %2 severs the 1×64×56×56 float32 skip %0 -> %2
    // (802,816 B) without crossing it: more than ten times what the line cut.
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("skip.relay"));
    QVERIFY(writeAll(path, R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 64, 56, 56), float32]) {
  %0 = nn.relu(%x) /* ty=Tensor[(1, 64, 56, 56), float32] */;
  %1 = mean(%0) /* ty=float32 */;
  %2 = multiply(%0, %1) /* ty=Tensor[(1, 64, 56, 56), float32] */;
  %2
}
)"));
    const auto g = loadOrAbort(path);
    PartitionPlan plan(*g);
    plan.cutAcrossEdges({ { { node(*g, "%1"), 0 }, node(*g, "%2") } });
    const BoundaryTable boundary = computeBoundary(plan);
    const CutCost cost = cutCost(plan, boundary);
    QCOMPARE(cost.crossedBytes, std::int64_t(4));
    QCOMPARE(cost.impliedBytes, std::int64_t(64 * 56 * 56 * 4));
    QCOMPARE(cost.impliedTensors, std::size_t(1));
    QVERIFY(cost.impliedDominates());
    // One implied edge is shown as it is: a group needs two.
    QVERIFY(!impliedEdgeGroup(validateAll(plan, boundary, {}), cost));
    // --cut-after makes no cut line: nothing is implied.
    PartitionPlan after(*g);
    after.cutAfterOp("mean", 0);
    QVERIFY(!cutCost(after, computeBoundary(after)).impliedDominates());
}

QTEST_APPLESS_MAIN(TestWeightFollow)
void TestWeightFollow::randomDrawsAreNeverComputedAgain()
{
    // The operators that draw random numbers, by their names in ONNX (RandomNormal,
    // RandomUniformLike, Bernoulli, Multinomial) and Relay (random.uniform): two copies of one
    // compute different values. Deterministic ops, and relax.call_packed (impure, but not a
    // random draw by name), are not.
    for (const char *op : { "RandomNormal", "RandomUniformLike", "Bernoulli", "Multinomial",
                            "random.uniform", "random.normal_like" })
        QVERIFY2(drawsRandomNumbers(op), op);
    for (const char *op : { "transpose", "nn.dense", "MatMul", "relax.call_packed", "Dropout" })
        QVERIFY2(!drawsRandomNumbers(op), op);

    // A weight-only closure holding a random draw of the weight is not replicable; the same
    // closure without it is.
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("random_weight.relay"));
    QVERIFY(writeAll(path, R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(8, 8), float32]) {
  %0 = transpose(%w) /* ty=Tensor[(8, 8), float32] */;
  %1 = random.normal_like(%0) /* ty=Tensor[(8, 8), float32] */;
  %2 = nn.dense(%x, %1) /* ty=Tensor[(1, 8), float32] */;
  %2
}
)"));
    const auto g = loadOrAbort(path);
    QVERIFY(replicable(*g, nodes(*g, { "%0" })));
    QVERIFY(!replicable(*g, nodes(*g, { "%0", "%1" })));
}

#include "tst_weightfollow.moc"
