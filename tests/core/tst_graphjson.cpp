// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/io/graphjson/GraphJsonImporter.h"

#include <QDir>
#include <QTest>

#include <map>
#include <string>

using namespace cleave;

namespace {

std::string corpusPath(const char *name)
{
    return std::string(CLEAVE_CORPUS_DIR "/graph_json/") + name;
}

std::map<std::string, int> kernelHistogram(const Graph &g)
{
    std::map<std::string, int> ops;
    for (const Node &n : g.nodes()) {
        if (n.kind == NodeKind::OpCall)
            ++ops[n.op];
    }
    return ops;
}

int countKind(const Graph &g, NodeKind kind)
{
    int count = 0;
    for (const Node &n : g.nodes())
        count += n.kind == kind ? 1 : 0;
    return count;
}

std::string shapeOf(const Graph &g, TensorRef t)
{
    return g.tensorType(t).toRelay();
}

// A small compiled graph: 3 params, a fused conv, a 2-output BYOC kernel, an add.
const char *const smallGraph = R"({"nodes": [
  {"op": "null", "name": "data", "inputs": []},
  {"op": "null", "name": "p0", "inputs": []},
  {"op": "null", "name": "p1", "inputs": []},
  {"op": "tvm_op", "name": "tvmgen_default_fused_nn_conv2d_add_nn_relu",
   "attrs": {"func_name": "tvmgen_default_fused_nn_conv2d_add_nn_relu", "num_inputs": "3",
             "num_outputs": "1", "flatten_data": "0", "hash": "00112233aabbccdd",
             "data_layout": "NCHW"},
   "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
  {"op": "tvm_op", "name": "tvmgen_default_dnnl_main_0",
   "attr": {"func_name": "tvmgen_default_dnnl_main_0", "num_inputs": "1", "num_outputs": "2", "flatten_data": "0"},
   "inputs": [[3, 0]]},
  {"op": "tvm_op", "name": "tvmgen_default_fused_add",
   "attrs": {"func_name": "tvmgen_default_fused_add", "num_inputs": "2", "num_outputs": "1", "flatten_data": "0"},
   "inputs": [[4, 0, 0], [4, 1, 0]]}],
 "arg_nodes": [0, 1, 2],
 "heads": [[5, 0, 0]],
 "attrs": {"shape": ["list_shape", [[1,3,8,8],[4,3,3,3],[4,1,1],[1,4,8,8],[1,2,8,8],[1,2,8,8],[1,2,8,8]]],
           "dltype": ["list_str", ["float32","float32","float32","float32","float32","float16","float32"]],
           "storage_id": ["list_int", [0,1,2,3,4,5,3]]},
 "node_row_ptr": [0, 1, 2, 3, 4, 6, 7]}
)";

std::string replaced(std::string text, const std::string &from, const std::string &to)
{
    const auto at = text.find(from);
    if (at != std::string::npos)
        text.replace(at, from.size(), to);
    return text;
}

} // namespace

class TestGraphJson : public QObject
{
    Q_OBJECT

private slots:
    void everyCorpusFile_data();
    void everyCorpusFile();
    void resnetKernels();
    void byocMultiOutput();
    void ultrafaceSevenOutputs();
    void legacyNnvm();
    void smallExample();
    void missingRowPointers();
    void parameterNames();
    void canRead();
    void malformed_data();
    void malformed();
    void invalidJsonPosition();
    void neverThrows();
};

void TestGraphJson::everyCorpusFile_data()
{
    CLEAVE_REQUIRE_CORPUS("graph_json");
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<int>("inputs");
    QTest::addColumn<int>("constants");
    QTest::addColumn<int>("outputs");
    const QDir dir(QStringLiteral(CLEAVE_CORPUS_DIR "/graph_json"));
    const QStringList files
        = dir.entryList({ QStringLiteral("*.graph.json") }, QDir::Files, QDir::Name);
    QCOMPARE(files.size(), 4);
    // Node counts include the `heads` tuple that multi-head graphs get.
    QTest::newRow("mobilenet") << QStringLiteral("mobilenet_nnvm_legacy.graph.json") << 143 << 59
                               << 1 << 83 << 1;
    QTest::newRow("resnet") << QStringLiteral("resnet_deeppose_cpu.graph.json") << 167 << 58 << 1
                            << 108 << 1;
    QTest::newRow("tinyyolov3") << QStringLiteral("tinyyolov3_byoc_mera_drp.graph.json") << 9 << 7
                                << 1 << 0 << 2;
    QTest::newRow("ultraface") << QStringLiteral("ultraface_byoc_mera_drp.graph.json") << 25 << 13
                               << 1 << 10 << 2;
}

void TestGraphJson::everyCorpusFile()
{
    QFETCH(QString, file);
    QFETCH(int, nodes);
    QFETCH(int, kernels);
    QFETCH(int, inputs);
    QFETCH(int, constants);
    QFETCH(int, outputs);
    const ImportResult r = importFile(corpusPath(file.toUtf8().constData()));
    QVERIFY2(r.ok(), r.firstError().c_str());
    QVERIFY(r.diagnostics.empty());
    const Graph &g = *r.graph;
    QCOMPARE(g.format(), std::string("graph.json"));
    QCOMPARE(g.functionCount(), std::size_t(1));
    QCOMPARE(g.function(g.mainFunction()).name, std::string("main"));
    QCOMPARE(int(g.nodeCount()), nodes);
    QCOMPARE(countKind(g, NodeKind::OpCall), kernels);
    QCOMPARE(int(g.function(g.mainFunction()).params.size()), inputs);
    QCOMPARE(countKind(g, NodeKind::Constant), constants);
    QCOMPARE(int(g.outputs(g.mainFunction()).size()), outputs);
    QCOMPARE(g.topologicalOrder(g.mainFunction()).size(), g.nodeCount());
    for (const Node &n : g.nodes()) {
        for (const Type &t : n.outputTypes())
            QVERIFY(n.kind == NodeKind::Tuple || t.hasStaticShape());
    }
}

void TestGraphJson::resnetKernels()
{
    CLEAVE_REQUIRE_CORPUS("graph_json");
    const ImportResult r = importFile(corpusPath("resnet_deeppose_cpu.graph.json"));
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const auto ops = kernelHistogram(g);
    QCOMPARE(ops.size(), std::size_t(28));
    QCOMPARE(ops.at("__nop"), 2);
    QCOMPARE(ops.at("tvmgen_default_fused_nn_conv2d_add_add_nn_relu_2"), 6);
    QCOMPARE(ops.at("tvmgen_default_fused_nn_conv2d_add_nn_relu_10"), 5);
    QCOMPARE(ops.at("tvmgen_default_fused_nn_max_pool2d"), 1);

    const NodeId input = g.function(g.mainFunction()).params.front();
    QCOMPARE(g.key(input), std::string("input0"));
    QCOMPARE(shapeOf(g, { input, 0 }), std::string("Tensor[(1, 3, 256, 256), float32]"));
    QCOMPARE(g.node(NodeId(std::size_t(1))).kind, NodeKind::Constant);
    QCOMPARE(g.key(NodeId(std::size_t(1))), std::string("p0"));

    // Two kernels are called reshape_nop: the second key is made unique.
    const NodeId nop1 = g.findByKey("reshape_nop");
    const NodeId nop2 = g.findByKey("reshape_nop#2");
    QCOMPARE(nop1.index(), std::size_t(162));
    QCOMPARE(nop2.index(), std::size_t(166));
    QCOMPARE(g.node(nop2).op, std::string("__nop"));
    QCOMPARE(shapeOf(g, { nop1, 0 }), std::string("Tensor[(1, 2048), float32]"));
    QCOMPARE(g.function(g.mainFunction()).result, nop2);
    QCOMPARE(shapeOf(g, g.outputs(g.mainFunction()).front()),
             std::string("Tensor[(1, 98, 2), float32]"));
    QCOMPARE(g.node(nop2).inputs.front().node.index(), std::size_t(165));

    // Attributes: the counts as ints, everything else (hash, layouts) as strings.
    const Node &first = g.node(g.uses(input).front().consumer);
    QCOMPARE(first.attrs.intOr("num_outputs", -1), std::int64_t(1));
    QCOMPARE(first.attrs.intOr("flatten_data", -1), std::int64_t(0));
    QCOMPARE(first.attrs.find("hash")->kind, AttrValue::Kind::String);
    QCOMPARE(first.attrs.stringOr("func_name", {}), first.op);
    QVERIFY(first.where.isValid());
}

void TestGraphJson::byocMultiOutput()
{
    CLEAVE_REQUIRE_CORPUS("graph_json");
    const ImportResult r = importFile(corpusPath("tinyyolov3_byoc_mera_drp.graph.json"));
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const Node &byoc = g.node(NodeId(std::size_t(1)));
    QCOMPARE(byoc.op, std::string("tvmgen_default_tvmgen_default_mera_drp_0"));
    QCOMPARE(byoc.outputCount(), std::size_t(2));
    QCOMPARE(byoc.attrs.find("hash"), nullptr);
    QCOMPARE(byoc.outputType(0).toRelay(), std::string("Tensor[(1, 512, 13, 13), float16]"));
    QCOMPARE(byoc.outputType(1).toRelay(), std::string("Tensor[(1, 256, 26, 26), float16]"));
    // The float32 input feeds float16 kernels.
    QCOMPARE(g.node(NodeId(std::size_t(0))).outputType(0).dtype.str(), std::string("float32"));

    const Node &pad = g.node(NodeId(std::size_t(2)));
    QCOMPARE(pad.op, std::string("tvmgen_default_fused_nn_pad"));
    QCOMPARE(pad.inputs.size(), std::size_t(2));
    QCOMPARE(pad.inputs[1], (TensorRef { NodeId(std::size_t(1)), 1 }));
    // Output 1 of the BYOC kernel feeds the pad and the second concatenate.
    const auto users = g.consumers({ NodeId(std::size_t(1)), 1 });
    QCOMPARE(users.size(), std::size_t(2));
    QCOMPARE(users[1].consumer.index(), std::size_t(6));
    QCOMPARE(users[1].input, std::uint32_t(1));

    int multi = 0;
    for (const Node &n : g.nodes())
        multi += n.outputCount() == 2 ? 1 : 0;
    QCOMPARE(multi, 3);

    // Two heads, both outputs of node 7: main returns a tuple.
    const Node &result = g.node(g.function(g.mainFunction()).result);
    QCOMPARE(result.kind, NodeKind::Tuple);
    const auto outs = g.outputs(g.mainFunction());
    QCOMPARE(outs.size(), std::size_t(2));
    QCOMPARE(outs[0], (TensorRef { NodeId(std::size_t(7)), 0 }));
    QCOMPARE(outs[1], (TensorRef { NodeId(std::size_t(7)), 1 }));
    QCOMPARE(shapeOf(g, outs[1]), std::string("Tensor[(1, 255, 26, 26), float16]"));
}

void TestGraphJson::ultrafaceSevenOutputs()
{
    CLEAVE_REQUIRE_CORPUS("graph_json");
    const ImportResult r = importFile(corpusPath("ultraface_byoc_mera_drp.graph.json"));
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const Node &byoc = g.node(NodeId(std::size_t(1)));
    QCOMPARE(byoc.outputCount(), std::size_t(7));
    QCOMPARE(byoc.attrs.intOr("num_outputs", -1), std::int64_t(7));
    QCOMPARE(byoc.outputType(3).toRelay(), std::string("Tensor[(1, 256, 4, 5), float16]"));
    QCOMPARE(byoc.outputType(6).toRelay(), std::string("Tensor[(1, 8, 8, 10), float16]"));
    // node_row_ptr jumps 1 -> 8, so p205 (node 2) is entry 8; the conv reads output 3.
    QCOMPARE(g.node(NodeId(std::size_t(2))).outputType(0).toRelay(),
             std::string("Tensor[(6, 256, 3, 3), float16]"));
    const Node &conv = g.node(NodeId(std::size_t(4)));
    QCOMPARE(conv.op, std::string("tvmgen_default_fused_nn_conv2d_add"));
    QCOMPARE(conv.inputs.front(), (TensorRef { NodeId(std::size_t(1)), 3 }));
    // The 8-input transpose/concat kernel reads all 7 outputs.
    QCOMPARE(g.node(NodeId(std::size_t(5))).inputs.size(), std::size_t(8));
    QCOMPARE(g.consumers({ NodeId(std::size_t(1)), 6 }).size(), std::size_t(2));

    const auto ops = kernelHistogram(g);
    QCOMPARE(ops.count("tvmgen_default_fused_transpose_reshape_transpose_reshape_transpose_reshape_"
                       "transpose_reshape_co_7082943185696203540_"),
             std::size_t(1));
    QCOMPARE(g.key(g.function(g.mainFunction()).params.front()), std::string("input"));
    QVERIFY(g.findByKey("p205").isValid());
    QCOMPARE(g.node(g.findByKey("p214")).kind, NodeKind::Constant);
    const auto outs = g.outputs(g.mainFunction());
    QCOMPARE(outs.size(), std::size_t(2));
    QCOMPARE(shapeOf(g, outs[0]), std::string("Tensor[(1, 4420, 2), float16]"));
    QCOMPARE(g.node(outs[1].node).op, std::string("tvmgen_default_fused_subtract_concatenate"));
}

void TestGraphJson::legacyNnvm()
{
    CLEAVE_REQUIRE_CORPUS("graph_json");
    const ImportResult r = importFile(corpusPath("mobilenet_nnvm_legacy.graph.json"));
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const auto &params = g.function(g.mainFunction()).params;
    QCOMPARE(params.size(), std::size_t(1));
    QCOMPARE(g.key(params[0]), std::string("data"));
    QCOMPARE(g.node(g.findByKey("_param_1")).kind, NodeKind::Constant);
    QCOMPARE(g.node(g.findByKey("batch_norm0_gamma_mul_div_expand")).kind, NodeKind::Constant);
    const Node &clip0 = g.node(g.findByKey("clip0"));
    QCOMPARE(clip0.op, std::string("fuse_conv2d_broadcast_mul_broadcast_add_clip"));
    QCOMPARE(clip0.inputs.size(), std::size_t(4));
    QCOMPARE(g.node(g.findByKey("pad0")).outputType(0).toRelay(),
             std::string("Tensor[(1, 3, 130, 130), float32]"));
    QCOMPARE(kernelHistogram(g).at("fuse_pad_11"), 6);
    QCOMPARE(g.key(g.function(g.mainFunction()).result), std::string("reshape1"));
    QCOMPARE(shapeOf(g, g.outputs(g.mainFunction()).front()),
             std::string("Tensor[(1, 2), float32]"));
}

void TestGraphJson::smallExample()
{
    const ImportResult r = importBytes(smallGraph, "small.graph.json");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    QCOMPARE(g.nodeCount(), std::size_t(6));
    QCOMPARE(g.node(NodeId(std::size_t(0))).kind, NodeKind::Input);
    QCOMPARE(g.node(NodeId(std::size_t(1))).kind, NodeKind::Constant);
    // `attr` is read like `attrs`, and `[nid, idx]` like `[nid, idx, version]`.
    const Node &byoc = g.node(NodeId(std::size_t(4)));
    QCOMPARE(byoc.op, std::string("tvmgen_default_dnnl_main_0"));
    QCOMPARE(byoc.inputs.front(), (TensorRef { NodeId(std::size_t(3)), 0 }));
    QCOMPARE(byoc.outputType(1).dtype.str(), std::string("float16"));
    QCOMPARE(g.node(NodeId(std::size_t(3))).attrs.stringOr("data_layout", {}), std::string("NCHW"));
    QCOMPARE(g.node(NodeId(std::size_t(3))).where.line, 5);
    QCOMPARE(g.node(NodeId(std::size_t(3))).where.column, 3);
}

void TestGraphJson::missingRowPointers()
{
    // NNVM writers could leave node_row_ptr out; it is the prefix sum of num_outputs.
    std::string text = replaced(smallGraph, R"(,
 "node_row_ptr": [0, 1, 2, 3, 4, 6, 7])",
                                "");
    QVERIFY(text.find("node_row_ptr") == std::string::npos);
    const ImportResult r = importBytes(text, "legacy.graph.json");
    QVERIFY2(r.ok(), r.firstError().c_str());
    QCOMPARE(r.graph->node(NodeId(std::size_t(5))).outputType(0).toRelay(),
             std::string("Tensor[(1, 2, 8, 8), float32]"));
    QCOMPARE(r.graph->node(NodeId(std::size_t(4))).outputType(1).dtype.str(),
             std::string("float16"));
}

void TestGraphJson::parameterNames()
{
    QVERIFY(GraphJsonImporter::isParameterName("p0"));
    QVERIFY(GraphJsonImporter::isParameterName("p214"));
    QVERIFY(GraphJsonImporter::isParameterName("_param_16"));
    QVERIFY(GraphJsonImporter::isParameterName("conv0_weight"));
    QVERIFY(GraphJsonImporter::isParameterName("bn0_moving_var"));
    QVERIFY(GraphJsonImporter::isParameterName("batch_norm3_add_beta_expand"));
    QVERIFY(!GraphJsonImporter::isParameterName("p"));
    QVERIFY(!GraphJsonImporter::isParameterName("pad0"));
    QVERIFY(!GraphJsonImporter::isParameterName("data"));
    QVERIFY(!GraphJsonImporter::isParameterName("input0"));
}

void TestGraphJson::canRead()
{
    const GraphJsonImporter importer;
    QVERIFY(importer.canRead("x/deploy_graph.json", "{}"));
    QVERIFY(importer.canRead("deploy.json", "{\n  \"nodes\": [\n {\"op\": \"tvm_op\""));
    QVERIFY(!importer.canRead("package.json", "{\"name\": \"x\", \"version\": \"1\"}"));
    QVERIFY(!importer.canRead("model.relay", "def @main() { 1f }"));
    const Importer *picked = importerFor("/tmp/resnet.graph.json", smallGraph);
    QVERIFY(picked);
    QCOMPARE(picked->formatName(), std::string("graph.json"));
}

void TestGraphJson::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("message");
    const std::string g = smallGraph;
    auto row = [](const char *name, const std::string &text, const char *code, const char *where,
                  const char *message) {
        QTest::newRow(name) << QString::fromStdString(text) << QString::fromLatin1(code)
                            << QString::fromLatin1(where) << QString::fromLatin1(message);
    };
    // Locations by hand: a missing key is reported at the object (1:1); a wrong value at the value
    // (`{"nodes": {}` has its `{` at column 11; in smallGraph "heads" is line 17, its first
    // entry at column 12; the shape list of "attrs" is line 18, column 36; "node_row_ptr" line 21,
    // column 18).
    row("missing nodes", R"({"heads": [], "attrs": {}})", "graphjson.missing_key",
        "bad.graph.json:1:1", "missing required key \"nodes\"");
    row("nodes not an array", R"({"nodes": {}, "heads": [], "attrs": {}})", "graphjson.type",
        "bad.graph.json:1:11", "\"nodes\" must be a JSON array");
    row("input node out of range", replaced(g, "[[4, 0, 0], [4, 1, 0]]", "[[4, 0, 0], [40, 0, 0]]"),
        "graphjson.bad_entry", "bad.graph.json:13:3",
        "node 5 ('tvmgen_default_fused_add'): input 1 refers to node 40, but the graph has 6 "
        "nodes");
    row("output index out of range",
        replaced(g, "[[4, 0, 0], [4, 1, 0]]", "[[4, 0, 0], [4, 2, 0]]"), "graphjson.bad_entry",
        "bad.graph.json:13:3",
        "node 5 ('tvmgen_default_fused_add'): input 1 refers to output 2 of node 4, which has 2 "
        "outputs");
    row("head out of range", replaced(g, "\"heads\": [[5, 0, 0]]", "\"heads\": [[6, 0, 0]]"),
        "graphjson.bad_entry", "bad.graph.json:17:12",
        "head 0 refers to node 6, but the graph has 6 nodes");
    row("num_outputs mismatch", replaced(g, "\"num_outputs\": \"2\"", "\"num_outputs\": \"3\""),
        "graphjson.num_outputs", "bad.graph.json:10:3",
        "node 4 ('tvmgen_default_dnnl_main_0'): num_outputs is 3 but node_row_ptr gives it 2 "
        "entries (4..6)");
    row("cycle", replaced(g, "\"inputs\": [[3, 0]]", "\"inputs\": [[5, 0]]"), "graphjson.cycle",
        "bad.graph.json:10:3",
        "node 4 ('tvmgen_default_dnnl_main_0'): the graph has a cycle: 2 nodes are on it or depend "
        "on it (nodes 4, 5)");
    row("missing func_name", replaced(g, "\"func_name\": \"tvmgen_default_fused_add\", ", ""),
        "graphjson.missing_key", "bad.graph.json:13:3",
        "node 5 ('tvmgen_default_fused_add'): a tvm_op node needs a string \"func_name\" "
        "attribute");
    row("unknown op",
        replaced(g, "{\"op\": \"null\", \"name\": \"p1\"",
                 "{\"op\": \"relay_op\", \"name\": \"p1\""),
        "graphjson.bad_node", "bad.graph.json:4:3",
        "node 2 ('p1'): unknown op 'relay_op' (expected \"null\" or \"tvm_op\")");
    row("shape list too short", replaced(g, "[1,2,8,8],[1,2,8,8]]]", "[1,2,8,8]]]"),
        "graphjson.attr_length", "bad.graph.json:18:36",
        "graph attribute \"shape\" has 6 entries, but the nodes have 7 outputs");
    row("wrong row pointer length", replaced(g, "[0, 1, 2, 3, 4, 6, 7]", "[0, 1, 2, 3, 4, 6]"),
        "graphjson.node_row_ptr", "bad.graph.json:21:18",
        "\"node_row_ptr\" has 6 entries, expected 7 (number of nodes + 1)");
    row("bad num_outputs type", replaced(g, "\"num_outputs\": \"2\"", "\"num_outputs\": \"two\""),
        "graphjson.type", "bad.graph.json:10:3",
        "node 4 ('tvmgen_default_dnnl_main_0'): \"num_outputs\" must be a positive integer, not "
        "\"two\"");
    row("not an object", "[1, 2]", "graphjson.type", "bad.graph.json:1:1",
        "the top level of a graph.json must be a JSON object");
}

void TestGraphJson::malformed()
{
    QFETCH(QString, text);
    QFETCH(QString, code);
    QFETCH(QString, where);
    QFETCH(QString, message);
    const ImportResult r = GraphJsonImporter().importBytes(text.toStdString(), "bad.graph.json");
    QVERIFY(!r.graph);
    QVERIFY(!r.ok());
    QVERIFY(!r.diagnostics.empty());
    const Diagnostic &d = r.diagnostics.front();
    QCOMPARE(d.severity, Severity::Error);
    QCOMPARE(QString::fromStdString(d.code), code);
    QCOMPARE(QString::fromStdString(d.where.toString()), where);
    QCOMPARE(QString::fromStdString(d.message), message);
}

void TestGraphJson::invalidJsonPosition()
{
    // The second comma on line 3 is the error: line 3, column 32.
    const std::string text
        = "{\n  \"nodes\": [\n    {\"op\": \"null\", \"name\": \"x\",, \"inputs\": []}\n  ]\n}\n";
    const ImportResult r = importBytes(text, "broken.graph.json");
    QVERIFY(!r.graph);
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    QCOMPARE(r.diagnostics[0].code, std::string("graphjson.syntax"));
    QCOMPARE(r.diagnostics[0].where.toString(), std::string("broken.graph.json:3:32"));
    QVERIFY2(r.diagnostics[0].message.rfind("invalid JSON: syntax error", 0) == 0,
             r.diagnostics[0].message.c_str());

    // Truncated inside a string: the position just past the last byte.
    const ImportResult cut = importBytes(std::string(smallGraph).substr(0, 40), "cut.graph.json");
    QVERIFY(!cut.graph);
    QCOMPARE(cut.diagnostics[0].code, std::string("graphjson.syntax"));
    QCOMPARE(cut.diagnostics[0].where.toString(), std::string("cut.graph.json:2:29"));
}

void TestGraphJson::neverThrows()
{
    // Every truncation of a valid file, and values of the wrong JSON type in every slot, give
    // an error diagnostic and no graph, never an exception or a crash.
    const std::string full = smallGraph;
    const GraphJsonImporter importer;
    int failures = 0;
    for (std::size_t n = 0; n + 2 < full.size(); ++n) {
        const ImportResult r = importer.importBytes(full.substr(0, n), "cut.graph.json");
        failures += !r.graph && hasErrors(r.diagnostics) ? 1 : 0;
    }
    QCOMPARE(failures, int(full.size()) - 2);
    const std::vector<std::pair<std::string, std::string>> mutations = {
        { R"("inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]])", R"("inputs": "none")" },
        { R"("inputs": [[3, 0]])", R"("inputs": [[3]])" },
        { R"("inputs": [[3, 0]])", R"("inputs": [["3", 0]])" },
        { R"({"op": "null", "name": "data", "inputs": []})", "42" },
        { R"("name": "p0")", R"("name": 7)" },
        { R"("op": "null", "name": "p1")", R"("op": null, "name": "p1")" },
        { R"("shape": ["list_shape")", R"("shape": ["list_int")" },
        { "[1,3,8,8],[4,3,3,3]", "[1,3,8,\"8\"],[4,3,3,3]" },
        { R"("dltype": ["list_str", ["float32",)", R"("dltype": ["list_str", [32,)" },
        { R"("heads": [[5, 0, 0]])", R"("heads": [[5, -1, 0]])" },
        { R"("heads": [[5, 0, 0]])", R"("heads": [])" },
        { R"("arg_nodes": [0, 1, 2])", R"("arg_nodes": [0, 1, 99])" },
        { "[0, 1, 2, 3, 4, 6, 7]", "[1, 2, 3, 4, 5, 7, 8]" },
        { R"("attr": {)", R"("attr": 5, "x": {)" },
    };
    for (const auto &[from, to] : mutations) {
        const std::string text = replaced(full, from, to);
        QVERIFY2(text != full, from.c_str());
        const ImportResult r = importer.importBytes(text, "bad.graph.json");
        QVERIFY2(!r.graph, to.c_str());
        QVERIFY2(hasErrors(r.diagnostics), to.c_str());
        QVERIFY2(r.diagnostics.front().where.file == "bad.graph.json", to.c_str());
    }
}

QTEST_APPLESS_MAIN(TestGraphJson)
#include "tst_graphjson.moc"
