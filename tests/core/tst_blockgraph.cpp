// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The block-level view of a function (the editor's Ops / Blocks switch): collapsing fused blocks
// into single nodes, expanding them in place, and carrying plans and cut edges between levels.
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/partition/BlockGraph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanConversion.h"

#include <QTest>

#include <memory>
#include <string>
#include <vector>

using namespace cleave;

namespace {

using test::load;

std::vector<std::string> keys(const Graph &g, const std::vector<NodeId> &nodes)
{
    std::vector<std::string> out;
    for (NodeId n : nodes)
        out.push_back(g.key(n));
    return out;
}

const std::string residual = CLEAVE_TESTDATA_DIR "/map/residual_inception.relay";

} // namespace

class TestBlockGraph : public QObject
{
    Q_OBJECT

private slots:
    void collapsesEveryBlock();
    void expandsBlocksInPlace();
    void plansCrossLevels();
    void blockEdgesMapToOpEdges();
    void everyOperatorOfTheSampleIsShownOnce();
};

void TestBlockGraph::collapsesEveryBlock()
{
    const auto g = load(residual);
    QVERIFY(g);
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), fuseOps(*g, g->mainFunction()));
    QCOMPARE(bg.graph.nodeCount(), std::size_t(18)); // 9 inputs + 9 blocks
    QCOMPARE(bg.graph.function(bg.graph.mainFunction()).params.size(), std::size_t(9));
    const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
        { "fused_nn_conv2d_add_nn_relu", { "%0", "%1", "%2" } },
        { "fused_nn_conv2d_add_add_nn_relu", { "%3", "%4", "%5", "%6" } },
        { "fused_nn_max_pool2d", { "%7" } },
        { "fused_nn_conv2d", { "%8" } },
        { "fused_nn_conv2d_nn_relu", { "%9", "%10" } },
        { "fused_concatenate", { "%11", "%12" } },
        { "fused_nn_global_avg_pool2d", { "%13" } },
        { "fused_reshape", { "%14" } },
        { "fused_nn_dense_add", { "%15", "%ret" } },
    };
    QCOMPARE(bg.mapping.kernels.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const KernelMatch &k = bg.mapping.kernels[i];
        QCOMPARE(bg.graph.node(k.kernel).op, expected[i].first);
        QCOMPARE(keys(*g, k.relayNodes), expected[i].second);
        // The block node is keyed by its root, and reads what the block reads.
        QCOMPARE(bg.graph.key(k.kernel), expected[i].second.back());
    }
    const Node &residualBlock = bg.graph.node(bg.mapping.kernels[1].kernel);
    QCOMPARE(keys(bg.graph,
                  { residualBlock.inputs[0].node, residualBlock.inputs[1].node,
                    residualBlock.inputs[2].node }),
             (std::vector<std::string> { "%2", "%w2", "%b2" }));
    QCOMPARE(bg.graph.outputs(bg.graph.mainFunction()).size(), std::size_t(1));
    QCOMPARE(bg.graph.key(bg.graph.outputs(bg.graph.mainFunction())[0].node), std::string("%ret"));
    QCOMPARE(bg.shownAs.at(g->findByKey("%4")), bg.mapping.kernels[1].kernel);
    // The residual block's result is shown as the block's output; its inner add is not shown.
    QVERIFY(bg.shownTensor.at(TensorRef { g->findByKey("%6"), 0 })
            == (TensorRef { bg.mapping.kernels[1].kernel, 0 }));
    QVERIFY(!bg.shownTensor.count(TensorRef { g->findByKey("%4"), 0 }));
}

void TestBlockGraph::expandsBlocksInPlace()
{
    const auto g = load(residual);
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), blocks, { 1 });
    QCOMPARE(bg.mapping.kernels.size(), std::size_t(12)); // 8 blocks + 4 ops of block 1
    QCOMPARE(bg.graph.nodeCount(), std::size_t(21));
    QCOMPARE(bg.graph.node(bg.mapping.kernels[1].kernel).op, std::string("nn.conv2d"));
    QCOMPARE(bg.graph.node(bg.mapping.kernels[4].kernel).op, std::string("nn.relu"));
    // The expanded ops read the collapsed block before them.
    QCOMPARE(bg.graph.key(bg.graph.node(bg.mapping.kernels[1].kernel).inputs[0].node),
             std::string("%2"));
    QCOMPARE(bg.graph.node(bg.graph.node(bg.mapping.kernels[1].kernel).inputs[0].node).op,
             std::string("fused_nn_conv2d_add_nn_relu"));
}

void TestBlockGraph::plansCrossLevels()
{
    const auto g = load(residual);
    QVERIFY(g);
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), fuseOps(*g, g->mainFunction()));
    PartitionPlan ops(*g);
    ops.cutAfterOp("nn.max_pool2d", 0);
    const PlanConversion up = relayPlanToKernels(ops, bg.mapping, bg.graph);
    QVERIFY(up.diagnostics.empty());
    QCOMPARE(up.plan->partitionCount(), std::size_t(2));
    QCOMPARE(up.plan->nodeCount(up.plan->partitions()[0].id), std::size_t(3));
    QCOMPARE(computeBoundary(*up.plan).tensors.size(), std::size_t(1));

    const PlanConversion down = kernelPlanToRelay(*up.plan, bg.mapping, *g);
    QVERIFY(down.diagnostics.empty());
    for (NodeId n : ops.view().assignableNodes())
        QCOMPARE(down.plan->indexOf(down.plan->partitionOf(n)), ops.indexOf(ops.partitionOf(n)));

    // An op-level cut inside a block cannot be shown at block level without splitting it.
    PartitionPlan inside(*g);
    inside.cutAfterOp("nn.conv2d", 0);
    const PlanConversion refused = relayPlanToKernels(inside, bg.mapping, bg.graph);
    QCOMPARE(refused.diagnostics.size(), std::size_t(1));
    QCOMPARE(refused.diagnostics[0].code, std::string("convert.split_kernel"));

    // Over a view of the block graph made once (the editor's prepared level), both conversions
    // share it and give the same plans: 3 kernels before the cut, and the refused split.
    const auto view = std::make_shared<const FunctionView>(bg.graph, bg.graph.mainFunction());
    const PlanConversion shared = relayPlanToKernels(ops, bg.mapping, view);
    QVERIFY(shared.diagnostics.empty());
    QCOMPARE(&shared.plan->view(), view.get());
    QCOMPARE(shared.plan->partitionCount(), std::size_t(2));
    QCOMPARE(shared.plan->nodeCount(shared.plan->partitions()[0].id), std::size_t(3));
    for (NodeId n : view->assignableNodes())
        QCOMPARE(shared.plan->indexOf(shared.plan->partitionOf(n)),
                 up.plan->indexOf(up.plan->partitionOf(n)));
    const PlanConversion sharedRefused = relayPlanToKernels(inside, bg.mapping, view);
    QCOMPARE(sharedRefused.diagnostics.size(), std::size_t(1));
    QCOMPARE(sharedRefused.diagnostics[0].code, std::string("convert.split_kernel"));
}

void TestBlockGraph::blockEdgesMapToOpEdges()
{
    const auto g = load(residual);
    QVERIFY(g);
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), fuseOps(*g, g->mainFunction()));
    const NodeId first = bg.mapping.kernels[0].kernel;
    const NodeId second = bg.mapping.kernels[1].kernel;
    // Block 0 feeds block 1 twice inside it: the conv and the residual add.
    const auto edges = bg.originalEdges(*g, { EdgeRef { TensorRef { first, 0 }, second } });
    QCOMPARE(edges.size(), std::size_t(2));
    QCOMPARE(g->key(edges[0].tensor.node), std::string("%2"));
    QCOMPARE(keys(*g, { edges[0].consumer, edges[1].consumer }),
             (std::vector<std::string> { "%3", "%5" }));
    // Cutting the original across them splits exactly between the two blocks.
    PartitionPlan plan(*g);
    plan.cutAcrossEdges(edges);
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QCOMPARE(keys(*g, plan.nodesOf(plan.partitions()[0].id)),
             (std::vector<std::string> { "%0", "%1", "%2" }));
}

void TestBlockGraph::everyOperatorOfTheSampleIsShownOnce()
{
    const auto g = load(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), blocks);
    std::size_t operators = 0;
    for (NodeId n : g->function(g->mainFunction()).nodes)
        operators += g->node(n).isOperator() ? 1 : 0;
    std::vector<int> seen(g->nodeCount(), 0);
    std::size_t shownOps = 0;
    for (const KernelMatch &k : bg.mapping.kernels) {
        for (NodeId n : k.relayNodes) {
            ++seen[n.index()];
            shownOps += g->node(n).isOperator() ? 1 : 0;
        }
    }
    QCOMPARE(shownOps, operators);
    QCOMPARE(*std::max_element(seen.begin(), seen.end()), 1);
    QCOMPARE(bg.mapping.kernels.size(), blocks.size());
    // ResNet-18 with unfolded batch norms: 62 kernels stand for its 71 operator calls (as `inspect`
    // counts them), and the batch_norm projections fold into their blocks.
    QCOMPARE(blocks.size(), std::size_t(62));
    QCOMPARE(operators, std::size_t(71));
}

QTEST_APPLESS_MAIN(TestBlockGraph)
#include "tst_blockgraph.moc"
