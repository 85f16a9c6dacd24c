// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The ONNX importer: the sample's nodes, shapes and names; cut-after on op_types; subgraphs,
// domains, Constant nodes, external data; and malformed models (built here with libonnx's
// protobuf classes, so every case is explicit).
#include "CliRunner.h"
#include "core/analysis/ModelSummary.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanReport.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

using namespace cleave;

namespace {

const std::string sample = CLEAVE_SAMPLES_DIR "/resnet_inception.onnx";

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

onnx::ValueInfoProto valueInfo(const std::string &name, std::vector<std::int64_t> dims)
{
    onnx::ValueInfoProto v;
    v.set_name(name);
    auto *t = v.mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (std::int64_t d : dims)
        t->mutable_shape()->add_dim()->set_dim_value(d);
    return v;
}

onnx::NodeProto *addNode(onnx::GraphProto &g, const std::string &op, std::vector<std::string> in,
                         std::vector<std::string> out, const std::string &name = {})
{
    onnx::NodeProto *n = g.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto &i : in)
        n->add_input(i);
    for (const auto &o : out)
        n->add_output(o);
    return n;
}

/// x -> Relu -> Neg -> y, opset 13.
onnx::ModelProto smallModel()
{
    onnx::ModelProto m;
    m.set_ir_version(7);
    auto *opset = m.add_opset_import();
    opset->set_version(13);
    onnx::GraphProto *g = m.mutable_graph();
    g->set_name("small");
    *g->add_input() = valueInfo("x", { 1, 4 });
    *g->add_output() = valueInfo("y", { 1, 4 });
    addNode(*g, "Relu", { "x" }, { "r" }, "relu");
    addNode(*g, "Neg", { "r" }, { "y" }, "neg");
    return m;
}

ImportResult importModel(const onnx::ModelProto &m, const std::string &path = "model.onnx")
{
    return importBytes(m.SerializeAsString(), path);
}

} // namespace

class TestOnnx : public QObject
{
    Q_OBJECT

private slots:
    void sampleCounts();
    void sampleShapesAndNames();
    void cutAfterOpTypeInFileOrder();
    void exportNamesModuleInputsByTensor();
    void domainsConstantsAndUnnamedNodes();
    void ifBranchesAreScopes();
    void fileOrderIsKeptWhenSorted();
    void externalData();
    void malformed_data();
    void malformed();
};

void TestOnnx::sampleCounts()
{
    const ImportResult r = importFile(sample);
    QVERIFY2(r.ok(), r.firstError().c_str());
    QCOMPARE(r.graph->format(), std::string("onnx"));
    const ModelSummary s = ModelSummary::compute(*r.graph);
    QCOMPARE(s.opCalls, std::size_t(40));
    const OpHistogram expected { { "Conv", 13 },   { "Relu", 12 },   { "BatchNormalization", 6 },
                                 { "Add", 2 },     { "MaxPool", 2 }, { "Concat", 1 },
                                 { "Flatten", 1 }, { "Gemm", 1 },    { "GlobalAveragePool", 1 },
                                 { "Softmax", 1 } };
    QCOMPARE(s.ops, expected);
    QCOMPARE(s.inputs.size(), std::size_t(1));
    QCOMPARE(s.inputs[0].name, std::string("input"));
    QCOMPARE(s.outputs.size(), std::size_t(1));
    QCOMPARE(s.outputs[0].name, std::string("output"));
    QCOMPARE(s.outputs[0].type.toShortString(), std::string("1×10 float32"));
    // 52 initializers: conv weights and biases, batch-norm parameters, the classifier.
    std::size_t constants = 0;
    std::int64_t bytes = 0;
    for (NodeId n : r.graph->function(r.graph->mainFunction()).nodes) {
        if (r.graph->node(n).kind == NodeKind::Constant) {
            ++constants;
            bytes += r.graph->node(n).outputType().byteSize().value_or(0);
        }
    }
    QCOMPARE(constants, std::size_t(52));
    QCOMPARE(bytes, std::int64_t(68632)); // 17,158 float32 weights
}

void TestOnnx::sampleShapesAndNames()
{
    const ImportResult r = importFile(sample);
    QVERIFY(r.ok());
    const Graph &g = *r.graph;
    const std::vector<std::pair<const char *, const char *>> shapes = {
        { "stem.conv", "1×16×32×32 float32" },
        { "layer2.conv1", "1×24×16×16 float32" },
        { "layer2.down.bn", "1×24×16×16 float32" },
        { "pool", "1×24×8×8 float32" },
        { "inc.b3.conv3", "1×8×8×8 float32" },
        { "inc.concat", "1×32×8×8 float32" },
        { "flatten", "1×32 float32" },
        { "softmax", "1×10 float32" },
    };
    for (const auto &[key, type] : shapes) {
        const NodeId n = g.findByKey(key);
        QVERIFY2(n.isValid(), key);
        QCOMPARE(g.node(n).outputType().toShortString(), std::string(type));
    }
    const Node &softmax = g.node(g.findByKey("softmax"));
    QCOMPARE(softmax.outputNames(), std::vector<std::string> { "output" });
    const Node &conv = g.node(g.findByKey("layer1.conv1"));
    QCOMPARE(conv.op, std::string("Conv"));
    QCOMPARE(conv.inputs.size(), std::size_t(3));
    QCOMPARE(g.key(conv.inputs[1].node), std::string("layer1.conv1.weight"));
    QCOMPARE(conv.attrs.intList("pads"), std::optional(std::vector<std::int64_t> { 1, 1, 1, 1 }));
    QCOMPARE(g.node(g.findByKey("inc.concat")).inputs.size(), std::size_t(4));
    QCOMPARE(g.node(g.findByKey("inc.concat")).attrs.intOr("axis", -1), std::int64_t(1));
}

void TestOnnx::cutAfterOpTypeInFileOrder()
{
    const ImportResult r = importFile(sample);
    QVERIFY(r.ok());
    PartitionPlan plan(*r.graph);
    // Relu:3 is layer2.relu1: the second block's skip input (layer1.relu2) crosses too.
    const PlanEdit edit = plan.cutAfterOp("Relu", 3);
    QVERIFY(edit.diagnostics.empty());
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const BoundaryTable b = computeBoundary(plan);
    QCOMPARE(b.tensors.size(), std::size_t(2));
    std::vector<std::string> crossing;
    for (const BoundaryTensor &t : b.tensors)
        crossing.push_back(r.graph->key(t.tensor.node));
    std::sort(crossing.begin(), crossing.end());
    QCOMPARE(crossing, (std::vector<std::string> { "layer1.relu2", "layer2.relu1" }));
    QCOMPARE(b.interfaces[1].inputs.size(), std::size_t(2));
    QCOMPARE(b.interfaces[1].inputs[0].name, std::string("data_n_0"));
}

void TestOnnx::exportNamesModuleInputsByTensor()
{
    // pipeline_config.json and partitions.json name ONNX module inputs by the tensor names the
    // mod<k>.onnx files use, not by the engine's data_n_<i>.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("export"));
    const auto run = test::runCli({ QStringLiteral("partition"), QString::fromStdString(sample),
                                    QStringLiteral("--cut-after"), QStringLiteral("Relu:3"),
                                    QStringLiteral("--out"), out });
    QCOMPARE(run.exitCode, 0);
    const auto config = nlohmann::json::parse(
        readFile((out + QStringLiteral("/pipeline_config.json")).toStdString()));
    const auto &outputs = config["module_connection"][0]["output"];
    QCOMPARE(outputs.size(), std::size_t(2));
    QCOMPARE(outputs[0]["dependencies"][0]["input_name"].get<std::string>(),
             std::string("layer2.relu1"));
    QCOMPARE(outputs[1]["dependencies"][0]["input_name"].get<std::string>(),
             std::string("layer1.relu2"));
    const auto manifest
        = nlohmann::json::parse(readFile((out + QStringLiteral("/partitions.json")).toStdString()));
    QCOMPARE(manifest["module_format"].get<std::string>(), std::string("onnx"));
    const auto &input = manifest["partitions"][1]["inputs"][0];
    QCOMPARE(input["name"].get<std::string>(), std::string("layer2.relu1"));
    QCOMPARE(input["cut_name"].get<std::string>(), std::string("data_n_0"));
    QVERIFY(readFile((out + QStringLiteral("/build_pipeline.py")).toStdString())
                .find("relay.frontend.from_onnx")
            != std::string::npos);
    QCOMPARE(test::runCli({ QStringLiteral("verify"), out }).exitCode, 0);
}

void TestOnnx::domainsConstantsAndUnnamedNodes()
{
    onnx::ModelProto m = smallModel();
    onnx::GraphProto *g = m.mutable_graph();
    g->mutable_node()->Clear();
    auto *c = addNode(*g, "Constant", {}, { "k" });
    auto *value = c->add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    value->mutable_t()->add_dims(1);
    value->mutable_t()->add_dims(4);
    for (int i = 0; i < 4; ++i)
        value->mutable_t()->add_float_data(1.0f);
    addNode(*g, "Add", { "x", "k" }, { "a" });
    auto *fused = addNode(*g, "FusedGelu", { "a" }, { "y" });
    fused->set_domain("com.microsoft");
    auto *ms = m.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    const ImportResult r = importModel(m);
    QVERIFY2(r.ok(), r.firstError().c_str());
    const ModelSummary s = ModelSummary::compute(*r.graph);
    QCOMPARE(s.ops, (OpHistogram { { "Add", 1 }, { "com.microsoft.FusedGelu", 1 } }));
    // The Constant node is a constant (it follows its consumers), keyed Constant_0.
    const NodeId k = r.graph->findByKey("Constant_0");
    QVERIFY(k.isValid());
    QCOMPARE(r.graph->node(k).kind, NodeKind::Constant);
    QCOMPARE(r.graph->node(k).outputType().toShortString(), std::string("1×4 float32"));
    QVERIFY(r.graph->findByKey("Add_0").isValid());
    QVERIFY(r.graph->findByKey("FusedGelu_0").isValid());
}

void TestOnnx::ifBranchesAreScopes()
{
    onnx::ModelProto m = smallModel();
    onnx::GraphProto *g = m.mutable_graph();
    g->mutable_node()->Clear();
    *g->add_input() = valueInfo("c", {});
    g->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::BOOL);
    addNode(*g, "Relu", { "x" }, { "r" }, "relu");
    auto *iff = addNode(*g, "If", { "c" }, { "y" }, "choose");
    for (const char *branch : { "then_branch", "else_branch" }) {
        auto *a = iff->add_attribute();
        a->set_name(branch);
        a->set_type(onnx::AttributeProto::GRAPH);
        onnx::GraphProto *b = a->mutable_g();
        b->set_name(branch);
        // The branches read `r` from the enclosing graph.
        addNode(*b, std::string(branch) == "then_branch" ? "Neg" : "Abs", { "r" },
                { std::string(branch) + "_out" }, std::string(branch) + ".op");
        *b->add_output() = valueInfo(std::string(branch) + "_out", { 1, 4 });
    }
    const ImportResult r = importModel(m);
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &graph = *r.graph;
    const Node &node = graph.node(graph.findByKey("choose"));
    QCOMPARE(node.kind, NodeKind::OpCall);
    QCOMPARE(node.op, std::string("If"));
    QCOMPARE(node.scopes().size(), std::size_t(2));
    const Function &then = graph.function(node.scopes()[0]);
    QCOMPARE(then.kind, Function::Kind::Scope);
    QCOMPARE(graph.node(then.result).op, std::string("Neg"));
    // The branch's op reads the outer Relu.
    QCOMPARE(graph.key(graph.node(then.result).inputs[0].node), std::string("relu"));
    QCOMPARE(ModelSummary::compute(graph).ops,
             (OpHistogram { { "Abs", 1 }, { "If", 1 }, { "Neg", 1 }, { "Relu", 1 } }));
}

void TestOnnx::fileOrderIsKeptWhenSorted()
{
    // Nodes listed out of order are placed after their producers; the file order otherwise.
    onnx::ModelProto m = smallModel();
    onnx::GraphProto *g = m.mutable_graph();
    g->mutable_node()->SwapElements(0, 1);
    const ImportResult r = importModel(m);
    QVERIFY2(r.ok(), r.firstError().c_str());
    PartitionPlan plan(*r.graph);
    QCOMPARE(r.graph->key(plan.view().order().back()), std::string("neg"));
}

void TestOnnx::externalData()
{
    QTemporaryDir dir;
    onnx::ModelProto m = smallModel();
    onnx::GraphProto *g = m.mutable_graph();
    g->mutable_node()->Clear();
    onnx::TensorProto *w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(1);
    w->add_dims(4);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto *loc = w->add_external_data();
    loc->set_key("location");
    loc->set_value("weights.bin");
    addNode(*g, "Add", { "x", "w" }, { "y" }, "add");
    const std::string path = dir.filePath(QStringLiteral("m.onnx")).toStdString();
    std::ofstream(path, std::ios::binary) << m.SerializeAsString();

    ImportResult missing = importFile(path);
    QVERIFY(!missing.ok());
    QCOMPARE(QString::fromStdString(missing.firstError()),
             QString::fromStdString(path
                                    + ":1:1: error: initializer 'w' keeps its data in "
                                      "'weights.bin', which does not exist in the model's folder "
                                      "[onnx.external_data]"));
    std::ofstream(dir.filePath(QStringLiteral("weights.bin")).toStdString(), std::ios::binary)
        << std::string(8, '\0');
    ImportResult shortFile = importFile(path);
    QVERIFY(!shortFile.ok());
    QVERIFY(shortFile.firstError().find("needs bytes 0 to 16 of 'weights.bin', which holds 8")
            != std::string::npos);
    std::ofstream(dir.filePath(QStringLiteral("weights.bin")).toStdString(), std::ios::binary)
        << std::string(16, '\0');
    ImportResult ok = importFile(path);
    QVERIFY2(ok.ok(), ok.firstError().c_str());
    QCOMPARE(ok.graph->node(ok.graph->findByKey("w")).outputType().byteSize(),
             std::optional<std::int64_t>(16));
}

void TestOnnx::malformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error");
    const std::string good = readFile(sample);
    QTest::newRow("truncated") << QByteArray::fromStdString(good.substr(0, good.size() / 2))
                               << "model.onnx:1:1: error: not a valid ONNX model: the protobuf "
                                  "message is malformed or truncated (37842 bytes) [onnx.parse]";
    // A picture with a model's name is named for what it is (the PNG signature).
    QTest::newRow("wrong magic") << QByteArray("\x89PNG\r\n\x1a\n not a model at all")
                                 << "model.onnx:1:1: error: this is a PNG image";

    onnx::ModelProto dangling = smallModel();
    dangling.mutable_graph()->mutable_node(1)->set_input(0, "ghost");
    QTest::newRow("dangling") << QByteArray::fromStdString(dangling.SerializeAsString())
                              << "model.onnx:1:1: error: node 'neg' (Neg) input 0 reads 'ghost', "
                                 "which no node, graph input or initializer produces "
                                 "[onnx.dangling_input]";

    onnx::ModelProto cycle = smallModel();
    cycle.mutable_graph()->mutable_node(0)->set_input(0, "y");
    QTest::newRow("cycle") << QByteArray::fromStdString(cycle.SerializeAsString())
                           << "model.onnx:1:1: error: the nodes form a cycle (ONNX graphs must be "
                              "acyclic): relu, neg [onnx.cycle]";

    onnx::ModelProto twice = smallModel();
    twice.mutable_graph()->mutable_node(1)->set_output(0, "r");
    QTest::newRow("duplicate output")
        << QByteArray::fromStdString(twice.SerializeAsString())
        << "model.onnx:1:1: error: node 'neg' (Neg) writes tensor 'r', which is already defined "
           "[onnx.duplicate_output]";

    // Issue 34 (low): 40 If nodes each inside the previous one's then_branch is past protobuf's
    // 100 message levels (model, graph, then node, attribute, graph per If): too deep, not
    // "malformed or truncated".
    onnx::ModelProto nested = smallModel();
    onnx::GraphProto *level = nested.mutable_graph();
    for (int i = 0; i < 40; ++i) {
        onnx::NodeProto *node = level->add_node();
        node->set_op_type("If");
        node->add_input("x");
        node->add_output("if" + std::to_string(i));
        onnx::AttributeProto *branch = node->add_attribute();
        branch->set_name("then_branch");
        branch->set_type(onnx::AttributeProto::GRAPH);
        level = branch->mutable_g();
        level->set_name("branch" + std::to_string(i));
    }
    QTest::newRow("nested too deep")
        << QByteArray::fromStdString(nested.SerializeAsString())
        << "model.onnx:1:1: error: the model's graphs are nested 41 deep (If / Loop / Scan bodies "
           "inside one another): more than the 100 protobuf message levels";

    onnx::ModelProto noGraph;
    noGraph.set_ir_version(7);
    QTest::newRow("no graph")
        << QByteArray::fromStdString(noGraph.SerializeAsString())
        << "model.onnx:1:1: error: the ONNX model has no graph [onnx.no_graph]";
}

void TestOnnx::malformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    const ImportResult r
        = importBytes(std::string_view(bytes.constData(), std::size_t(bytes.size())), "model.onnx");
    QVERIFY(!r.ok());
    const QString got = QString::fromStdString(r.firstError());
    QVERIFY2(got.startsWith(error), qPrintable(got));
}

QTEST_APPLESS_MAIN(TestOnnx)
#include "tst_onnx.moc"
