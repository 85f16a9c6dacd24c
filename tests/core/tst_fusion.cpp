// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "GraphBuilder.h"
#include "TestSupport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/formats/FormatRegistry.h"

#include <QDir>
#include <QTest>

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace cleave;
using cleave::test::GraphBuilder;

namespace {

using Names = std::vector<std::string>;

using test::load;

std::string sample(const char *name)
{
    return std::string(CLEAVE_SAMPLES_DIR "/") + name;
}

Names blockNames(const std::vector<FusedBlock> &blocks)
{
    Names names;
    for (const FusedBlock &b : blocks)
        names.push_back(b.name);
    return names;
}

Names keysOf(const Graph &g, const std::vector<NodeId> &nodes)
{
    Names keys;
    for (NodeId n : nodes)
        keys.push_back(g.key(n));
    return keys;
}

const FusedBlock *blockWith(const Graph &g, const std::vector<FusedBlock> &blocks,
                            const std::string &key)
{
    const NodeId id = g.findByKey(key);
    for (const FusedBlock &b : blocks) {
        if (std::find(b.nodes.begin(), b.nodes.end(), id) != b.nodes.end())
            return &b;
    }
    return nullptr;
}

// The invariants every grouping must keep: every operator node of f in exactly one block, one
// output per block, and no path that leaves a block and comes back (convexity).
QString checkInvariants(const Graph &g, FunctionId f, const std::vector<FusedBlock> &blocks)
{
    std::map<NodeId, std::size_t> owner;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (blocks[b].outputs.size() != 1)
            return QStringLiteral("block %1 has %2 outputs")
                .arg(QString::fromStdString(blocks[b].name))
                .arg(blocks[b].outputs.size());
        for (NodeId n : blocks[b].nodes) {
            if (!owner.emplace(n, b).second)
                return QStringLiteral("node %1 in two blocks")
                    .arg(QString::fromStdString(g.key(n)));
        }
    }
    for (NodeId n : g.function(f).nodes) {
        if (g.node(n).isOperator() && !owner.count(n))
            return QStringLiteral("operator %1 in no block").arg(QString::fromStdString(g.key(n)));
    }
    // Convexity of every block, and no cycle between blocks: the graph with each block
    // contracted to one vertex must still be acyclic (Kahn's algorithm over the quotient).
    const auto &members = g.function(f).nodes;
    std::map<NodeId, std::size_t> vertex;
    std::size_t vertices = blocks.size();
    for (NodeId n : members)
        vertex[n] = owner.count(n) ? owner[n] : vertices++;
    std::vector<std::set<std::size_t>> successors(vertices);
    std::vector<int> pending(vertices, 0);
    for (NodeId n : members) {
        for (const Use &u : g.uses(n)) {
            const auto it = vertex.find(u.consumer);
            if (it != vertex.end() && it->second != vertex[n]
                && successors[vertex[n]].insert(it->second).second)
                ++pending[it->second];
        }
    }
    std::vector<std::size_t> ready;
    for (std::size_t v = 0; v < vertices; ++v) {
        if (pending[v] == 0)
            ready.push_back(v);
    }
    std::size_t done = 0;
    while (!ready.empty()) {
        const std::size_t v = ready.back();
        ready.pop_back();
        ++done;
        for (std::size_t s : successors[v]) {
            if (--pending[s] == 0)
                ready.push_back(s);
        }
    }
    if (done != vertices)
        return QStringLiteral("%1 blocks or nodes lie on a cycle of blocks (a block is not convex)")
            .arg(vertices - done);
    return {};
}

} // namespace

class TestFusion : public QObject
{
    Q_OBJECT

private slots:
    void convAddRelu();
    void residualBlock();
    void twoConvsNeverShare();
    void inceptionConcat();
    void stopFusionEdge();
    void maxDepth();
    void repeatedNames();
    void stopFusionSample();
    void resnet18BeforeSimplifyInference();
    void resnet18Folded();
    void existingPrimitiveFunctions();
    void byocPartitioned();
    void inceptionSample();
    void graphJsonKernels();
    void invariantsOnEveryModel_data();
    void invariantsOnEveryModel();
    void patternTable();
    void patternFile();
};

void TestFusion::convAddRelu()
{
    GraphBuilder b;
    const NodeId x = b.input("x", { 1, 3, 32, 32 });
    const NodeId w = b.constant("w", { 16, 3, 3, 3 });
    const NodeId bias = b.constant("b", { 16, 1, 1 });
    const NodeId conv = b.op("nn.conv2d", { x, w }, { 1, 16, 32, 32 });
    const NodeId add = b.op("add", { conv, bias }, { 1, 16, 32, 32 });
    const NodeId relu = b.op("nn.relu", { add }, { 1, 16, 32, 32 });
    const auto g = b.finish(relu);
    const auto blocks = fuseOps(*g, g->mainFunction());
    QCOMPARE(blocks.size(), std::size_t(1));
    const FusedBlock &block = blocks[0];
    QCOMPARE(block.name.str(), std::string("fused_nn_conv2d_add_nn_relu"));
    QCOMPARE(block.pattern, OpPatternKind::OutEWiseFusable);
    QCOMPARE(block.nodes, (std::vector<NodeId> { conv, add, relu }));
    QCOMPARE(block.root, relu);
    QCOMPARE(block.inputs, (std::vector<TensorRef> { { x, 0 }, { w, 0 }, { bias, 0 } }));
    QCOMPARE(block.outputs, (std::vector<TensorRef> { { relu, 0 } }));
    QCOMPARE(blockOps(*g, block), (Names { "nn.conv2d", "add", "nn.relu" }));
    QVERIFY(!block.isExisting());
}

void TestFusion::residualBlock()
{
    // r1 = relu(add(conv(x), b0)); out = relu(add(add(conv(r1), b1), r1))
    GraphBuilder b;
    const GraphBuilder::Shape s { 1, 64, 56, 56 };
    const NodeId x = b.input("x", s);
    const NodeId w0 = b.constant("w0", { 64, 64, 3, 3 });
    const NodeId b0 = b.constant("b0", { 64, 1, 1 });
    const NodeId w1 = b.constant("w1", { 64, 64, 3, 3 });
    const NodeId b1 = b.constant("b1", { 64, 1, 1 });
    const NodeId c0 = b.op("nn.conv2d", { x, w0 }, s);
    const NodeId a0 = b.op("add", { c0, b0 }, s);
    const NodeId r1 = b.op("nn.relu", { a0 }, s);
    const NodeId c1 = b.op("nn.conv2d", { r1, w1 }, s);
    const NodeId a1 = b.op("add", { c1, b1 }, s);
    const NodeId skip = b.op("add", { a1, r1 }, s);
    const NodeId out = b.op("nn.relu", { skip }, s);
    const auto g = b.finish(out);
    const auto blocks = fuseOps(*g, g->mainFunction());
    QCOMPARE(blockNames(blocks),
             (Names { "fused_nn_conv2d_add_nn_relu", "fused_nn_conv2d_add_add_nn_relu" }));
    QCOMPARE(blocks[0].nodes, (std::vector<NodeId> { c0, a0, r1 }));
    QCOMPARE(blocks[1].nodes, (std::vector<NodeId> { c1, a1, skip, out }));
    // The shortcut enters the second block as an input: r1 is read twice but listed once.
    QCOMPARE(blocks[1].inputs, (std::vector<TensorRef> { { r1, 0 }, { w1, 0 }, { b1, 0 } }));
    QVERIFY(checkInvariants(*g, g->mainFunction(), blocks).isEmpty());
    // The checker itself: a block {conv, relu} that skips the adds between them is caught.
    std::vector<FusedBlock> broken = blocks;
    broken[1].nodes = { c1, out };
    FusedBlock adds;
    adds.name = "adds";
    adds.pattern = OpPatternKind::Broadcast;
    adds.root = skip;
    adds.nodes = { a1, skip };
    adds.outputs = { { skip, 0 } };
    broken.push_back(adds);
    QCOMPARE(checkInvariants(*g, g->mainFunction(), broken),
             QStringLiteral("2 blocks or nodes lie on a cycle of blocks (a block is not convex)"));
}

void TestFusion::twoConvsNeverShare()
{
    // relu → conv → conv → relu: the leading relu stays alone (a relu before a conv is not
    // fused into it), each conv anchors its own block.
    GraphBuilder b;
    const GraphBuilder::Shape s { 1, 8, 16, 16 };
    const NodeId x = b.input("x", s);
    const NodeId w0 = b.constant("w0", { 8, 8, 3, 3 });
    const NodeId w1 = b.constant("w1", { 8, 8, 3, 3 });
    const NodeId r0 = b.op("nn.relu", { x }, s);
    const NodeId c0 = b.op("nn.conv2d", { r0, w0 }, s);
    const NodeId c1 = b.op("nn.conv2d", { c0, w1 }, s);
    const NodeId r1 = b.op("nn.relu", { c1 }, s);
    const auto g = b.finish(r1);
    const auto blocks = fuseOps(*g, g->mainFunction());
    QCOMPARE(blockNames(blocks),
             (Names { "fused_nn_relu", "fused_nn_conv2d", "fused_nn_conv2d_nn_relu" }));
    QCOMPARE(blocks[1].nodes, (std::vector<NodeId> { c0 }));
    QCOMPARE(blocks[2].nodes, (std::vector<NodeId> { c1, r1 }));
    // Dense + batch_flatten: an injective op before a complex op stays alone too.
    GraphBuilder d;
    const NodeId in = d.input("in", { 1, 64, 1, 1 });
    const NodeId flat = d.op("nn.batch_flatten", { in }, { 1, 64 });
    const NodeId dense = d.op("nn.dense", { flat, d.constant("w", { 10, 64 }) }, { 1, 10 });
    const auto g2 = d.finish(dense);
    QCOMPARE(blockNames(fuseOps(*g2, g2->mainFunction())),
             (Names { "fused_nn_batch_flatten", "fused_nn_dense" }));
}

void TestFusion::inceptionConcat()
{
    // Branches: conv+relu | reshape | transpose, joined by a tuple and concatenate.
    GraphBuilder b;
    const NodeId x = b.input("x", { 1, 8, 4, 4 });
    const NodeId conv = b.op("nn.conv2d", { x, b.constant("w", { 8, 8, 1, 1 }) }, { 1, 8, 4, 4 });
    const NodeId relu = b.op("nn.relu", { conv }, { 1, 8, 4, 4 });
    const NodeId reshape = b.op("reshape", { x }, { 1, 8, 4, 4 });
    const NodeId transpose = b.op("transpose", { x }, { 1, 8, 4, 4 });
    const NodeId tuple = b.tuple({ relu, reshape, transpose });
    const NodeId concat = b.op("concatenate", { tuple }, { 1, 24, 4, 4 });
    const auto g = b.finish(concat);
    const auto blocks = fuseOps(*g, g->mainFunction());
    // Phase 1 fuses the tuple into concatenate, phase 2 the injective branch tails into the
    // tuple; the conv group cannot join (an injective sink does not take a complex op).
    QCOMPARE(blockNames(blocks),
             (Names { "fused_nn_conv2d_nn_relu", "fused_reshape_transpose_concatenate" }));
    QCOMPARE(blocks[1].nodes, (std::vector<NodeId> { reshape, transpose, tuple, concat }));
    QCOMPARE(blocks[1].inputs, (std::vector<TensorRef> { { x, 0 }, { relu, 0 } }));
    QCOMPARE(blocks[1].pattern, OpPatternKind::Injective);
    QVERIFY(checkInvariants(*g, g->mainFunction(), blocks).isEmpty());
}

void TestFusion::stopFusionEdge()
{
    GraphBuilder b;
    const GraphBuilder::Shape s { 1, 8, 16, 16 };
    const NodeId x = b.input("x", s);
    const NodeId conv = b.op("nn.conv2d", { x, b.constant("w", { 8, 8, 3, 3 }) }, s);
    const NodeId stop = b.op("annotation.stop_fusion", { conv }, s);
    const NodeId relu = b.op("nn.relu", { stop }, s);
    const auto g = b.finish(relu);
    const auto opaque = fuseOps(*g, g->mainFunction());
    QCOMPARE(blockNames(opaque),
             (Names { "fused_nn_conv2d", "fused_annotation_stop_fusion", "fused_nn_relu" }));
    FusionOptions transparent;
    transparent.transparentStopFusion = true;
    const auto merged = fuseOps(*g, g->mainFunction(), transparent);
    QCOMPARE(blockNames(merged), (Names { "fused_nn_conv2d_nn_relu" }));
    QCOMPARE(merged[0].nodes, (std::vector<NodeId> { conv, stop, relu }));
}

void TestFusion::maxDepth()
{
    GraphBuilder b;
    NodeId v = b.input("x", { 4 });
    std::vector<NodeId> relus;
    for (int i = 0; i < 10; ++i)
        relus.push_back(v = b.op("nn.relu", { v }, { 4 }));
    const auto g = b.finish(v);
    QCOMPARE(fuseOps(*g, g->mainFunction()).size(), std::size_t(1));
    FusionOptions options;
    options.maxDepth = 4;
    const auto blocks = fuseOps(*g, g->mainFunction(), options);
    QCOMPARE(blocks.size(), std::size_t(3));
    QCOMPARE(blocks[0].nodes.size(), std::size_t(4));
    QCOMPARE(blocks[1].nodes.size(), std::size_t(4));
    QCOMPARE(blocks[2].nodes.size(), std::size_t(2));
    QCOMPARE(blocks[0].name.str(), std::string("fused_nn_relu_nn_relu_nn_relu_nn_relu"));
    // Same ops and shapes: the first two blocks are one kernel and share the name.
    QCOMPARE(blocks[1].name, blocks[0].name);
    QCOMPARE(&blocks[1].name.str(), &blocks[0].name.str()); // one interned copy
    QCOMPARE(blocks[2].name.str(), std::string("fused_nn_relu_nn_relu"));
}

void TestFusion::repeatedNames()
{
    // Two conv+relu blocks with different shapes: same fused name, so the second gets `_1`;
    // a third identical to the first shares its name.
    GraphBuilder b;
    const NodeId x = b.input("x", { 1, 8, 8, 8 });
    const NodeId c0 = b.op("nn.conv2d", { x, b.constant("w0", { 8, 8, 1, 1 }) }, { 1, 8, 8, 8 });
    const NodeId r0 = b.op("nn.relu", { c0 }, { 1, 8, 8, 8 });
    const NodeId c1 = b.op("nn.conv2d", { r0, b.constant("w1", { 16, 8, 1, 1 }) }, { 1, 16, 8, 8 });
    const NodeId r1 = b.op("nn.relu", { c1 }, { 1, 16, 8, 8 });
    const NodeId c2 = b.op("nn.conv2d", { r1, b.constant("w2", { 8, 16, 1, 1 }) }, { 1, 8, 8, 8 });
    const NodeId r2 = b.op("nn.relu", { c2 }, { 1, 8, 8, 8 });
    const NodeId c3 = b.op("nn.conv2d", { r2, b.constant("w3", { 8, 8, 1, 1 }) }, { 1, 8, 8, 8 });
    const auto g = b.finish(b.op("nn.relu", { c3 }, { 1, 8, 8, 8 }));
    QCOMPARE(blockNames(fuseOps(*g, g->mainFunction())),
             (Names { "fused_nn_conv2d_nn_relu", "fused_nn_conv2d_nn_relu_1",
                      "fused_nn_conv2d_nn_relu_2", "fused_nn_conv2d_nn_relu" }));
}

void TestFusion::stopFusionSample()
{
    const auto g = load(sample("stop_fusion.relay"));
    QVERIFY(g);
    const FunctionId main = g->mainFunction();
    const auto blocks = fuseOps(*g, main);
    QCOMPARE(
        blockNames(blocks),
        (Names { "fused_multiply", "fused_nn_conv2d_nn_bias_add_nn_relu",
                 "fused_nn_conv2d_nn_bias_add_nn_relu_1", "fused_annotation_stop_fusion",
                 "fused_nn_conv2d_nn_bias_add_nn_relu_2", "fused_nn_conv2d_nn_bias_add_nn_relu_3",
                 "fused_annotation_stop_fusion_1", "fused_nn_conv2d_nn_bias_add_nn_relu_4",
                 "fused_nn_conv2d_nn_bias_add_nn_relu_5", "fused_annotation_stop_fusion_2",
                 "fused_nn_global_avg_pool2d", "fused_nn_batch_flatten",
                 "fused_nn_dense_nn_bias_add", "fused_nn_softmax" }));
    // The scalar 1/255 is an input of the multiply block, not a member.
    QCOMPARE(keysOf(*g, blocks[0].nodes), (Names { "%0" }));
    QCOMPARE(blocks[0].inputs.size(), std::size_t(2));
    QCOMPARE(keysOf(*g, blocks[3].nodes), (Names { "%7" }));
    QVERIFY(checkInvariants(*g, main, blocks).isEmpty());

    // Transparent: each stop_fusion joins the relu block before it. Nothing else merges: a
    // relu never fuses into the following conv, with or without the annotation.
    FusionOptions options;
    options.transparentStopFusion = true;
    const auto merged = fuseOps(*g, main, options);
    QCOMPARE(merged.size(), std::size_t(11));
    QCOMPARE(keysOf(*g, blockWith(*g, merged, "%7")->nodes), (Names { "%4", "%5", "%6", "%7" }));
    QCOMPARE(keysOf(*g, blockWith(*g, merged, "%21")->nodes),
             (Names { "%18", "%19", "%20", "%21" }));
    QCOMPARE(blockWith(*g, merged, "%21")->name,
             std::string("fused_nn_conv2d_nn_bias_add_nn_relu_5"));
    QVERIFY(checkInvariants(*g, main, merged).isEmpty());
}

void TestFusion::resnet18BeforeSimplifyInference()
{
    // FuseOps on the frontend graph: batch_norm is OutEWiseFusable, so conv and batch_norm each
    // anchor their own block; the `.0` projection joins the relu after it; the residual add
    // takes the relu.
    const auto g = load(sample("resnet18.relay"));
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    const Names names = blockNames(blocks);
    QCOMPARE(blocks.size(), std::size_t(62));
    QCOMPARE(
        Names(names.begin(), names.begin() + 10),
        (Names { "fused_nn_conv2d", "fused_nn_batch_norm", "fused_nn_relu", "fused_nn_max_pool2d",
                 "fused_nn_conv2d_1", "fused_nn_batch_norm_1", "fused_nn_relu_1",
                 "fused_nn_conv2d_1", "fused_nn_batch_norm_1", "fused_add_nn_relu" }));
    QCOMPARE(keysOf(*g, blocks[2].nodes), (Names { "%2", "%3" }));
    QCOMPARE(keysOf(*g, blocks[9].nodes), (Names { "%11", "%12", "%13" }));
    // Projection: both `.0` projections join the add.
    QCOMPARE(keysOf(*g, blockWith(*g, blocks, "%33")->nodes),
             (Names { "%31", "%32", "%33", "%34" }));
    QCOMPARE(blockWith(*g, blocks, "%33")->name, std::string("fused_add_nn_relu_1"));
    QCOMPARE(Names(names.end() - 4, names.end()),
             (Names { "fused_nn_global_avg_pool2d", "fused_nn_batch_flatten",
                      "fused_nn_dense_nn_bias_add", "fused_nn_softmax" }));
    int batchNorms = 0;
    for (const FusedBlock &b : blocks)
        batchNorms += b.name.str().rfind("fused_nn_batch_norm", 0) == 0 ? 1 : 0;
    QCOMPARE(batchNorms, 20);
    QVERIFY(checkInvariants(*g, g->mainFunction(), blocks).isEmpty());
}

void TestFusion::resnet18Folded()
{
    // With batch norms folded (SimplifyInference + FoldScaleAxis), the kernels of a built ResNet.
    const auto g = load(sample("resnet18.relay"));
    QVERIFY(g);
    FusionOptions options;
    options.foldBatchNorm = true;
    const auto blocks = fuseOps(*g, g->mainFunction(), options);
    const Names names = blockNames(blocks);
    QCOMPARE(blocks.size(), std::size_t(25));
    QCOMPARE(Names(names.begin(), names.begin() + 9),
             (Names { "fused_nn_conv2d_add_nn_relu", "fused_nn_max_pool2d",
                      "fused_nn_conv2d_add_nn_relu_1", "fused_nn_conv2d_add_add_nn_relu",
                      "fused_nn_conv2d_add_nn_relu_1", "fused_nn_conv2d_add_add_nn_relu",
                      "fused_nn_conv2d_add_nn_relu_2", "fused_nn_conv2d_add",
                      "fused_nn_conv2d_add_add_nn_relu_1" }));
    // conv → batch_norm → .0 → relu, and the residual conv → bn → .0 → add → relu.
    QCOMPARE(keysOf(*g, blocks[0].nodes), (Names { "%0", "%1", "%2", "%3" }));
    QCOMPARE(blockOps(*g, blocks[0]), (Names { "nn.conv2d", "nn.batch_norm", "nn.relu" }));
    QCOMPARE(keysOf(*g, blocks[3].nodes), (Names { "%9", "%10", "%11", "%12", "%13" }));
    QCOMPARE(blocks[3].inputs.size(),
             std::size_t(7)); // %8, the weight, 4 bn params, the shortcut %4
    // The projection shortcut is its own conv+add block feeding the residual add.
    QCOMPARE(keysOf(*g, blocks[7].nodes), (Names { "%29", "%30", "%32" }));
    QCOMPARE(keysOf(*g, blocks[8].nodes), (Names { "%27", "%28", "%31", "%33", "%34" }));
    QCOMPARE(blocks[8].inputs.back(), (TensorRef { g->findByKey("%32"), 0 }));
    QVERIFY(checkInvariants(*g, g->mainFunction(), blocks).isEmpty());
}

void TestFusion::existingPrimitiveFunctions()
{
    // An already fused module: every call of a Primitive fn literal is a block as it is, named
    // from its body.
    const auto g = load(sample("resnet_fused.relay"));
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    QCOMPARE(blockNames(blocks),
             (Names { "fused_nn_conv2d_add_nn_relu", "fused_nn_max_pool2d",
                      "fused_nn_conv2d_add_nn_relu_1", "fused_nn_conv2d_add_add_nn_relu",
                      "fused_nn_conv2d_add_nn_relu_1", "fused_nn_conv2d_add_add_nn_relu",
                      "fused_nn_conv2d_add_nn_relu_2", "fused_nn_conv2d_add",
                      "fused_nn_conv2d_add_add_nn_relu_1" }));
    for (const FusedBlock &b : blocks) {
        QVERIFY(b.isExisting());
        QCOMPARE(b.nodes.size(), std::size_t(1));
        QVERIFY(g->function(b.callee).isPrimitive());
    }
    QCOMPARE(blockOps(*g, blocks[3]), (Names { "nn.conv2d", "add", "add", "nn.relu" }));
    QCOMPARE(blocks[3].inputs.size(), std::size_t(4));
}

void TestFusion::byocPartitioned()
{
    const auto g = load(sample("byoc_dnnl_partitioned.relay"));
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    QCOMPARE(
        blockNames(blocks),
        (Names { "tvmgen_default_dnnl_main_0", "fused_nn_max_pool2d", "tvmgen_default_dnnl_main_2",
                 "fused_nn_global_avg_pool2d", "fused_nn_batch_flatten", "fused_nn_softmax" }));
    QVERIFY(blocks[0].isExisting());
    // The external function's ops, composite bodies expanded.
    const Names ops = blockOps(*g, blocks[0]);
    QCOMPARE(std::count(ops.begin(), ops.end(), std::string("nn.conv2d")), 3);
    QVERIFY(checkInvariants(*g, g->mainFunction(), blocks).isEmpty());
}

void TestFusion::inceptionSample()
{
    const auto g = load(sample("inception_block.relay"));
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    QCOMPARE(blocks.size(), std::size_t(23));
    QCOMPARE(blocks[0].name.str(), std::string("fused_subtract_multiply"));
    const FusedBlock *concat = blockWith(*g, blocks, "%26");
    QVERIFY(concat);
    QCOMPARE(concat->name, std::string("fused_concatenate"));
    QCOMPARE(keysOf(*g, concat->nodes), (Names { "%25", "%26" }));
    QCOMPARE(concat->inputs.size(), std::size_t(4));
    // Each branch ends in its conv block: relu %21 joins conv %6, not the concat.
    QCOMPARE(keysOf(*g, blockWith(*g, blocks, "%21")->nodes), (Names { "%6", "%7", "%21" }));
    QCOMPARE(blockWith(*g, blocks, "%47")->name, std::string("fused_concatenate_1"));
    QVERIFY(checkInvariants(*g, g->mainFunction(), blocks).isEmpty());
}

void TestFusion::graphJsonKernels()
{
    // Compiled kernels never fuse again: one block per tvm_op, named by its func_name.
    CLEAVE_REQUIRE_CORPUS("graph_json");
    const auto g = load(CLEAVE_CORPUS_DIR "/graph_json/tinyyolov3_byoc_mera_drp.graph.json");
    QVERIFY(g);
    const auto blocks = fuseOps(*g, g->mainFunction());
    QCOMPARE(blocks.size(), std::size_t(7));
    QCOMPARE(blocks[0].name.str(), std::string("tvmgen_default_tvmgen_default_mera_drp_0"));
    QCOMPARE(blocks[0].outputs.size(), std::size_t(2));
    QCOMPARE(blocks.back().name.str(), std::string("tvmgen_default_mera_drp_9"));
}

void TestFusion::invariantsOnEveryModel_data()
{
    QTest::addColumn<QString>("path");
    for (const QString &dir :
         { QStringLiteral(CLEAVE_SAMPLES_DIR), QStringLiteral(CLEAVE_CORPUS_DIR "/relay") }) {
        const QDir d(dir);
        for (const QString &f :
             d.entryList({ QStringLiteral("*.relay"), QStringLiteral("*.relay.txt") }, QDir::Files,
                         QDir::Name))
            QTest::newRow(qPrintable(f)) << d.filePath(f);
    }
    if (test::corpusFiles("relay", QStringLiteral("*.relay.txt")).isEmpty())
        QTest::newRow(test::missingCorpusRow()) << QString();
}

void TestFusion::invariantsOnEveryModel()
{
    QFETCH(QString, path);
    CLEAVE_SKIP_MISSING_CORPUS_ROW(path);
    const ImportResult r = importFile(path.toStdString());
    if (!r.ok())
        QSKIP("the model does not import (covered by tst_relayimport)");
    const Graph &g = *r.graph;
    for (bool fold : { false, true }) {
        FusionOptions options;
        options.foldBatchNorm = fold;
        const auto blocks = fuseOps(g, g.mainFunction(), options);
        // Multi-output blocks are legitimate only for a call of a tuple-returning function.
        std::vector<FusedBlock> singleOutput;
        for (const FusedBlock &b : blocks) {
            if (!(b.isExisting() && b.outputs.size() > 1) && b.outputs.size() != 1)
                QFAIL(qPrintable(QStringLiteral("%1: %2 outputs")
                                     .arg(QString::fromStdString(b.name))
                                     .arg(b.outputs.size())));
            singleOutput.push_back(b);
            singleOutput.back().outputs.resize(1);
        }
        const QString problem = checkInvariants(g, g.mainFunction(), singleOutput);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
}

void TestFusion::patternTable()
{
    const OpPatternTable &t = OpPatternTable::builtin();
    QCOMPARE(t.pattern("nn.conv2d"), OpPatternKind::OutEWiseFusable);
    QCOMPARE(t.pattern("nn.batch_norm"), OpPatternKind::OutEWiseFusable);
    QCOMPARE(t.pattern("add"), OpPatternKind::Broadcast);
    QCOMPARE(t.pattern("nn.relu"), OpPatternKind::ElemWise);
    QCOMPARE(t.pattern("concatenate"), OpPatternKind::Injective);
    QCOMPARE(t.pattern("mean"), OpPatternKind::CommReduce);
    QCOMPARE(t.pattern("annotation.stop_fusion"), OpPatternKind::Opaque);
    QCOMPARE(t.pattern("my.custom_op"), OpPatternKind::Opaque);
    QVERIFY(!t.contains("my.custom_op"));
    QCOMPARE(static_cast<int>(OpPatternKind::Opaque), 8);
    QCOMPARE(opPatternFromName("kOutEWiseFusable"), std::optional(OpPatternKind::OutEWiseFusable));
    QCOMPARE(opPatternFromName("comm_reduce"), std::optional(OpPatternKind::CommReduce));
    QCOMPARE(opPatternFromName("2"), std::optional(OpPatternKind::Injective));
    QCOMPARE(opPatternFromName("fusable"), std::optional<OpPatternKind>());
    QCOMPARE(std::string(opPatternName(OpPatternKind::Tuple)), std::string("tuple"));
}

void TestFusion::patternFile()
{
    OpPatternTable table = OpPatternTable::builtin();
    std::vector<Diagnostic> diagnostics;
    QVERIFY(table.loadJson(R"({"my.gelu": "elemwise", "nn.relu": "opaque", "my.conv": 4})",
                           "ops.json", diagnostics));
    QVERIFY(diagnostics.empty());
    QCOMPARE(table.pattern("my.gelu"), OpPatternKind::ElemWise);
    QCOMPARE(table.pattern("my.conv"), OpPatternKind::OutEWiseFusable);

    // With relu made opaque, conv and relu no longer fuse; a custom elementwise op does.
    GraphBuilder b;
    const NodeId x = b.input("x", { 1, 4, 8, 8 });
    const NodeId conv = b.op("my.conv", { x }, { 1, 4, 8, 8 });
    const NodeId gelu = b.op("my.gelu", { conv }, { 1, 4, 8, 8 });
    const NodeId relu = b.op("nn.relu", { gelu }, { 1, 4, 8, 8 });
    const auto g = b.finish(relu);
    FusionOptions options;
    options.patterns = &table;
    QCOMPARE(blockNames(fuseOps(*g, g->mainFunction(), options)),
             (Names { "fused_my_conv_my_gelu", "fused_nn_relu" }));
    QCOMPARE(blockNames(fuseOps(*g, g->mainFunction())),
             (Names { "fused_my_conv", "fused_my_gelu", "fused_nn_relu" }));

    QVERIFY(!table.loadJson(R"({"a": "sideways"})", "ops.json", diagnostics));
    QCOMPARE(diagnostics.size(), std::size_t(1));
    QCOMPARE(diagnostics[0].code, std::string("patterns.unknown_kind"));
    diagnostics.clear();
    QVERIFY(!table.loadJson("{\n  \"a\": \"opaque\",\n}", "ops.json", diagnostics));
    QCOMPARE(diagnostics[0].code, std::string("patterns.syntax"));
    QCOMPARE(diagnostics[0].where.toString(), std::string("ops.json:3:1"));
    diagnostics.clear();
    QVERIFY(!table.loadJson("[1]", "ops.json", diagnostics));
    QCOMPARE(diagnostics[0].code, std::string("patterns.type"));
}

QTEST_APPLESS_MAIN(TestFusion)
#include "tst_fusion.moc"
