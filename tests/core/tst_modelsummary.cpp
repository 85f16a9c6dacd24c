// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/ModelSummary.h"
#include "core/graph/Graph.h"

#include <QTest>

#include <string>

using namespace cleave;

namespace {

Type tensor(std::vector<std::int64_t> dims, const std::string &dtype)
{
    std::vector<Dim> shape;
    for (std::int64_t d : dims)
        shape.push_back(d < 0 ? Dim::unknown() : Dim::known(d));
    return Type::tensor(std::move(shape), dtype);
}

Function function(Function::Kind kind, std::string name, FunctionId parent = {})
{
    Function f;
    f.kind = kind;
    f.name = std::move(name);
    f.parent = parent;
    return f;
}

NodeId addParam(Graph &g, FunctionId f, std::string name, Type type)
{
    Node n;
    n.kind = NodeKind::Input;
    n.function = f;
    n.name = std::move(name);
    n.setOutputTypes({ std::move(type) });
    const NodeId id = g.addNode(std::move(n));
    g.function(f).params.push_back(id);
    return id;
}

NodeId addConstant(Graph &g, FunctionId f, std::string name, std::string metaRef, Type type)
{
    Node n;
    n.kind = NodeKind::Constant;
    n.function = f;
    n.name = std::move(name);
    n.setMetaRef(std::move(metaRef));
    n.setOutputTypes({ std::move(type) });
    return g.addNode(std::move(n));
}

NodeId addOp(Graph &g, FunctionId f, std::string name, std::string op, std::vector<NodeId> inputs,
             Type type)
{
    Node n;
    n.kind = NodeKind::OpCall;
    n.function = f;
    n.name = std::move(name);
    n.op = std::move(op);
    for (NodeId in : inputs)
        n.inputs.push_back({ in, 0 });
    n.setOutputTypes({ std::move(type) });
    return g.addNode(std::move(n));
}

NodeId addCall(Graph &g, FunctionId f, std::string name, FunctionId callee,
               std::vector<NodeId> inputs, Type type)
{
    NodeId id = addOp(g, f, std::move(name), {}, std::move(inputs), std::move(type));
    g.node(id).kind = NodeKind::FunctionCall;
    g.node(id).callee = callee;
    return id;
}

// The module of conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt, built by hand:
// @main calls a BYOC partition, whose body calls a composite function literal.
Graph byocGraph()
{
    Graph g;
    const FunctionId main = g.addFunction(function(Function::Kind::Global, "main"));
    Function partition = function(Function::Kind::Global, "tvmgen_default_match_main_0");
    partition.attrs.set("Compiler", AttrValue::string("match"));
    partition.attrs.set("Primitive", AttrValue::integer(1));
    partition.attrs.set("Inline", AttrValue::integer(1));
    const FunctionId byoc = g.addFunction(std::move(partition));
    Function compositeFn = function(Function::Kind::Literal, "%2", byoc);
    compositeFn.attrs.set("PartitionedFromPattern",
                          AttrValue::string("nn.conv2d_nn.bias_add_nn.relu_"));
    compositeFn.attrs.set("Composite", AttrValue::string("match.vec_conv"));
    const FunctionId composite = g.addFunction(std::move(compositeFn));

    const NodeId input = addParam(g, main, "%input_0", tensor({ 1, 3, 32, 32 }, "int8"));
    const NodeId call = addCall(g, main, "%0", byoc, { input }, tensor({ 1, 1, 16, 16 }, "int32"));
    g.function(main).result = call;

    const NodeId arg = addParam(g, byoc, "%match_0_i0", tensor({ 1, 3, 32, 32 }, "int8"));
    const NodeId weight
        = addConstant(g, byoc, "%c0", "meta[relay.Constant][0]", tensor({ 1, 3, 3, 3 }, "int8"));
    const NodeId bias
        = addConstant(g, byoc, "%c1", "meta[relay.Constant][1]", tensor({ 1 }, "int32"));
    const NodeId inner = addCall(g, byoc, "%3", composite, { arg, weight, bias },
                                 tensor({ 1, 1, 16, 16 }, "int32"));
    g.function(byoc).result = inner;

    const NodeId x = addParam(g, composite, "%FunctionVar_0_0", tensor({ 1, 3, 32, 32 }, "int8"));
    const NodeId w = addParam(g, composite, "%FunctionVar_0_1", tensor({ 1, 3, 3, 3 }, "int8"));
    const NodeId b = addParam(g, composite, "%FunctionVar_0_2", tensor({ 1 }, "int32"));
    const Type out = tensor({ 1, 1, 16, 16 }, "int32");
    const NodeId conv = addOp(g, composite, "%0", "nn.conv2d", { x, w }, out);
    const NodeId biasAdd = addOp(g, composite, "%1", "nn.bias_add", { conv, b }, out);
    g.function(composite).result = addOp(g, composite, "%r", "nn.relu", { biasAdd }, out);
    g.finalize();
    return g;
}

// A fused module: @main calls one primitive literal twice, reuses a constant of unknown size,
// branches with `if`, and returns a tuple; inputs have a `?` and a symbolic dim.
Graph fusedGraph()
{
    Graph g;
    const FunctionId main = g.addFunction(function(Function::Kind::Global, "main"));
    Function fusedFn = function(Function::Kind::Literal, "%0", main);
    fusedFn.attrs.set("Primitive", AttrValue::integer(1));
    const FunctionId fused = g.addFunction(std::move(fusedFn));
    const FunctionId thenScope = g.addFunction(function(Function::Kind::Scope, "if.then", main));
    const FunctionId elseScope = g.addFunction(function(Function::Kind::Scope, "if.else", main));

    const NodeId data = addParam(g, main, "%data", tensor({ -1, 8 }, "float32"));
    const NodeId len = addParam(g, main, "%n", Type::tensor({ Dim::symbolic("n") }, "int64"));
    const Type t = tensor({ -1, 8 }, "float32");

    const NodeId p0 = addParam(g, fused, "%p0", t);
    Node one;
    one.kind = NodeKind::Constant;
    one.function = fused;
    one.name = "$one";
    one.setValue(AttrValue::floating(1.0, "float32", "1f"));
    one.setOutputTypes({ tensor({}, "float32") });
    const NodeId scalar = g.addNode(std::move(one));
    const NodeId sum = addOp(g, fused, "%1", "add", { p0, scalar }, t);
    g.function(fused).result = addOp(g, fused, "%2", "nn.relu", { sum }, t);

    const NodeId call1 = addCall(g, main, "%3", fused, { data }, t);
    const NodeId call2 = addCall(g, main, "%4", fused, { call1 }, t);
    const NodeId c1 = addConstant(g, main, "%k1", "meta[relay.Constant][0]", Type::unknown());
    const NodeId c2 = addConstant(g, main, "%k2", "meta[relay.Constant][0]", Type::unknown());
    const NodeId add = addOp(g, main, "%5", "add", { call2, c1 }, t);
    const NodeId add2 = addOp(g, main, "%6", "multiply", { add, c2 }, t);

    g.function(thenScope).result = addOp(g, thenScope, "%7", "nn.relu", { add2 }, t);
    g.function(elseScope).result = addOp(g, elseScope, "%8", "negative", { add2 }, t);
    Node branch;
    branch.kind = NodeKind::If;
    branch.function = main;
    branch.name = "%9";
    branch.inputs = { { len, 0 } };
    branch.setScopes({ thenScope, elseScope });
    branch.setOutputTypes({ t });
    const NodeId ifNode = g.addNode(std::move(branch));

    Node result;
    result.kind = NodeKind::Tuple;
    result.function = main;
    result.name = "%10";
    result.inputs = { { add2, 0 }, { ifNode, 0 } };
    result.setOutputTypes({ Type::tuple({ t, t }) });
    g.function(main).result = g.addNode(std::move(result));
    g.finalize();
    return g;
}

} // namespace

class TestModelSummary : public QObject
{
    Q_OBJECT

private slots:
    void byocCounts();
    void byocJson();
    void fusedModule();
    void textReport();
    void attrValuesAsJson();
};

void TestModelSummary::byocCounts()
{
    const ModelSummary s = ModelSummary::compute(byocGraph());
    QCOMPARE(s.opCalls, std::size_t(3));
    QCOMPARE(s.ops, (OpHistogram { { "nn.bias_add", 1 }, { "nn.conv2d", 1 }, { "nn.relu", 1 } }));
    QCOMPARE(s.functions.size(), std::size_t(3));
    QCOMPARE(s.functions[1].name, std::string("@tvmgen_default_match_main_0"));
    QCOMPARE(s.functions[2].name, std::string("%2"));
    QCOMPARE(s.functions[2].params, std::size_t(3));
    QCOMPARE(s.functions[2].nodes, std::size_t(6));

    QCOMPARE(s.blocks.size(), std::size_t(2));
    QCOMPARE(s.blocks[0].name, std::string("@tvmgen_default_match_main_0"));
    QCOMPARE(s.blocks[0].kind, std::string("external"));
    QCOMPARE(s.blocks[0].calls, std::size_t(1));
    QCOMPARE(s.blocks[0].opCalls, std::size_t(3)); // the nested composite's ops count
    QCOMPARE(s.blocks[1].kind, std::string("composite"));
    QCOMPARE(s.blocks[1].ops.at("nn.conv2d"), std::size_t(1));

    QCOMPARE(s.constants, std::size_t(2));
    QCOMPARE(s.constantBytes, std::int64_t(27 + 4));
    QVERIFY(s.constantBytesKnown);
    QCOMPARE(s.scalarConstants, std::size_t(0));
}

void TestModelSummary::byocJson()
{
    const nlohmann::json j = ModelSummary::compute(byocGraph()).toJson();
    QCOMPARE(j["op_calls"].get<int>(), 3);
    QCOMPARE(j["ops"].dump(), std::string(R"({"nn.bias_add":1,"nn.conv2d":1,"nn.relu":1})"));
    QCOMPARE(j["inputs"].size(), std::size_t(1));
    QCOMPARE(j["inputs"][0]["name"].get<std::string>(), std::string("input_0"));
    QCOMPARE(j["inputs"][0]["shape"].dump(), std::string("[1,3,32,32]"));
    QCOMPARE(j["inputs"][0]["dtype"].get<std::string>(), std::string("int8"));
    QCOMPARE(j["outputs"][0]["name"].get<std::string>(), std::string("output_0"));
    QCOMPARE(j["outputs"][0]["node"].get<std::string>(), std::string("%0"));
    QCOMPARE(j["outputs"][0]["shape"].dump(), std::string("[1,1,16,16]"));
    QCOMPARE(j["outputs"][0]["dtype"].get<std::string>(), std::string("int32"));
    QCOMPARE(j["functions"][1]["kind"].get<std::string>(), std::string("global"));
    QCOMPARE(j["functions"][1]["attrs"].dump(),
             std::string(R"({"Compiler":"match","Inline":1,"Primitive":1})"));
    QCOMPARE(j["functions"][2]["kind"].get<std::string>(), std::string("literal"));
    QCOMPARE(j["block_functions"][1]["name"].get<std::string>(), std::string("%2"));
    QCOMPARE(j["block_functions"][1]["op_calls"].get<int>(), 3);
    QCOMPARE(j["constants"].dump(),
             std::string(R"({"bytes":31,"bytes_known":true,"count":2,"scalars":0})"));
}

void TestModelSummary::fusedModule()
{
    const ModelSummary s = ModelSummary::compute(fusedGraph());
    // add ×2 (fused body, main), nn.relu ×2 (fused body, then-branch), multiply, negative.
    QCOMPARE(s.opCalls, std::size_t(6));
    QCOMPARE(
        s.ops,
        (OpHistogram { { "add", 2 }, { "multiply", 1 }, { "negative", 1 }, { "nn.relu", 2 } }));
    // If-branch scopes are not listed as functions.
    QCOMPARE(s.functions.size(), std::size_t(2));
    QCOMPARE(s.blocks.size(), std::size_t(1));
    QCOMPARE(s.blocks[0].kind, std::string("primitive"));
    QCOMPARE(s.blocks[0].calls, std::size_t(2));
    QCOMPARE(s.blocks[0].ops, (OpHistogram { { "add", 1 }, { "nn.relu", 1 } }));
    // One constant referenced twice, of unknown size; one inline scalar.
    QCOMPARE(s.constants, std::size_t(1));
    QVERIFY(!s.constantBytesKnown);
    QCOMPARE(s.scalarConstants, std::size_t(1));

    const nlohmann::json j = s.toJson();
    QCOMPARE(j["inputs"][0]["shape"].dump(), std::string("[-1,8]"));
    QCOMPARE(j["inputs"][1]["name"].get<std::string>(), std::string("n"));
    QCOMPARE(j["inputs"][1]["shape"].dump(), std::string(R"(["n"])"));
    QCOMPARE(j["outputs"].size(), std::size_t(2));
    QCOMPARE(j["outputs"][0]["node"].get<std::string>(), std::string("%6"));
    QCOMPARE(j["outputs"][1]["node"].get<std::string>(), std::string("%9"));
    QCOMPARE(j["outputs"][1]["name"].get<std::string>(), std::string("output_1"));
}

void TestModelSummary::textReport()
{
    const std::string text = ModelSummary::compute(byocGraph()).toText(true);
    QVERIFY2(text.find("  Op calls   3\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("  Constants  2 tensors, 31 B (0 inline scalars)\n") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("  input_0  Tensor[(1, 3, 32, 32), int8]  %input_0\n") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("\nBlocks (2: 1 composite, 1 external)\n") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("  %2                            composite  1 call  3 ops  "
                       "nn.bias_add×1 nn.conv2d×1 nn.relu×1\n")
                 != std::string::npos,
             text.c_str());

    const std::string brief = ModelSummary::compute(byocGraph()).toText(false);
    QVERIFY(brief.find("composite  1 call") == std::string::npos);
    QVERIFY(brief.find("\nBlocks (2: 1 composite, 1 external)\n") != std::string::npos);
}

void TestModelSummary::attrValuesAsJson()
{
    QCOMPARE(attrValueToJson(AttrValue::integer(7, "int64")).dump(), std::string("7"));
    QCOMPARE(attrValueToJson(AttrValue::floating(0.5)).dump(), std::string("0.5"));
    QCOMPARE(attrValueToJson(AttrValue::boolean(true)).dump(), std::string("true"));
    QCOMPARE(attrValueToJson(AttrValue::string("NCHW")).dump(), std::string(R"("NCHW")"));
    QCOMPARE(attrValueToJson(AttrValue::null()).dump(), std::string("null"));
    const AttrValue nested
        = AttrValue::listOf({ AttrValue::listOf({ AttrValue::integer(0), AttrValue::integer(1) }),
                              AttrValue::string("x") });
    QCOMPARE(attrValueToJson(nested).dump(), std::string(R"([[0,1],"x"])"));
    AttrValue opaque;
    opaque.kind = AttrValue::Kind::Opaque;
    opaque.text = "VirtualDevice(device_type=1)";
    QCOMPARE(attrValueToJson(opaque).dump(), std::string(R"j("VirtualDevice(device_type=1)")j"));
    QCOMPARE(shapeToJson(Type::unknown()).dump(), std::string("null"));
}

QTEST_APPLESS_MAIN(TestModelSummary)
#include "tst_modelsummary.moc"
