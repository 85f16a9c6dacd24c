// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/FunctionView.h"
#include "core/graph/Graph.h"
#include "core/graph/GraphCompare.h"
#include "core/graph/SharedValues.h"
#include "core/support/InternPool.h"

#include <QTest>

#include <sstream>
#include <thread>
#include <type_traits>

using namespace cleave;

namespace {

NodeId addInput(Graph &g, FunctionId f, const std::string &name, Type t)
{
    Node n;
    n.kind = NodeKind::Input;
    n.function = f;
    n.name = name;
    n.setOutputTypes({ std::move(t) });
    const NodeId id = g.addNode(std::move(n));
    g.function(f).params.push_back(id);
    return id;
}

NodeId addOp(Graph &g, FunctionId f, const std::string &name, const std::string &op,
             std::vector<NodeId> inputs)
{
    Node n;
    n.kind = NodeKind::OpCall;
    n.function = f;
    n.name = name;
    n.op = op;
    for (NodeId i : inputs)
        n.inputs.push_back(TensorRef { i, 0 });
    return g.addNode(std::move(n));
}

// data → conv → relu → add(relu, data) (a residual block), plus a helper function @f.
Graph residual()
{
    Graph g;
    Function mainFn;
    mainFn.name = "main";
    const FunctionId m = g.addFunction(mainFn);
    const NodeId data
        = addInput(g, m, "%data", Type::tensor({ Dim::known(1), Dim::known(8) }, "float32"));
    const NodeId conv = addOp(g, m, "%0", "nn.dense", { data });
    const NodeId relu = addOp(g, m, "%1", "nn.relu", { conv });
    const NodeId add = addOp(g, m, "%2", "add", { relu, data });
    g.function(m).result = add;
    Function helper;
    helper.name = "f";
    const FunctionId f = g.addFunction(helper);
    const NodeId x = addInput(g, f, "%x", Type::tensor({}, "int8"));
    g.function(f).result = addOp(g, f, "%0", "negative", { x });
    g.finalize();
    return g;
}

} // namespace

class TestGraph : public QObject
{
    Q_OBJECT

private slots:
    void consumersAndKeys();
    void topologicalOrder();
    void typeSizes_data();
    void typeSizes();
    void attrPrinting();
    void compare();
    void ambiguousKeys();
    void nodeDetailCopyOnWrite();
    void inlineMetaRefs();
    void sharedValues();
    void internedStrings();
    void sharedOutputTypes();
    void sharedOutputTypesAcrossThreads();
    void internPool();
    void sharedAttributes();
    void sharedAttributesAcrossThreads();
    void functionViewEdgeRows();
};

void TestGraph::consumersAndKeys()
{
    const Graph g = residual();
    QCOMPARE(g.nodeCount(), std::size_t(6));
    QCOMPARE(g.mainFunction(), FunctionId(std::size_t(0)));
    const NodeId data(std::size_t(0));
    const auto uses = g.uses(data);
    QCOMPARE(uses.size(), std::size_t(2));
    QCOMPARE(uses[0].consumer, NodeId(std::size_t(1)));
    QCOMPARE(uses[0].input, 0U);
    QCOMPARE(uses[1].consumer, NodeId(std::size_t(3)));
    QCOMPARE(uses[1].input, 1U);
    QCOMPARE(g.consumers(TensorRef { data, 0 }).size(), std::size_t(2));
    QCOMPARE(g.uses(NodeId(std::size_t(3))).size(), std::size_t(0));
    QCOMPARE(g.key(NodeId(std::size_t(2))), std::string("%1"));
    // `%0` exists in both functions: the helper's is qualified.
    QCOMPARE(g.key(NodeId(std::size_t(5))), std::string("@f:%0"));
    QCOMPARE(g.findByKey("@f:%0"), NodeId(std::size_t(5)));
    QCOMPARE(g.findByKey("%9"), NodeId());
    QCOMPARE(g.outputs(g.mainFunction()).size(), std::size_t(1));
}

void TestGraph::topologicalOrder()
{
    Graph g;
    Function mainFn;
    mainFn.name = "main";
    const FunctionId m = g.addFunction(mainFn);
    const NodeId x = addInput(g, m, "%x", {});
    // Created out of order: %b (id 1) reads %a (id 2).
    Node b;
    b.kind = NodeKind::OpCall;
    b.function = m;
    b.name = "%b";
    b.op = "exp";
    b.inputs = { TensorRef { NodeId(std::size_t(2)), 0 } };
    g.addNode(b);
    const NodeId a = addOp(g, m, "%a", "log", { x });
    g.function(m).result = NodeId(std::size_t(1));
    g.finalize();
    const auto order = g.topologicalOrder(m);
    QCOMPARE(order, (std::vector<NodeId> { x, a, NodeId(std::size_t(1)) }));

    // A cycle: its nodes are left out of the order.
    Graph c;
    const FunctionId cm = c.addFunction(mainFn);
    Node p;
    p.function = cm;
    p.op = "exp";
    p.inputs = { TensorRef { NodeId(std::size_t(1)), 0 } };
    c.addNode(p);
    p.inputs = { TensorRef { NodeId(std::size_t(0)), 0 } };
    c.addNode(p);
    c.finalize();
    QCOMPARE(c.topologicalOrder(cm).size(), std::size_t(0));
}

void TestGraph::typeSizes_data()
{
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<int>("bits");
    QTest::newRow("float32") << "float32" << 32;
    QTest::newRow("float16") << "float16" << 16;
    QTest::newRow("int8") << "int8" << 8;
    QTest::newRow("uint16") << "uint16" << 16;
    QTest::newRow("bool") << "bool" << 8;
    QTest::newRow("bfloat16") << "bfloat16" << 16;
    QTest::newRow("float32x4") << "float32x4" << 128;
    QTest::newRow("custom") << "custom[posites2]32" << -1;
}

void TestGraph::typeSizes()
{
    QFETCH(QString, dtype);
    QFETCH(int, bits);
    QCOMPARE(dtypeBits(dtype.toStdString()).value_or(-1), bits);
    const Type t = Type::tensor({ Dim::known(1), Dim::known(64), Dim::known(56), Dim::known(56) },
                                dtype.toStdString());
    if (bits > 0)
        QCOMPARE(t.byteSize().value(), std::int64_t(64 * 56 * 56) * bits / 8);
    else
        QVERIFY(!t.byteSize());
    QCOMPARE(t.toRelay(), "Tensor[(1, 64, 56, 56), " + dtype.toStdString() + "]");
    const Type dynamic = Type::tensor({ Dim::unknown(), Dim::known(3) }, "float32");
    QCOMPARE(dynamic.toRelay(), std::string("Tensor[(?, 3), float32]"));
    QVERIFY(!dynamic.byteSize());
    const Type tuple = Type::tuple({ t, Type::tensor({ Dim::known(64) }, dtype.toStdString()) });
    QCOMPARE(tuple.toRelay(),
             "(Tensor[(1, 64, 56, 56), " + dtype.toStdString() + "], Tensor[(64), "
                 + dtype.toStdString() + "])");
    if (bits > 0)
        QCOMPARE(tuple.byteSize().value(), std::int64_t(64 * 56 * 56 + 64) * bits / 8);
    QCOMPARE(Type::tensor({}, "int64").toRelay(), std::string("int64"));
    QCOMPARE(t.toShortString(), "1\u00d764\u00d756\u00d756 " + dtype.toStdString());
}

void TestGraph::attrPrinting()
{
    QCOMPARE(AttrValue::integer(-1).toRelay(), std::string("-1"));
    QCOMPARE(AttrValue::integer(1, "int64").toRelay(), std::string("1i64"));
    QCOMPARE(AttrValue::floating(0.5).toRelay(), std::string("0.5f"));
    QCOMPARE(AttrValue::floating(1e-05, "float64").toRelay(), std::string("1e-05f64"));
    QCOMPARE(AttrValue::string("a\"b\n").toRelay(), std::string("\"a\\\"b\\n\""));
    QCOMPARE(
        AttrValue::listOf({ AttrValue::listOf({ AttrValue::integer(0), AttrValue::integer(1) }) })
            .toRelay(),
        std::string("[[0, 1]]"));
    QCOMPARE(AttrValue::boolean(false).toRelay(), std::string("False"));
    QCOMPARE(AttrValue::null().toRelay(), std::string("None"));
    QVERIFY(AttrValue::floating(0.5, "float32", "0.5f") == AttrValue::floating(0.5));
    QVERIFY(!(AttrValue::integer(1) == AttrValue::integer(1, "int64")));
    Attributes attrs;
    attrs.set("strides", AttrValue::listOf({ AttrValue::integer(2), AttrValue::integer(2) }));
    attrs.set("groups", AttrValue::integer(1));
    attrs.set("strides", AttrValue::listOf({ AttrValue::integer(1), AttrValue::integer(1) }));
    QCOMPARE(attrs.size(), std::size_t(2));
    QCOMPARE(attrs.items()[0].first, std::string("strides"));
    QCOMPARE(*attrs.intList("strides"), (std::vector<std::int64_t> { 1, 1 }));
    QCOMPARE(attrs.intOr("groups", 7), 1);
    QCOMPARE(attrs.intOr("missing", 7), 7);
}

void TestGraph::compare()
{
    const Graph a = residual();
    Graph b = residual();
    QVERIFY(!firstDifference(a, b));
    b.node(NodeId(std::size_t(2))).op = "sigmoid";
    b.finalize();
    const auto diff = firstDifference(a, b);
    QVERIFY(diff);
    QCOMPARE(QString::fromStdString(*diff),
             QStringLiteral("%1 (nn.relu) in @main: op nn.relu vs sigmoid"));
    Graph c = residual();
    std::swap(c.node(NodeId(std::size_t(3))).inputs[0], c.node(NodeId(std::size_t(3))).inputs[1]);
    c.finalize();
    QVERIFY(firstDifference(a, c));
}

void TestGraph::ambiguousKeys()
{
    // Keys follow the rule "the source name, else `$index`; a key already taken by an earlier
    // node gets the first free `#k` (k ≥ 2)". Node 3 is literally named `%a#2`, which node 1
    // already took, so it becomes `%a#2#2`; the unnamed node 2 is `$2`.
    Graph g;
    Function mainFn;
    mainFn.name = "main";
    const FunctionId m = g.addFunction(mainFn);
    const NodeId a0 = addInput(g, m, "%a", Type::tensor({ Dim::known(4) }, "float32"));
    const NodeId a1 = addOp(g, m, "%a", "nn.relu", { a0 });
    const NodeId unnamed = addOp(g, m, "", "negative", { a1 });
    const NodeId a2 = addOp(g, m, "%a#2", "add", { a1, unnamed });
    g.finalize();
    QCOMPARE(g.key(a0), std::string("%a"));
    QCOMPARE(g.key(a1), std::string("%a#2"));
    QCOMPARE(g.key(unnamed), std::string("$2"));
    QCOMPARE(g.key(a2), std::string("%a#2#2"));
    QCOMPARE(g.findByKey("%a"), a0);
    QCOMPARE(g.findByKey("%a#2"), a1);
    QCOMPARE(g.findByKey("$2"), unnamed);
    QCOMPARE(g.findByKey("%a#2#2"), a2);
    QCOMPARE(g.findByKey("%a#3"), NodeId());
    QCOMPARE(g.findByKey(""), NodeId());

    // Finalizing again (after an edit) rebuilds the keys from the names.
    g.node(a1).name = "%b";
    g.finalize();
    QCOMPARE(g.key(a1), std::string("%b"));
    QCOMPARE(g.key(a2), std::string("%a#2"));
    QCOMPARE(g.findByKey("%a#2"), a2);
    QCOMPARE(g.findByKey("%a#2#2"), NodeId());
}

void TestGraph::nodeDetailCopyOnWrite()
{
    Node n;
    n.setSpan({});
    n.setMetaRef({});
    n.setAttrsRef({});
    n.setValue(AttrValue::null());
    n.setScopes({});
    n.setPatterns({});
    n.setOutputNames({});
    n.setPartialMatch(false);
    QVERIFY(!n.hasDetail()); // empty values allocate nothing
    QCOMPARE(n.span(), std::string());
    QVERIFY(n.value().isNull());

    n.setSpan("layer1/conv");
    QVERIFY(n.hasDetail());
    Node copy = n;
    QCOMPARE(copy.span(), std::string("layer1/conv"));
    copy.setSpan("layer2/conv");
    copy.setMetaRef("meta[relay.Constant][3]");
    copy.editDetail().scopes.push_back(FunctionId(std::size_t(1)));
    // The original keeps its own values.
    QCOMPARE(n.span(), std::string("layer1/conv"));
    QCOMPARE(n.metaRef(), std::string());
    QVERIFY(n.scopes().empty());
    QCOMPARE(copy.span(), std::string("layer2/conv"));
    QCOMPARE(copy.metaRef(), std::string("meta[relay.Constant][3]"));
    QCOMPARE(copy.scopes(), (std::vector<FunctionId> { FunctionId(std::size_t(1)) }));
    // Clearing a field of a node that has a detail does clear it.
    copy.setMetaRef({});
    QCOMPARE(copy.metaRef(), std::string());
}

// The common constant references are held in the node itself; every other spelling in the detail,
// and each reads back exactly as it was set.
void TestGraph::inlineMetaRefs()
{
    Node weight;
    weight.kind = NodeKind::Constant;
    weight.setMetaRef("meta[relay.Constant][17]");
    QVERIFY(!weight.hasDetail());
    QCOMPARE(weight.metaRef(), std::string("meta[relay.Constant][17]"));
    QCOMPARE(weight.index, std::uint32_t(17));
    weight.setMetaRef(R"(metadata["relax.expr.Constant"][0])");
    QVERIFY(!weight.hasDetail());
    QCOMPARE(weight.metaRef(), std::string(R"(metadata["relax.expr.Constant"][0])"));
    weight.setMetaRef(R"(metadata["ir.GenericConst"][12])");
    QVERIFY(!weight.hasDetail());
    QCOMPARE(weight.metaRef(), std::string(R"(metadata["ir.GenericConst"][12])"));
    weight.setMetaRef("meta[relay.Constant][999999999]"); // nine digits: the largest inline
    QVERIFY(!weight.hasDetail());
    QCOMPARE(weight.metaRef(), std::string("meta[relay.Constant][999999999]"));

    // Spellings that would not print back the same from an index go to the detail.
    for (const std::string ref :
         { "meta[relay.Constant][03]", "meta[relay.Constant][4294967296]", "meta[relay.Constant][]",
           "meta[relay.Constant][-1]", "meta[relay.Constant][1]x",
           "meta[relay.attrs.Conv2DAttrs][0]", R"(metadata["relax.expr.Var"][2])" }) {
        Node c;
        c.kind = NodeKind::Constant;
        c.setMetaRef(ref);
        QVERIFY2(c.hasDetail(), ref.c_str());
        QCOMPARE(c.metaRef(), ref);
    }

    // A node of another kind keeps its index for itself.
    Node item;
    item.kind = NodeKind::TupleGetItem;
    item.index = 2;
    item.setMetaRef("meta[relay.Constant][5]");
    QCOMPARE(item.index, std::uint32_t(2));
    QCOMPARE(item.metaRef(), std::string("meta[relay.Constant][5]"));

    // From the detail to inline and back, and cleared; a copy keeps its own reference.
    Node c;
    c.kind = NodeKind::Constant;
    c.setMetaRef("meta[relay.Constant][007]");
    c.setMetaRef("meta[relay.Constant][7]");
    QCOMPARE(c.metaRef(), std::string("meta[relay.Constant][7]"));
    QVERIFY(c.detail().metaRef.empty());
    Node copy = c;
    copy.setMetaRef("meta[relay.Constant][8]");
    QCOMPARE(c.metaRef(), std::string("meta[relay.Constant][7]"));
    QCOMPARE(copy.metaRef(), std::string("meta[relay.Constant][8]"));
    c.setMetaRef({});
    QCOMPARE(c.metaRef(), std::string());
    QCOMPARE(copy.metaRef(), std::string("meta[relay.Constant][8]"));
}

// Constants with identical values share one detail; a changed node gets its own; a spelling that
// differs keeps a detail of its own; past maxValues nothing more is remembered.
void TestGraph::sharedValues()
{
    SharedValues values;
    auto constant = [&](AttrValue v) {
        Node n;
        n.kind = NodeKind::Constant;
        values.setValue(n, std::move(v));
        return n;
    };
    Node zero = constant(AttrValue::integer(0, "int64"));
    Node zeroAgain = constant(AttrValue::integer(0, "int64"));
    const Node six = constant(AttrValue::integer(6, "int64"));
    const Node zero32 = constant(AttrValue::integer(0)); // another dtype
    QCOMPARE(&zero.detail(), &zeroAgain.detail());
    QVERIFY(&six.detail() != &zero.detail());
    QVERIFY(&zero32.detail() != &zero.detail());
    QCOMPARE(zeroAgain.value().intValue, std::int64_t(0));
    QCOMPARE(six.value().intValue, std::int64_t(6));
    QCOMPARE(zero32.value().dtype.str(), std::string("int32"));

    // 1e-05f and 1.0e-05f are == but print differently: each keeps its spelling.
    const Node a = constant(AttrValue::floating(1e-05, "float32", "1e-05f"));
    const Node b = constant(AttrValue::floating(1e-05, "float32", "1.0e-05f"));
    QVERIFY(&a.detail() != &b.detail());
    QCOMPARE(b.value().toRelay(), std::string("1.0e-05f"));

    // Copy on write: a span on one node leaves the other as it was.
    zeroAgain.setSpan("clip/a_min");
    QCOMPARE(zeroAgain.span(), std::string("clip/a_min"));
    QCOMPARE(zero.span(), std::string());
    QCOMPARE(zeroAgain.value().intValue, std::int64_t(0));

    // A node that already has a detail takes the value into its own.
    Node spanned;
    spanned.kind = NodeKind::Constant;
    spanned.setSpan("x");
    values.setValue(spanned, AttrValue::integer(6, "int64"));
    QVERIFY(&spanned.detail() != &six.detail());
    QCOMPARE(spanned.value().intValue, std::int64_t(6));
    QCOMPARE(spanned.span(), std::string("x"));

    QCOMPARE(values.size(), std::size_t(5));
    for (std::size_t i = values.size(); i < SharedValues::maxValues; ++i)
        (void)constant(AttrValue::integer(static_cast<std::int64_t>(1000 + i)));
    QCOMPARE(values.size(), SharedValues::maxValues);
    const Node late = constant(AttrValue::integer(-7));
    const Node lateAgain = constant(AttrValue::integer(-7));
    QVERIFY(&late.detail() != &lateAgain.detail());
    QCOMPARE(lateAgain.value().intValue, std::int64_t(-7));
    QCOMPARE(values.size(), SharedValues::maxValues);
}

void TestGraph::internedStrings()
{
    const InternedString a("float32");
    const InternedString b(std::string("float") + "32");
    QVERIFY(a == b);
    QCOMPARE(&a.str(), &b.str()); // one pooled copy
    QVERIFY(a == "float32");
    QVERIFY(!(a == InternedString("float16")));
    QVERIFY(InternedString().empty());
    QVERIFY(InternedString("") == InternedString());
    QCOMPARE(InternedString().str(), std::string());
    // It reads as a string_view and prints as its text.
    const std::string_view view = a;
    QCOMPARE(view.size(), std::size_t(7));
    QCOMPARE(view.data(), a.str().data());
    std::ostringstream printed;
    printed << a << '|' << InternedString() << '|';
    QCOMPARE(printed.str(), std::string("float32||"));
    // Types compare by value through their interned dtypes and symbols.
    const Type t1 = Type::tensor({ Dim::known(2), Dim::symbolic("meta[tir.Var][0]") }, "int8");
    const Type t2 = Type::tensor({ Dim::known(2), Dim::symbolic("meta[tir.Var][0]") },
                                 std::string("in") + "t8");
    QVERIFY(t1 == t2);
    QCOMPARE(t1.toRelay(), std::string("Tensor[(2, meta[tir.Var][0]), int8]"));
    QCOMPARE(t1.shape[1].isKnown(), false);
}

void TestGraph::sharedOutputTypes()
{
    // Two nodes typed independently with equal types share one pooled list.
    Node a;
    a.setOutputTypes({ Type::tensor({ Dim::known(1), Dim::known(64) }, "float32") });
    Node b;
    b.setOutputTypes({ Type::tensor({ Dim::known(1), Dim::known(64) }, std::string("float32")) });
    QVERIFY(a.outputTypes().data() != nullptr);
    QCOMPARE(a.outputTypes().data(), b.outputTypes().data());
    QVERIFY(a.outputTypes() == b.outputTypes());

    // In a graph (and in a copy of it) the nodes still point at that one list.
    Graph g;
    Function f;
    f.name = "main";
    const FunctionId fn = g.addFunction(std::move(f));
    a.function = fn;
    b.function = fn;
    const NodeId ia = g.addNode(a);
    const NodeId ib = g.addNode(b);
    QCOMPARE(g.node(ia).outputTypes().data(), g.node(ib).outputTypes().data());
    const Graph copy = g;
    QCOMPARE(copy.node(ib).outputTypes().data(), g.node(ia).outputTypes().data());

    // Retyping one node leaves the other (and the copied graph) as it was.
    g.node(ib).setOutputType(0, Type::tensor({ Dim::known(1), Dim::known(32) }, "float32"));
    QCOMPARE(g.node(ia).outputType(0).toRelay(), std::string("Tensor[(1, 64), float32]"));
    QCOMPARE(g.node(ib).outputType(0).toRelay(), std::string("Tensor[(1, 32), float32]"));
    QCOMPARE(copy.node(ib).outputType(0).toRelay(), std::string("Tensor[(1, 64), float32]"));
    QVERIFY(g.node(ia).outputTypes().data() != g.node(ib).outputTypes().data());
    QCOMPARE(g.node(ib).outputCount(), std::size_t(1));

    // A multi-output node reads its types back in order, by index and by iteration.
    Node split;
    split.setOutputTypes({ Type::tensor({ Dim::known(1), Dim::known(64) }, "float32"),
                           Type::tensor({ Dim::known(4), Dim::known(4) }, "int64"),
                           Type::tensor({}, "float16") });
    QCOMPARE(split.outputCount(), std::size_t(3));
    QCOMPARE(split.outputType(1).toRelay(), std::string("Tensor[(4, 4), int64]"));
    std::vector<std::string> printed;
    for (const Type &t : split.outputTypes())
        printed.push_back(t.toRelay());
    QCOMPARE(printed,
             (std::vector<std::string> { "Tensor[(1, 64), float32]", "Tensor[(4, 4), int64]",
                                         "float16" }));
    // Its first type is the pooled single list's type, but the lists are not the same entry.
    QVERIFY(split.outputTypes().data() != a.outputTypes().data());
    QVERIFY(split.outputType(3).isUnknown()); // past the end
    QCOMPARE(split.outputTypes().get(2), split.outputTypes().data() + 2);
    QCOMPARE(split.outputTypes().get(3), static_cast<const Type *>(nullptr));
    QCOMPARE(TypeList().get(0), static_cast<const Type *>(nullptr));
    // The same types in another order are another list.
    Node swapped;
    swapped.setOutputTypes({ split.outputType(1), split.outputType(0), split.outputType(2) });
    QVERIFY(swapped.outputTypes().data() != split.outputTypes().data());
    QCOMPARE(swapped.outputType(0).toRelay(), std::string("Tensor[(4, 4), int64]"));

    // Setting an output past the end adds Unknown outputs up to it.
    split.setOutputType(4, Type::tensor({}, "bool"));
    QCOMPARE(split.outputCount(), std::size_t(5));
    QVERIFY(split.outputType(3).isUnknown());
    QCOMPARE(split.outputType(4).toRelay(), std::string("bool"));
    QCOMPARE(split.outputType(2).toRelay(), std::string("float16"));

    // A node without types has an empty list; the graph gives it one Unknown output.
    Node bare;
    QVERIFY(bare.outputTypes().empty());
    QCOMPARE(bare.outputTypes().data(), static_cast<const Type *>(nullptr));
    bare.function = fn;
    const NodeId ibare = g.addNode(std::move(bare));
    QCOMPARE(g.node(ibare).outputCount(), std::size_t(1));
    QVERIFY(g.node(ibare).outputType(0).isUnknown());

    // The operator name is interned and compares with text as a string did.
    Node conv;
    conv.op = "nn.conv2d";
    Node conv2;
    conv2.op = std::string("nn.") + "conv2d";
    QVERIFY(conv.op == "nn.conv2d");
    QVERIFY(!(conv.op == "nn.conv2d_transpose"));
    QCOMPARE(&conv.op.str(), &conv2.op.str());
}

void TestGraph::sharedOutputTypesAcrossThreads()
{
    // Two threads interning the same 500 lists at once get one entry per list.
    auto intern = [](std::vector<TypeList> &out) {
        for (int i = 0; i < 500; ++i)
            out.push_back(TypeList { Type::tensor({ Dim::known(7000 + i) }, "int32"),
                                     Type::tensor({ Dim::known(i) }, "int32") });
    };
    std::vector<TypeList> first;
    std::vector<TypeList> second;
    std::thread t1(intern, std::ref(first));
    std::thread t2(intern, std::ref(second));
    t1.join();
    t2.join();
    QCOMPARE(first.size(), std::size_t(500));
    QCOMPARE(second.size(), std::size_t(500));
    for (std::size_t i = 0; i < first.size(); ++i) {
        QCOMPARE(first[i].data(), second[i].data());
        QCOMPARE(first[i][0].shape[0].value, std::int64_t(7000 + i));
        QCOMPARE(first[i][1].shape[0].value, std::int64_t(i));
    }
    QVERIFY(first[0].data() != first[1].data());
}

namespace {

// A transparent hash: the pool finds a string_view without making a string.
struct InternTestHash
{
    using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view> {}(s); }
};

} // namespace

void TestGraph::internPool()
{
    using Pool = InternPool<std::string, InternTestHash>;
    Pool &pool = Pool::instance();
    QCOMPARE(&Pool::instance(), &pool); // one pool per type
    QCOMPARE(pool.size(), std::size_t(0));
    const std::string &a
        = pool.at(pool.number(std::string_view("conv"), [] { return std::string("conv"); }));
    const std::string &b = pool.at(pool.number(std::string("co") + "nv"));
    bool made = false;
    const std::string &c = pool.at(pool.number(std::string_view("conv"), [&made] {
        made = true;
        return std::string("conv");
    }));
    const std::string &d = pool.at(pool.number(std::string("relu")));
    QCOMPARE(&a, &b);
    QCOMPARE(&a, &c);
    QVERIFY(!made); // found, so not made again
    QVERIFY(&a != &d);
    QCOMPARE(a, std::string("conv"));
    QCOMPARE(d, std::string("relu"));
    QCOMPARE(pool.size(), std::size_t(2));
    // Numbered in the order first pooled, from 1; at() gives back the pooled object itself.
    QCOMPARE(pool.number(std::string("conv")), 1U);
    QCOMPARE(pool.number(std::string_view("relu"), [] { return std::string("relu"); }), 2U);
    QCOMPARE(&pool.at(1), &a);
    QCOMPARE(&pool.at(2), &d);
    // Past one chunk of numbers (4096), earlier values stay where they were.
    for (int i = 0; i < 5000; ++i)
        QCOMPARE(pool.number("v" + std::to_string(i)), static_cast<std::uint32_t>(3 + i));
    QCOMPARE(pool.at(4099), std::string("v4096"));
    QCOMPARE(&pool.at(1), &a);
    QCOMPARE(pool.size(), std::size_t(5002));
}

void TestGraph::sharedAttributes()
{
    using Item = Attributes::Item;
    // Two maps built apart with the same keys and values share one pooled list.
    const Attributes a(
        { Item { "axis", AttrValue::integer(1) }, Item { "layout", AttrValue::string("NCHW") } });
    Attributes b;
    b.set("axis", AttrValue::integer(1));
    b.set("layout", AttrValue::string("NCHW"));
    QCOMPARE(&a.items(), &b.items());
    QVERIFY(a == b);
    QCOMPARE(a.size(), std::size_t(2));
    QCOMPARE(a.intOr("axis", -1), std::int64_t(1));
    QCOMPARE(a.stringOr("layout", ""), std::string("NCHW"));

    // Order, a value, a dtype, a key: each makes another list.
    const Attributes swapped(
        { Item { "layout", AttrValue::string("NCHW") }, Item { "axis", AttrValue::integer(1) } });
    const Attributes other(
        { Item { "axis", AttrValue::integer(2) }, Item { "layout", AttrValue::string("NCHW") } });
    const Attributes wide({ Item { "axis", AttrValue::integer(1, "int64") },
                            Item { "layout", AttrValue::string("NCHW") } });
    QVERIFY(&swapped.items() != &a.items());
    QVERIFY(&other.items() != &a.items());
    QVERIFY(&wide.items() != &a.items());
    QVERIFY(!(other == a));

    // Setting a key changes that map only; the old list stays as it was.
    Attributes c = a;
    c.set("axis", AttrValue::integer(2));
    QCOMPARE(&c.items(), &other.items());
    QCOMPARE(a.intOr("axis", -1), std::int64_t(1));
    QCOMPARE(&b.items(), &a.items());

    // Equal floats spelled differently print differently, so they are not merged; they still
    // compare equal, as before pooling.
    const Attributes spelledA(
        { Item { "epsilon", AttrValue::floating(1e-05, "float32", "1e-05f") } });
    const Attributes spelledB(
        { Item { "epsilon", AttrValue::floating(1e-05, "float32", "1.0e-05f") } });
    QVERIFY(&spelledA.items() != &spelledB.items());
    QVERIFY(spelledA == spelledB);
    QCOMPARE(spelledA.items()[0].second.toRelay(), std::string("1e-05f"));
    QCOMPARE(spelledB.items()[0].second.toRelay(), std::string("1.0e-05f"));
    // -0 and 0 compare equal but are different bits.
    const Attributes zero({ Item { "alpha", AttrValue::floating(0.0, "float32", "0f") } });
    const Attributes negativeZero({ Item { "alpha", AttrValue::floating(-0.0, "float32", "0f") } });
    QVERIFY(&zero.items() != &negativeZero.items());

    // Nested lists take part in the identity.
    const Attributes pads({ Item {
        "padding", AttrValue::listOf({ AttrValue::integer(1), AttrValue::integer(1) }) } });
    const Attributes pads2({ Item {
        "padding", AttrValue::listOf({ AttrValue::integer(1), AttrValue::integer(1) }) } });
    const Attributes pads3({ Item {
        "padding", AttrValue::listOf({ AttrValue::integer(1), AttrValue::integer(0) }) } });
    QCOMPARE(&pads.items(), &pads2.items());
    QVERIFY(&pads.items() != &pads3.items());

    // No attributes: no pooled list, and a node copy shares its node's list.
    QVERIFY(Attributes().isEmpty());
    QVERIFY(Attributes(std::vector<Item> {}).isEmpty());
    QCOMPARE(Attributes().size(), std::size_t(0));
    QCOMPARE(Attributes().find("axis"), nullptr);
    Node n;
    n.attrs = a;
    const Node copy = n;
    QCOMPARE(&copy.attrs.items(), &a.items());
    QCOMPARE(sizeof(Attributes), sizeof(std::uint32_t)); // the pool's number of the list

    // setItem builds a list with set()'s rule: a repeated key replaces the earlier value.
    std::vector<Item> built;
    Attributes::setItem(built, "axis", AttrValue::integer(3));
    Attributes::setItem(built, "layout", AttrValue::string("NCHW"));
    Attributes::setItem(built, "axis", AttrValue::integer(2));
    QCOMPARE(built.size(), std::size_t(2));
    QCOMPARE(&Attributes(built).items(), &other.items());
}

void TestGraph::sharedAttributesAcrossThreads()
{
    // Two threads pooling the same 300 maps at once get one entry per map.
    auto intern = [](std::vector<Attributes> &out) {
        for (int i = 0; i < 300; ++i) {
            Attributes a;
            a.set("units", AttrValue::integer(5000 + i));
            a.set("axis", AttrValue::integer(i % 3));
            out.push_back(a);
        }
    };
    std::vector<Attributes> first;
    std::vector<Attributes> second;
    std::thread t1(intern, std::ref(first));
    std::thread t2(intern, std::ref(second));
    t1.join();
    t2.join();
    QCOMPARE(first.size(), std::size_t(300));
    QCOMPARE(second.size(), std::size_t(300));
    for (std::size_t i = 0; i < first.size(); ++i) {
        QCOMPARE(&first[i].items(), &second[i].items());
        QCOMPARE(first[i].intOr("units", -1), std::int64_t(5000 + i));
        QCOMPARE(first[i].intOr("axis", -1), std::int64_t(i % 3));
    }
    QVERIFY(&first[0].items() != &first[1].items());
}

void TestGraph::functionViewEdgeRows()
{
    // @main(%a) { %0 = f(%a); %1 = g(%0); %2 = h(%0, %1); %3 = k(%2, %a, %0) }: nodes 0..4 are
    // %a, %0, %1, %2, %3. Edges (producer → consumer.input), grouped by producer, then by the
    // consumer's position: a→%0.0, a→%3.1 | %0→%1.0, %0→%2.0, %0→%3.2 | %1→%2.1 | %2→%3.0.
    Graph g;
    Function mainFn;
    mainFn.name = "main";
    const FunctionId m = g.addFunction(mainFn);
    const NodeId a = addInput(g, m, "%a", Type::tensor({ Dim::known(4) }, "float32"));
    const NodeId n0 = addOp(g, m, "%0", "f", { a });
    const NodeId n1 = addOp(g, m, "%1", "g", { n0 });
    const NodeId n2 = addOp(g, m, "%2", "h", { n0, n1 });
    const NodeId n3 = addOp(g, m, "%3", "k", { n2, a, n0 });
    g.function(m).result = n3;
    g.finalize();
    const FunctionView view(g, m);
    QCOMPARE(view.edgeCount(), std::size_t(7));

    struct Expected
    {
        NodeId from;
        NodeId to;
        std::uint32_t input;
    };
    auto check = [](auto edges, const std::vector<Expected> &expected) {
        QCOMPARE(static_cast<std::size_t>(edges.size()), expected.size());
        std::size_t i = 0;
        for (const auto &e : edges) {
            const FlowEdge &edge = [&]() -> const FlowEdge & {
                if constexpr (std::is_pointer_v<std::decay_t<decltype(e)>>)
                    return *e;
                else
                    return e;
            }();
            QCOMPARE(edge.tensor.node, expected[i].from);
            QCOMPARE(edge.consumer, expected[i].to);
            QCOMPARE(edge.user, expected[i].to);
            QCOMPARE(edge.input, expected[i].input);
            ++i;
        }
    };
    check(view.outEdges(a), { { a, n0, 0 }, { a, n3, 1 } });
    check(view.outEdges(n0), { { n0, n1, 0 }, { n0, n2, 0 }, { n0, n3, 2 } });
    check(view.outEdges(n1), { { n1, n2, 1 } });
    check(view.outEdges(n2), { { n2, n3, 0 } });
    check(view.outEdges(n3), {});
    // In-edges of each consumer, in input order.
    check(view.inEdges(a), {});
    check(view.inEdges(n0), { { a, n0, 0 } });
    check(view.inEdges(n1), { { n0, n1, 0 } });
    check(view.inEdges(n2), { { n0, n2, 0 }, { n1, n2, 1 } });
    check(view.inEdges(n3), { { n2, n3, 0 }, { a, n3, 1 }, { n0, n3, 2 } });
    // The in-edges point into the out-edge store: %3's input 1 is a's second out-edge.
    QCOMPARE(view.inEdges(n3)[1], &view.outEdges(a)[1]);
    QCOMPARE(view.inEdges(n2)[0], &view.outEdges(n0)[1]);
}

QTEST_APPLESS_MAIN(TestGraph)
#include "tst_graph.moc"
