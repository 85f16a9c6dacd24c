// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The block-level view of a function (the editor's Ops / Blocks switch): collapsing fused blocks
// into single nodes, expanding them in place, and carrying plans and cut edges between levels.
#include "GraphBuilder.h"
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/partition/BlockGraph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanConversion.h"

#include <QTest>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

using namespace cleave;

namespace {

using test::load;

std::vector<std::string> keys(const Graph &g, std::span<const NodeId> nodes)
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
    void collapsesHandMadeBlocks();
    void expandedBlockShowsItsOps();
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
    QCOMPARE(bg.kernelCount(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(bg.graph.node(bg.kernels[i]).op, expected[i].first);
        QCOMPARE(keys(*g, bg.kernelNodes(i)), expected[i].second);
        // The block node is keyed by its root, and reads what the block reads.
        QCOMPARE(bg.graph.key(bg.kernels[i]), expected[i].second.back());
    }
    const Node &residualBlock = bg.graph.node(bg.kernels[1]);
    QCOMPARE(keys(bg.graph,
                  std::vector<NodeId> { residualBlock.inputs[0].node, residualBlock.inputs[1].node,
                                        residualBlock.inputs[2].node }),
             (std::vector<std::string> { "%2", "%w2", "%b2" }));
    QCOMPARE(bg.graph.outputs(bg.graph.mainFunction()).size(), std::size_t(1));
    QCOMPARE(bg.graph.key(bg.graph.outputs(bg.graph.mainFunction())[0].node), std::string("%ret"));
    QCOMPARE(bg.shownAs(g->findByKey("%4")), bg.kernels[1]);
    // The residual block's result is shown as the block's output; its inner add is not shown.
    QVERIFY(bg.shownTensor(TensorRef { g->findByKey("%6"), 0 })
            == (TensorRef { bg.kernels[1], 0 }));
    QVERIFY(!bg.shownTensor(TensorRef { g->findByKey("%4"), 0 }).isValid());
}

namespace {

/// x → %0 = nn.dense → %1 = reshape → %2 = sigmoid(%0) → %3 = reshape → %4 = add(%3, %1), with
/// two blocks given by hand: A = {%0, %1} (both outputs read outside it: a two-output block)
/// and B = {%2, %3}; %4 is in no block.
struct HandMade
{
    std::unique_ptr<Graph> graph;
    std::vector<FusedBlock> blocks;
    NodeId x, n0, n1, n2, n3, n4;
};

HandMade handMade()
{
    test::GraphBuilder b;
    HandMade h;
    h.x = b.input("x", { 1, 8 });
    h.n0 = b.op("nn.dense", { h.x }, { 1, 16 });
    h.n1 = b.op("reshape", { h.n0 }, { 4, 4 });
    h.n2 = b.op("sigmoid", { h.n0 }, { 1, 16 });
    h.n3 = b.op("reshape", { h.n2 }, { 2, 8 });
    h.n4 = b.op("add", { h.n3, h.n1 }, { 4, 4 });
    h.graph = b.finish(h.n4);
    FusedBlock a;
    a.name = "fused_nn_dense_reshape";
    a.root = h.n1;
    a.nodes = { h.n0, h.n1 };
    a.inputs = { { h.x, 0 } };
    a.outputs = { { h.n0, 0 }, { h.n1, 0 } };
    FusedBlock second;
    second.name = "fused_sigmoid_reshape";
    second.root = h.n3;
    second.nodes = { h.n2, h.n3 };
    second.inputs = { { h.n0, 0 } };
    second.outputs = { { h.n3, 0 } };
    h.blocks = { a, second };
    return h;
}

} // namespace

// Every expected value follows from the graph above: program order x, %0 .. %4 gives the shown
// nodes x (0), block A at its root %1 (1), block B at %3 (2) and the copy of %4 (3).
void TestBlockGraph::collapsesHandMadeBlocks()
{
    const HandMade h = handMade();
    const Graph &g = *h.graph;
    const BlockGraph bg = collapseBlocks(g, g.mainFunction(), h.blocks);
    const Graph &s = bg.graph;
    QCOMPARE(s.nodeCount(), std::size_t(4));
    const NodeId x(0U);
    const NodeId a(1U);
    const NodeId b(2U);
    const NodeId add(3U);
    QCOMPARE(s.node(x).kind, NodeKind::Input);
    QCOMPARE(s.function(s.mainFunction()).params, std::vector<NodeId> { x });
    QCOMPARE(s.function(s.mainFunction()).result, add);

    // Block A: named by the block, keyed by its root, reading x, typed by its two outputs.
    QCOMPARE(s.node(a).kind, NodeKind::OpCall);
    QCOMPARE(s.node(a).op, std::string("fused_nn_dense_reshape"));
    QCOMPARE(s.key(a), std::string("%1"));
    QCOMPARE(s.node(a).inputs, (std::vector<TensorRef> { { x, 0 } }));
    QCOMPARE(s.node(a).outputTypes().toVector(),
             (std::vector<Type> { test::GraphBuilder::tensor({ 1, 16 }),
                                  test::GraphBuilder::tensor({ 4, 4 }) }));
    QCOMPARE(s.node(a).outputTypes()[1], g.node(h.n1).outputType(0));
    // Block B reads A's first output (%0); the add reads B and A's second output (%1).
    QCOMPARE(s.node(b).op, std::string("fused_sigmoid_reshape"));
    QCOMPARE(s.key(b), std::string("%3"));
    QCOMPARE(s.node(b).inputs, (std::vector<TensorRef> { { a, 0 } }));
    QCOMPARE(s.node(b).outputTypes().toVector(),
             std::vector<Type> { test::GraphBuilder::tensor({ 2, 8 }) });
    QCOMPARE(s.node(add).op, std::string("add"));
    QCOMPARE(s.key(add), std::string("%4"));
    QCOMPARE(s.node(add).inputs, (std::vector<TensorRef> { { b, 0 }, { a, 1 } }));
    QCOMPARE(s.node(add).outputTypes().toVector(),
             std::vector<Type> { test::GraphBuilder::tensor({ 4, 4 }) });

    // One kernel per shown operator, in node order; the copied op is named by its key.
    QCOMPARE(bg.kernels, (std::vector<NodeId> { a, b, add }));
    QCOMPARE(bg.kernelStart, (std::vector<std::uint32_t> { 0, 2, 4, 5 }));
    QCOMPARE(bg.kernelMembers, (std::vector<NodeId> { h.n0, h.n1, h.n2, h.n3, h.n4 }));
    // As a KernelMapping: each kernel named by its op, matched.
    const KernelMapping mapping = bg.mapping();
    QCOMPARE(mapping.kernels.size(), std::size_t(3));
    QCOMPARE(mapping.kernels[0].kernel, a);
    QCOMPARE(mapping.kernels[0].name, std::string("fused_nn_dense_reshape"));
    QCOMPARE(mapping.kernels[0].relayNodes, (std::vector<NodeId> { h.n0, h.n1 }));
    QCOMPARE(mapping.kernels[2].name, std::string("add"));
    QCOMPARE(mapping.kernels[2].relayNodes, std::vector<NodeId> { h.n4 });
    QVERIFY(mapping.kernels[1].matched);

    // Nodes and tensors both ways.
    const std::vector<NodeId> shownOf { x, a, a, b, b, add };
    const std::vector<NodeId> originals { h.x, h.n0, h.n1, h.n2, h.n3, h.n4 };
    for (std::size_t i = 0; i < originals.size(); ++i)
        QCOMPARE(bg.shownAs(originals[i]), shownOf[i]);
    QVERIFY(!bg.shownAs(NodeId(99U)).isValid());
    QCOMPARE(bg.shownTensor({ h.x, 0 }), (TensorRef { x, 0 }));
    QCOMPARE(bg.shownTensor({ h.n0, 0 }), (TensorRef { a, 0 }));
    QCOMPARE(bg.shownTensor({ h.n1, 0 }), (TensorRef { a, 1 }));
    QVERIFY(!bg.shownTensor({ h.n2, 0 }).isValid()); // inside block B
    QCOMPARE(bg.shownTensor({ h.n3, 0 }), (TensorRef { b, 0 }));
    QCOMPARE(bg.shownTensor({ h.n4, 0 }), (TensorRef { add, 0 }));
    QCOMPARE(bg.originalTensor({ x, 0 }), (TensorRef { h.x, 0 }));
    QCOMPARE(bg.originalTensor({ a, 1 }), (TensorRef { h.n1, 0 }));
    QCOMPARE(bg.originalTensor({ b, 0 }), (TensorRef { h.n3, 0 }));
    QVERIFY(!bg.originalTensor({ a, 2 }).isValid());
    QCOMPARE(bg.originalNodes(x), std::vector<NodeId> { h.x });
    QCOMPARE(bg.originalNodes(a), (std::vector<NodeId> { h.n0, h.n1 }));
    QCOMPARE(bg.originalNodes(add), std::vector<NodeId> { h.n4 });
    // A's second output feeds the add; its first feeds B's sigmoid.
    QCOMPARE(bg.originalEdges(g, { EdgeRef { { a, 1 }, add } }),
             (std::vector<EdgeRef> { { { h.n1, 0 }, h.n4 } }));
    QCOMPARE(bg.originalEdges(g, { EdgeRef { { a, 0 }, b } }),
             (std::vector<EdgeRef> { { { h.n0, 0 }, h.n2 } }));
}

// With B expanded, its ops are copies: %2 reads A's first output, %3 reads %2.
void TestBlockGraph::expandedBlockShowsItsOps()
{
    const HandMade h = handMade();
    const Graph &g = *h.graph;
    const BlockGraph bg = collapseBlocks(g, g.mainFunction(), h.blocks, { 1 });
    const Graph &s = bg.graph;
    QCOMPARE(s.nodeCount(), std::size_t(5)); // x, A, %2, %3, %4
    const NodeId a(1U);
    const NodeId sigmoid(2U);
    const NodeId reshape(3U);
    QCOMPARE(s.node(sigmoid).op, std::string("sigmoid"));
    QCOMPARE(s.node(sigmoid).inputs, (std::vector<TensorRef> { { a, 0 } }));
    QCOMPARE(s.node(reshape).inputs, (std::vector<TensorRef> { { sigmoid, 0 } }));
    QCOMPARE(s.node(NodeId(4U)).inputs, (std::vector<TensorRef> { { reshape, 0 }, { a, 1 } }));
    QCOMPARE(bg.kernels, (std::vector<NodeId> { a, sigmoid, reshape, NodeId(4U) }));
    QCOMPARE(bg.kernelStart, (std::vector<std::uint32_t> { 0, 2, 3, 4, 5 }));
    QCOMPARE(bg.shownAs(h.n2), sigmoid);
    QCOMPARE(bg.shownTensor({ h.n2, 0 }), (TensorRef { sigmoid, 0 }));
    QCOMPARE(bg.originalNodes(reshape), std::vector<NodeId> { h.n3 });
}

void TestBlockGraph::expandsBlocksInPlace()
{
    const auto g = load(residual);
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), blocks, { 1 });
    QCOMPARE(bg.kernelCount(), std::size_t(12)); // 8 blocks + 4 ops of block 1
    QCOMPARE(bg.graph.nodeCount(), std::size_t(21));
    QCOMPARE(bg.graph.node(bg.kernels[1]).op, std::string("nn.conv2d"));
    QCOMPARE(bg.graph.node(bg.kernels[4]).op, std::string("nn.relu"));
    // The expanded ops read the collapsed block before them.
    QCOMPARE(bg.graph.key(bg.graph.node(bg.kernels[1]).inputs[0].node), std::string("%2"));
    QCOMPARE(bg.graph.node(bg.graph.node(bg.kernels[1]).inputs[0].node).op,
             std::string("fused_nn_conv2d_add_nn_relu"));
}

void TestBlockGraph::plansCrossLevels()
{
    const auto g = load(residual);
    QVERIFY(g);
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), fuseOps(*g, g->mainFunction()));
    PartitionPlan ops(*g);
    ops.cutAfterOp("nn.max_pool2d", 0);
    const PlanConversion up = relayPlanToKernels(ops, bg.mapping(), bg.graph);
    QVERIFY(up.diagnostics.empty());
    QCOMPARE(up.plan->partitionCount(), std::size_t(2));
    QCOMPARE(up.plan->nodeCount(up.plan->partitions()[0].id), std::size_t(3));
    QCOMPARE(computeBoundary(*up.plan).tensors.size(), std::size_t(1));

    const PlanConversion down = kernelPlanToRelay(*up.plan, bg.mapping(), *g);
    QVERIFY(down.diagnostics.empty());
    for (NodeId n : ops.view().assignableNodes())
        QCOMPARE(down.plan->indexOf(down.plan->partitionOf(n)), ops.indexOf(ops.partitionOf(n)));

    // An op-level cut inside a block cannot be shown at block level without splitting it.
    PartitionPlan inside(*g);
    inside.cutAfterOp("nn.conv2d", 0);
    const PlanConversion refused = relayPlanToKernels(inside, bg.mapping(), bg.graph);
    QCOMPARE(refused.diagnostics.size(), std::size_t(1));
    QCOMPARE(refused.diagnostics[0].code, std::string("convert.split_kernel"));

    // Over a view of the block graph made once (the editor's prepared level), both conversions
    // share it and give the same plans: 3 kernels before the cut, and the refused split.
    const auto view = std::make_shared<const FunctionView>(bg.graph, bg.graph.mainFunction());
    const PlanConversion shared = relayPlanToBlocks(ops, bg, view);
    QVERIFY(shared.diagnostics.empty());
    QCOMPARE(&shared.plan->view(), view.get());
    QCOMPARE(shared.plan->partitionCount(), std::size_t(2));
    QCOMPARE(shared.plan->nodeCount(shared.plan->partitions()[0].id), std::size_t(3));
    for (NodeId n : view->assignableNodes())
        QCOMPARE(shared.plan->indexOf(shared.plan->partitionOf(n)),
                 up.plan->indexOf(up.plan->partitionOf(n)));
    const PlanConversion sharedRefused = relayPlanToBlocks(inside, bg, view);
    QCOMPARE(sharedRefused.diagnostics.size(), std::size_t(1));
    QCOMPARE(sharedRefused.diagnostics[0].code, std::string("convert.split_kernel"));
    // The cut after the first conv (%0) splits the first block {%0, %1, %2}, named as fused.
    QVERIFY(QString::fromStdString(sharedRefused.diagnostics[0].message)
                .startsWith(
                    QStringLiteral("kernel fused_nn_conv2d_add_nn_relu runs ops of 2 partitions")));
    QCOMPARE(sharedRefused.diagnostics[0].message, refused.diagnostics[0].message);
}

void TestBlockGraph::blockEdgesMapToOpEdges()
{
    const auto g = load(residual);
    QVERIFY(g);
    const BlockGraph bg = collapseBlocks(*g, g->mainFunction(), fuseOps(*g, g->mainFunction()));
    const NodeId first = bg.kernels[0];
    const NodeId second = bg.kernels[1];
    // Block 0 feeds block 1 twice inside it: the conv and the residual add.
    const auto edges = bg.originalEdges(*g, { EdgeRef { TensorRef { first, 0 }, second } });
    QCOMPARE(edges.size(), std::size_t(2));
    QCOMPARE(g->key(edges[0].tensor.node), std::string("%2"));
    QCOMPARE(keys(*g, std::vector<NodeId> { edges[0].consumer, edges[1].consumer }),
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
    for (std::size_t k = 0; k < bg.kernelCount(); ++k) {
        for (NodeId n : bg.kernelNodes(k)) {
            ++seen[n.index()];
            shownOps += g->node(n).isOperator() ? 1 : 0;
        }
    }
    QCOMPARE(shownOps, operators);
    QCOMPARE(*std::max_element(seen.begin(), seen.end()), 1);
    QCOMPARE(bg.kernelCount(), blocks.size());
    // ResNet-18 with unfolded batch norms: 62 kernels stand for its 71 operator calls (as `inspect`
    // counts them), and the batch_norm projections fold into their blocks.
    QCOMPARE(blocks.size(), std::size_t(62));
    QCOMPARE(operators, std::size_t(71));
}

QTEST_APPLESS_MAIN(TestBlockGraph)
#include "tst_blockgraph.moc"
