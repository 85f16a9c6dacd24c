// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/ModelSummary.h"
#include "core/export/relax/RelaxPrinter.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/GraphCompare.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace cleave;

namespace {

QJsonObject loadJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QString corpusPath(const QString &name)
{
    return QStringLiteral(CLEAVE_CORPUS_DIR "/relax/") + name;
}

// A small module; line 8 is replaced by the malformed cases.
std::string smallModule(const std::string &line8, const std::string &prefix = {})
{
    return "# from tvm.script import relax as R\n" + prefix
        + "@I.ir_module\n"
          "class M:\n"
          "    @R.function\n"
          "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), "
          "dtype=\"float32\"):\n"
          "        with R.dataflow():\n"
          "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.nn.relu(x)\n"
        + line8
        + "\n"
          "            R.output(gv)\n"
          "        return gv\n";
}

NodeId byName(const Graph &g, FunctionId f, const std::string &name)
{
    for (NodeId n : g.function(f).nodes) {
        if (g.node(n).name == name)
            return n;
    }
    return {};
}

} // namespace

class TestRelaxImport : public QObject
{
    Q_OBJECT

private slots:
    void everyFile_data();
    void everyFile();
    void roundTrip_data();
    void roundTrip();
    void printedForms();
    void moduleTypeVars();
    void metadataConstantTypes();
    void matchCast();
    void primValueLiteral();
    void sniffing();
    void typesAndShapes();
    void kernelsAndPrimFuncs();
    void blocks();
    void malformed_data();
    void malformed();
    void repeatedKeywordTexts();
    void dottedNames();
    void literalValues();
    void deepNestingIsAnError();
    void controlByteIsNamed();
    void metadataPayloads_data();
    void metadataPayloads();
};

void TestRelaxImport::everyFile_data()
{
    QTest::addColumn<QString>("file");
    const QJsonObject expected
        = loadJson(QStringLiteral(CLEAVE_TESTDATA_DIR "/relax_expected.json"));
    QCOMPARE(expected.size(), 7);
    const QStringList corpus
        = QDir(QStringLiteral(CLEAVE_CORPUS_DIR "/relax")).entryList({ "*.relax.py" });
    if (corpus.isEmpty())
        QSKIP("the Relax corpus is not available (CLEAVE_CORPUS_DIR)");
    QCOMPARE(corpus.size(), 7);
    for (const QString &f : corpus) {
        QVERIFY2(expected.contains(f), qPrintable(f));
        QTest::newRow(qPrintable(f)) << f;
    }
}

void TestRelaxImport::everyFile()
{
    QFETCH(QString, file);
    const QJsonObject expected
        = loadJson(QStringLiteral(CLEAVE_TESTDATA_DIR "/relax_expected.json"))
              .value(file)
              .toObject();
    const ImportResult r = importFile(corpusPath(file).toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    QCOMPARE(QString::fromStdString(g.format()), QStringLiteral("relax"));

    const ModelSummary s = ModelSummary::compute(g);
    const QJsonObject expectedOps = expected.value("ops").toObject();
    QCOMPARE(int(s.ops.size()), expectedOps.size());
    for (const auto &[op, count] : s.ops) {
        QVERIFY2(expectedOps.contains(QString::fromStdString(op)), op.c_str());
        QCOMPARE(int(count), expectedOps.value(QString::fromStdString(op)).toInt());
    }
    QCOMPARE(int(s.opCalls), expected.value("op_calls").toInt());
    QCOMPARE(QString::fromStdString(s.toJson().value("format", "")), QStringLiteral("relax"));

    int globals = 0;
    int primFuncs = 0;
    int closures = 0;
    for (const Function &f : g.functions()) {
        globals += f.kind == Function::Kind::Global ? 1 : 0;
        primFuncs += f.sourceText.empty() ? 0 : 1;
        closures += f.kind == Function::Kind::Literal ? 1 : 0;
    }
    QCOMPARE(globals, expected.value("functions").toInt());
    QCOMPARE(primFuncs, expected.value("prim_funcs").toInt());
    QCOMPARE(closures, expected.value("closures").toInt());

    const FunctionId mainFn = g.mainFunction();
    QVERIFY(mainFn.isValid());
    QCOMPARE(QString::fromStdString(g.function(mainFn).name),
             expected.value("function").toString());
    QCOMPARE(int(g.function(mainFn).params.size()), expected.value("main_inputs").toInt());
    QCOMPARE(int(g.outputs(mainFn).size()), expected.value("main_outputs").toInt());
    QCOMPARE(int(s.inputs.size()), expected.value("main_inputs").toInt());

    for (std::size_t i = 0; i < g.nodeCount(); ++i)
        QCOMPARE(g.findByKey(g.key(NodeId(i))), NodeId(i));
}

void TestRelaxImport::roundTrip_data()
{
    everyFile_data();
}

void TestRelaxImport::roundTrip()
{
    QFETCH(QString, file);
    const ImportResult first = importFile(corpusPath(file).toStdString());
    QVERIFY2(first.ok(), first.firstError().c_str());
    const std::string text = printRelax(*first.graph);
    const ImportResult second = importBytes(text, "printed.relax.py");
    QVERIFY2(second.ok(), (second.firstError() + "\n" + text.substr(0, 3000)).c_str());
    const auto difference = firstDifference(*first.graph, *second.graph);
    QVERIFY2(!difference, difference ? difference->c_str() : "");
    QCOMPARE(second.graph->nodeCount(), first.graph->nodeCount());
    QCOMPARE(second.graph->metadata(), first.graph->metadata());
    // Printing is stable: the reprint of the reprint is the same text.
    QCOMPARE(printRelax(*second.graph), text);
}

void TestRelaxImport::printedForms()
{
    const QString llama = corpusPath("llama7b-1layer_mlc-before-quantize_2023.relax.py");
    if (!QFile::exists(llama))
        QSKIP("the Relax corpus is not available");
    const ImportResult r = importFile(llama.toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const std::string text = printRelax(*r.graph);
    // The forms TVM prints, as written in the source file.
    for (const char *line : {
             "class Module:\n",
             "    @T.prim_func\n    def extend_te(var_A: T.handle, var_concat_te: T.handle):\n"
             "        T.func_attr({\"tir.noalias\": T.bool(True)})\n",
             "            lv64 = R.call_tir(cls.rms_norm1, (lv62, rms_norm_weight3), "
             "out_sinfo=R.Tensor((1, 1, 4096), dtype=\"float16\"))\n",
             "            lv74 = R.call_tir(cls.rotary_embedding1, (lv67, cos_cached1, "
             "sin_cached1), "
             "out_sinfo=R.Tensor((1, 1, 32, 128), dtype=\"float16\"), tir_vars=R.shape([n]))\n",
             "            lv3 = R.call_tir(cls.min_max_triu_te, R.tuple(), out_sinfo=R.Tensor((n, "
             "n), dtype=\"float16\"))\n",
             "            lv60: R.Tensor((1,), dtype=\"int32\") = R.reshape(input_ids1, "
             "R.shape([1]))\n",
             "            lv79: R.Object = R.call_packed(\"vm.builtin.attention_kv_cache_append\", "
             "lv78, lv76, "
             "sinfo_args=(R.Object,))\n",
             "    def encoding(input_ids: R.Tensor((1, \"n\"), dtype=\"int32\"), all_seq_len: "
             "R.Shape([\"m\"]), ",
             "        R.func_attr({\"num_input\": 3, \"tir_var_upper_bound\": {\"m\": 2048, \"n\": "
             "2048}})\n",
             "        with R.dataflow():\n",
             "            R.output(gv)\n        return gv\n",
             "R.divide(lv32, metadata[\"relax.expr.Constant\"][3])\n",
         })
        QVERIFY2(text.find(line) != std::string::npos, line);
}

void TestRelaxImport::moduleTypeVars()
{
    // TVM 0.27 prints a module's symbolic shape variables before the class (`mod.script()` of a
    // module with a symbolic batch), and R.Any for an object.
    const std::string text
        = "# from typing import TypeVar\n"
          "# from tvm.script import ir as I\n"
          "# from tvm.script import relax as R\n"
          "\n"
          "H = TypeVar(\"H\")\n"
          "N = TypeVar(\"N\")\n"
          "@I.ir_module\n"
          "class Module:\n"
          "    @R.function\n"
          "    def main(x: R.Tensor((N, 3, H, 4), dtype=\"float32\"), io: R.Any) "
          "-> R.Tensor((N, \"H * 12\"), dtype=\"float32\"):\n"
          "        with R.dataflow():\n"
          "            gv: R.Tensor((N, H * 12), dtype=\"float32\") = "
          "R.reshape(x, R.shape([N, H * 12]))\n"
          "            R.output(gv)\n"
          "        return gv\n";
    const ImportResult r = importBytes(text, "typevars.relax.py");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const ModelSummary s = ModelSummary::compute(*r.graph);
    QCOMPARE(s.inputs.size(), std::size_t(2));
    QCOMPARE(s.inputs[0].type,
             Type::tensor({ Dim::symbolic("N"), Dim::known(3), Dim::symbolic("H"), Dim::known(4) },
                          "float32"));
    QCOMPARE(s.inputs[1].type.kind, Type::Kind::Named);
    QCOMPARE(s.inputs[1].type.toRelay(), std::string("R.Any"));
    QCOMPARE(s.outputs.size(), std::size_t(1));
    QCOMPARE(s.outputs[0].type,
             Type::tensor({ Dim::symbolic("N"), Dim::symbolic("H * 12") }, "float32"));
    QCOMPARE(s.opCalls, std::size_t(1));

    // Anything else before the class is still an error, at the value.
    const ImportResult bad
        = importBytes(smallModule("            gv = R.add(lv, x)", "n = 3\n"), "bad.relax.py");
    QVERIFY(!bad.ok());
    QCOMPARE(bad.diagnostics.front().where.line, 2);
    QCOMPARE(bad.diagnostics.front().where.column, 5);
    QVERIFY(bad.firstError().find("TypeVar") != std::string::npos);
}

void TestRelaxImport::metadataConstantTypes()
{
    // A metadata constant's type comes from the header. TVM 0.27's tvm-ffi graph: the
    // GenericConst's `ty` is a TensorType whose shape is a ShapeExpr of IntImms (each value an
    // `int` node: 2 and 3) and whose dtype a PrimType (float32). TVM 0.27 loads this header and
    // gives the constant R.Tensor((2, 3), dtype="float32"): 2 x 3 x 4 = 24 bytes.
    const std::string ffiHeader
        = R"(metadata = tvm.ir.load_json("""{"root_index": 15, "nodes": [)"
          R"({"type": "ffi.String", "data": "ir.GenericConst"}, )"
          R"({"type": "None"}, )"
          R"({"type": "ir.PrimType", "data": {"span": 1, "dtype": "int64"}}, )"
          R"({"type": "int", "data": 2}, )"
          R"({"type": "ir.IntImm", "data": {"span": 1, "ty": 2, "value": 3}}, )"
          R"({"type": "int", "data": 3}, )"
          R"({"type": "ir.IntImm", "data": {"span": 1, "ty": 2, "value": 5}}, )"
          R"({"type": "ffi.Array", "data": [4, 6]}, )"
          R"({"type": "relax.ShapeType", "data": {"span": 1, "values": 7, "ndim": 2}}, )"
          R"({"type": "relax.expr.ShapeExpr", "data": {"span": 1, "ty": 8, "values": 7}}, )"
          R"({"type": "ir.PrimType", "data": {"span": 1, "dtype": "float32"}}, )"
          R"({"type": "relax.TensorType", "data": {"span": 1, "shape": 9, "dtype": 10, )"
          R"("vdevice": 1, "ndim": 2}}, )"
          R"({"type": "ffi.Tensor", "data": "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIg)"
          R"(AQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAAAAAACAPwAAAEAAAEBAAACAQAAAoEA="}, )"
          R"({"type": "ir.GenericConst", "data": {"span": 1, "ty": 11, "value": 12}}, )"
          R"({"type": "ffi.Array", "data": [13]}, )"
          R"({"type": "ffi.Map", "data": [0, 14]})"
          R"(], "metadata": {"tvm_version": "0.27.0.post1"}}"""))";
    const std::string ffiModule = "# from tvm.script import relax as R\n" + ffiHeader + "\n"
        + "@I.ir_module\n"
          "class Module:\n"
          "    @R.function\n"
          "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), "
          "dtype=\"float32\"):\n"
          "        gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(x, "
          "metadata[\"ir.GenericConst\"][0])\n"
          "        return gv\n";
    const ImportResult f = importBytes(ffiModule, "ffi.relax.py");
    QVERIFY2(f.ok(), f.firstError().c_str());
    const Graph &g = *f.graph;
    const Node &add = g.node(byName(g, g.mainFunction(), "gv"));
    QCOMPARE(g.tensorType(add.inputs[1]),
             Type::tensor({ Dim::known(2), Dim::known(3) }, "float32"));
    const ModelSummary fs = ModelSummary::compute(g);
    QCOMPARE(fs.constants, std::size_t(1));
    QCOMPARE(fs.constantBytes, std::int64_t(24));
    QVERIFY(fs.constantBytesKnown);

    // The legacy graph (TVM <= 0.26, as the SAM corpus modules carry it): the Constant's
    // struct_info_ is a TensorStructInfo with dtype "int32" and a ShapeExpr of one IntImm "4":
    // 4 x 4 = 16 bytes. The second constant's struct info is the null node: its type stays
    // unknown, and so does the total.
    const std::string legacy
        = R"(metadata = tvm.ir.load_json("""{"root": 1, "nodes": [)"
          R"({"type_key": ""}, )"
          R"({"type_key": "Map", "keys": ["relax.expr.Constant"], "data": [2]}, )"
          R"({"type_key": "Array", "data": [3, 8]}, )"
          R"({"type_key": "relax.expr.Constant", "attrs": {"_checked_type_": "0", )"
          R"("data": "0", "span": "0", "struct_info_": "4"}}, )"
          R"({"type_key": "relax.TensorStructInfo", "attrs": {"dtype": "int32", )"
          R"("ndim": "1", "shape": "5", "span": "0", "vdevice": "0"}}, )"
          R"({"type_key": "relax.expr.ShapeExpr", "attrs": {"_checked_type_": "0", )"
          R"("span": "0", "struct_info_": "0", "values": "6"}}, )"
          R"({"type_key": "Array", "data": [7]}, )"
          R"({"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", )"
          R"("value": "4"}}, )"
          R"({"type_key": "relax.expr.Constant", "attrs": {"_checked_type_": "0", )"
          R"("data": "1", "span": "0", "struct_info_": "0"}}], )"
          // The payloads: int32 [1, 2, 3, 4] and float32 0.5 in TVM's NDArray format (made
          // with Python's struct and base64).
          R"("b64ndarrays": ["P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAAgAQAEAAAAAAAAABAAAAAAAAAAAQAA)"
          R"(AAIAAAADAAAABAAAAA==", "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAAIgAQAEAAAAAAAAAAAAAD8="], )"
          R"("attrs": {"tvm_version": "0.14.dev0"}}"""))"
          "\n";
    const ImportResult l
        = importBytes("# from tvm.script import relax as R\n" + legacy
                          + "@I.ir_module\n"
                            "class Module:\n"
                            "    @R.function\n"
                            "    def main(x: R.Tensor((4,), dtype=\"int32\")) -> R.Tensor((4,), "
                            "dtype=\"int32\"):\n"
                            "        lv: R.Tensor((4,), dtype=\"int32\") = R.add(x, "
                            "metadata[\"relax.expr.Constant\"][0])\n"
                            "        gv: R.Tensor((4,), dtype=\"int32\") = R.add(lv, "
                            "metadata[\"relax.expr.Constant\"][1])\n"
                            "        return gv\n",
                      "legacy.relax.py");
    QVERIFY2(l.ok(), l.firstError().c_str());
    const Graph &lg = *l.graph;
    const Node &first = lg.node(byName(lg, lg.mainFunction(), "lv"));
    QCOMPARE(lg.tensorType(first.inputs[1]), Type::tensor({ Dim::known(4) }, "int32"));
    const Node &second = lg.node(byName(lg, lg.mainFunction(), "gv"));
    QVERIFY(lg.node(second.inputs[1].node).outputType().isUnknown());
    const ModelSummary ls = ModelSummary::compute(lg);
    QCOMPARE(ls.constants, std::size_t(2));
    QCOMPARE(ls.constantBytes, std::int64_t(16));
    QVERIFY(!ls.constantBytesKnown);
}

void TestRelaxImport::matchCast()
{
    // As TVM 0.27 prints ONNX NonZero and Range: R.match_cast of a call and of a variable, and a
    // symbolic variable passed as a value (R.arange(0, k, 1)).
    const std::string text
        = "# from tvm.script import ir as I\n"
          "# from tvm.script import tirx as T\n"
          "# from tvm.script import relax as R\n"
          "\n"
          "@I.ir_module\n"
          "class Module:\n"
          "    @R.function\n"
          "    def main(x: R.Tensor((3, 4), dtype=\"float32\"), s: R.Tensor((1,), "
          "dtype=\"int64\")) "
          "-> R.Tuple(R.Tensor(dtype=\"int64\", ndim=2), R.Tensor(dtype=\"int64\", ndim=1)):\n"
          "        n = T.int64()\n"
          "        k = T.int64()\n"
          "        with R.dataflow():\n"
          "            lv: R.Tensor((2, n), dtype=\"int64\") = R.match_cast(R.nonzero(x), "
          "R.Tensor((2, n), dtype=\"int64\"))\n"
          "            lv1: R.Tensor((n, 2), dtype=\"int64\") = R.permute_dims(lv, axes=None)\n"
          "            lv2: R.Shape(ndim=1) = R.tensor_to_shape(s)\n"
          "            lv3: R.Shape([k]) = R.match_cast(lv2, R.Shape([k]))\n"
          "            lv4: R.Tensor((k,), dtype=\"int64\") = R.arange(0, k, 1, dtype=\"int64\")\n"
          "            gv: R.Tuple(R.Tensor((n, 2), dtype=\"int64\"), R.Tensor((k,), "
          "dtype=\"int64\")) = lv1, lv4\n"
          "            R.output(gv)\n"
          "        return gv\n";
    const ImportResult r = importBytes(text, "match_cast.relax.py");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const FunctionId main = g.mainFunction();
    // A MatchCast binding is not an operator call: nonzero, permute_dims, tensor_to_shape and
    // arange are the four ops.
    const ModelSummary s = ModelSummary::compute(g);
    QCOMPARE(s.opCalls, std::size_t(4));
    QCOMPARE(s.ops,
             OpHistogram({ { "relax.arange", 1 },
                           { "relax.nonzero", 1 },
                           { "relax.permute_dims", 1 },
                           { "relax.tensor_to_shape", 1 } }));
    // lv casts the nonzero call, lv3 the shape lv2, to the written types.
    const Node &lv = g.node(byName(g, main, "lv"));
    QCOMPARE(QString::fromStdString(lv.op), QStringLiteral("relax.match_cast"));
    QCOMPARE(lv.outputType(), Type::tensor({ Dim::known(2), Dim::symbolic("n") }, "int64"));
    QCOMPARE(QString::fromStdString(g.node(lv.inputs[0].node).op), QStringLiteral("relax.nonzero"));
    const Node &lv3 = g.node(byName(g, main, "lv3"));
    QCOMPARE(lv3.inputs[0].node, byName(g, main, "lv2"));
    QCOMPARE(lv3.outputType().shape, std::vector<Dim>({ Dim::symbolic("k") }));
    // k as a value: a PrimValue constant.
    const Node &arange = g.node(byName(g, main, "lv4"));
    QCOMPARE(arange.inputs.size(), std::size_t(3));
    const Node &end = g.node(arange.inputs[1].node);
    QCOMPARE(end.kind, NodeKind::Constant);
    QCOMPARE(QString::fromStdString(end.op), QStringLiteral("R.prim_value"));
    QCOMPARE(end.value().text, std::string("k"));

    // Printed back as TVM parses it: the casts as R.match_cast, k as R.prim_value(k), and a
    // return type that uses no dim the parameters do not define (n and k are defined in the
    // body), so only the ranks.
    const std::string printed = printRelax(g);
    for (const char *line : {
             "            lv_0 = R.nonzero(x)\n",
             "            lv: R.Tensor((2, n), dtype=\"int64\") = R.match_cast(lv_0, "
             "R.Tensor((2, n), dtype=\"int64\"))\n",
             "            lv3: R.Shape([k]) = R.match_cast(lv2, R.Shape([k]))\n",
             "R.arange(0, R.prim_value(k), 1, dtype=\"int64\")\n",
             "-> R.Tuple(R.Tensor(dtype=\"int64\", ndim=2), R.Tensor(dtype=\"int64\", ndim=1)):\n",
         })
        QVERIFY2(printed.find(line) != std::string::npos,
                 (line + std::string("\n") + printed).c_str());
    const ImportResult again = importBytes(printed, "printed.relax.py");
    QVERIFY2(again.ok(), again.firstError().c_str());
    QCOMPARE(ModelSummary::compute(*again.graph).ops, s.ops);
}

void TestRelaxImport::primValueLiteral()
{
    // TVM 0.27 prints R.add(f, R.prim_value(T.float32(1.0))) as R.add(f, T.float32(1.0)).
    const ImportResult r
        = importBytes(smallModule("            gv = R.add(lv, T.float32(1.0))"), "prim.relax.py");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const Node &add = g.node(byName(g, g.mainFunction(), "gv"));
    QCOMPARE(add.inputs.size(), std::size_t(2));
    const Node &literal = g.node(add.inputs[1].node);
    QCOMPARE(literal.kind, NodeKind::Constant);
    QCOMPARE(literal.outputType().kind, Type::Kind::Named);
    QCOMPARE(literal.outputType().toRelay(), std::string("R.Prim"));
    QCOMPARE(literal.outputType().dtype.str(), std::string("float32"));
    const ModelSummary s = ModelSummary::compute(g);
    QCOMPARE(s.ops, OpHistogram({ { "relax.add", 1 }, { "relax.nn.relu", 1 } }));
    QCOMPARE(s.scalarConstants, std::size_t(1));
    // Printed as written.
    const std::string printed = printRelax(g);
    QVERIFY2(printed.find("R.add(lv, T.float32(1.0))") != std::string::npos, printed.c_str());
}

void TestRelaxImport::sniffing()
{
    const std::string module = smallModule("            gv = R.add(lv, x)");
    const Importer *byContent = importerFor("model.txt", module);
    QVERIFY(byContent);
    QCOMPARE(QString::fromStdString(byContent->formatName()), QStringLiteral("relax"));
    const Importer *byName = importerFor("model.relax.py", "");
    QVERIFY(byName);
    QCOMPARE(QString::fromStdString(byName->formatName()), QStringLiteral("relax"));
    const Importer *relay = importerFor("m.txt", "#[version = \"0.0.5\"]\ndef @main(%x) { %x }");
    QVERIFY(relay);
    QCOMPARE(QString::fromStdString(relay->formatName()), QStringLiteral("relay"));
}

void TestRelaxImport::typesAndShapes()
{
    const QString resnet = corpusPath("resnet18_onnx_adreno-texture_tvm-v0.26.relax.py");
    const QString llama = corpusPath("llama7b-1layer_mlc-before-quantize_2023.relax.py");
    if (!QFile::exists(resnet) || !QFile::exists(llama))
        QSKIP("the Relax corpus is not available");
    const ImportResult r = importFile(resnet.toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const FunctionId main = g.mainFunction();
    // lv4 = R.nn.conv2d(lv1, ...): (1, 64, 112, 112) float32, strides=[2, 2].
    const NodeId conv = byName(g, main, "lv4");
    QVERIFY(conv.isValid());
    QCOMPARE(QString::fromStdString(g.node(conv).op), QStringLiteral("relax.nn.conv2d"));
    QCOMPARE(g.node(conv).outputType(),
             Type::tensor({ Dim::known(1), Dim::known(64), Dim::known(112), Dim::known(112) },
                          "float32"));
    QCOMPARE(g.node(conv).attrs.intList("strides"),
             std::optional<std::vector<std::int64_t>>({ 2, 2 }));
    QCOMPARE(g.node(conv).attrs.stringOr("kernel_layout", ""), std::string("OIHW"));
    // lv1 = lv[0]: a projection of the batch_norm tuple, whose annotation has three fields.
    const NodeId lv1 = byName(g, main, "lv1");
    QCOMPARE(g.node(lv1).kind, NodeKind::TupleGetItem);
    QCOMPARE(g.node(lv1).index, 0U);
    const NodeId bn = g.node(lv1).inputs[0].node;
    QCOMPARE(QString::fromStdString(g.node(bn).op), QStringLiteral("relax.nn.batch_norm"));
    QCOMPARE(g.node(bn).outputType().fields.size(), std::size_t(3));
    QCOMPARE(g.node(conv).inputs[0].node, lv1);

    // Symbolic dims keep their names: encoding(input_ids: R.Tensor((1, "n"), dtype="int32")).
    const ImportResult l = importFile(llama.toStdString());
    QVERIFY2(l.ok(), l.firstError().c_str());
    const FunctionId enc = l.graph->findFunction("encoding");
    const Node &ids = l.graph->node(l.graph->function(enc).params[0]);
    QCOMPARE(ids.outputType(), Type::tensor({ Dim::known(1), Dim::symbolic("n") }, "int32"));
    const Node &seq = l.graph->node(l.graph->function(enc).params[1]);
    QCOMPARE(seq.outputType().kind, Type::Kind::Named);
    QCOMPARE(seq.outputType().shape, std::vector<Dim>({ Dim::symbolic("m") }));
    // lv24 = R.call_packed("vm.builtin.attention_kv_cache_view", ..., sinfo_args=(R.Tensor((m, 32,
    // 128)...),))
    const NodeId view = byName(*l.graph, enc, "lv24");
    QCOMPARE(QString::fromStdString(l.graph->node(view).op),
             QStringLiteral("vm.builtin.attention_kv_cache_view"));
    QCOMPARE(l.graph->node(view).attrs.stringOr("call", ""), std::string("call_packed"));
    QCOMPARE(l.graph->node(view).outputType(),
             Type::tensor({ Dim::symbolic("m"), Dim::known(32), Dim::known(128) }, "float16"));
}

void TestRelaxImport::kernelsAndPrimFuncs()
{
    const QString q4 = corpusPath("llama7b-1layer-q4_mlc-fused-calltir_2023.relax.py");
    if (!QFile::exists(q4))
        QSKIP("the Relax corpus is not available");
    const ImportResult r = importFile(q4.toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    // decoding: lv = R.call_tir(cls.encode, (embedding_weight1,), out_sinfo=[A, B]): two outputs
    // as a tuple; cls.encode has "op_pattern": ... in its T.func_attr.
    const FunctionId decoding = g.findFunction("decoding");
    const NodeId lv = byName(g, decoding, "lv");
    QVERIFY(lv.isValid());
    const Node &enc = g.node(lv);
    QCOMPARE(QString::fromStdString(enc.op), QStringLiteral("encode"));
    QCOMPARE(enc.attrs.stringOr("call", ""), std::string("call_tir"));
    QCOMPARE(enc.outputType(),
             Type::tuple({ Type::tensor({ Dim::known(32000), Dim::known(512) }, "uint32"),
                           Type::tensor({ Dim::known(32000), Dim::known(128) }, "float16") }));
    const FunctionId encodeFn = g.findFunction("encode");
    QVERIFY(!g.function(encodeFn).sourceText.empty());
    QVERIFY(g.function(encodeFn).sourceText.rfind("@T.prim_func\ndef encode(", 0) == 0);
    const AttrValue *pattern = g.function(encodeFn).attrs.find("op_pattern");
    QVERIFY(pattern);
    QVERIFY(enc.attrs.find("op_pattern"));
    QCOMPARE(*enc.attrs.find("op_pattern"), *pattern);
    // NT_matmul1 declares "op_pattern": 4 (line 9 of the file).
    QCOMPARE(g.function(g.findFunction("NT_matmul1")).attrs.intOr("op_pattern", -1),
             std::int64_t(4));
    // lv74 = R.call_tir(cls.rotary_embedding1, ..., tir_vars=R.shape([n]))
    const Node &rot = g.node(byName(g, decoding, "lv74"));
    QCOMPARE(rot.inputs.size(), std::size_t(3));
    QCOMPARE(rot.attrs.find("tir_vars")->text, std::string("R.shape([n])"));
}

void TestRelaxImport::blocks()
{
    const QString merged = corpusPath("diamond-A-B-A_merged-codegen_tvm-test.relax.py");
    if (!QFile::exists(merged))
        QSKIP("the Relax corpus is not available");
    const ImportResult r = importFile(merged.toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const ModelSummary s = ModelSummary::compute(*r.graph);
    int external = 0;
    int composite = 0;
    for (const BlockSummary &b : s.blocks) {
        external += b.kind == "external" ? 1 : 0;
        composite += b.kind == "composite" ? 1 : 0;
    }
    QCOMPARE(external, 3); // three Codegen functions called by main
    QCOMPARE(composite, 4); // four Composite closures
    const FunctionId a = r.graph->findFunction("fused_relax_nn_conv2d_relax_nn_relu_compiler_A");
    QCOMPARE(QString::fromStdString(r.graph->function(a).compiler()), QStringLiteral("compiler_A"));
    QCOMPARE(int(r.graph->outputs(a).size()), 2); // return (gv, gv11)
}

void TestRelaxImport::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("code");
    const std::string meta
        = "metadata = tvm.ir.load_json(\"\"\"{\\\"root\\\": 1, \\\"nodes\\\": "
          "[{\\\"type_key\\\": \\\"\\\"}, {\\\"type_key\\\": \\\"Map\\\", \\\"keys\\\": "
          "[\\\"relax.expr.Constant\\\"], \\\"data\\\": [2]}, {\\\"type_key\\\": "
          "\\\"Array\\\", \\\"data\\\": [3]}, {\\\"type_key\\\": "
          "\\\"relax.expr.Constant\\\"}], \\\"b64ndarrays\\\": []}\"\"\")\n";
    std::string truncated = smallModule("            gv = R.add(lv, x)");
    truncated.resize(truncated.find("R.add(lv, ") + 10); // the file ends inside the call
    QTest::newRow("truncated") << QString::fromStdString(truncated) << 8 << 23 << "relax.syntax";
    QTest::newRow("unbalanced") << QString::fromStdString(
        smallModule("            gv = R.add(lv, x]"))
                                << 8 << 29 << "relax.syntax";
    QTest::newRow("undefined") << QString::fromStdString(
        smallModule("            gv = R.add(lv, z)"))
                               << 8 << 28 << "relax.undefined";
    QTest::newRow("duplicate") << QString::fromStdString(
        smallModule("            lv = R.add(lv, x)\n            gv = lv"))
                               << 8 << 13 << "relax.duplicate";
    QTest::newRow("metadata index") << QString::fromStdString(
        smallModule("            gv = R.add(lv, metadata[\"relax.expr.Constant\"][1])", meta))
                                    << 9 << 60 << "relax.metadata";
    QTest::newRow("indentation") << QString::fromStdString(
        smallModule("          gv = R.add(lv, x)"))
                                 << 8 << 11 << "relax.syntax";
    QTest::newRow("unexpected indent")
        << QString::fromStdString(smallModule("                gv = R.add(lv, x)")) << 8 << 17
        << "relax.syntax";
    QTest::newRow("unknown function")
        << QString::fromStdString(smallModule("            gv = cls.nothere(lv)")) << 8 << 18
        << "relax.undefined";
    // The keyword text `dtype=5` of line 9 was read before on line 8, where an integer is a fine
    // attribute; R.const needs a string, and the error is placed on line 9 (at the 5).
    QTest::newRow("repeated keyword text")
        << QString::fromStdString(smallModule("            lv1 = R.full(lv, dtype=5)\n"
                                              "            gv = R.const(1, dtype=5)"))
        << 9 << 35 << "relax.syntax";
    QTest::newRow("unterminated string")
        << QString::fromStdString(smallModule("            gv = R.call_packed(\"f, lv)")) << 8 << 32
        << "relax.syntax";
}

void TestRelaxImport::malformed()
{
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, code);
    const ImportResult r = importBytes(text.toStdString(), "bad.relax.py");
    QVERIFY(!r.ok());
    QVERIFY(!r.diagnostics.empty());
    const Diagnostic &d = r.diagnostics.front();
    QCOMPARE(d.where.file, std::string("bad.relax.py"));
    QCOMPARE(d.where.line, line);
    QCOMPARE(d.where.column, column);
    QCOMPARE(QString::fromStdString(d.code), code);
    QVERIFY(r.firstError().rfind(
                "bad.relax.py:" + std::to_string(line) + ":" + std::to_string(column) + ":", 0)
            == 0);
}

void TestRelaxImport::repeatedKeywordTexts()
{
    // Calls with the same keyword text share one parse of it; each call still gets its own
    // attributes and type, as written. Line 3 of the body differs by one value, line 4 spreads
    // the same keywords over two lines, line 5 repeats line 2's text inside a call of another op.
    const std::string body
        = "            a: R.Tensor((2, 3), dtype=\"float32\") = R.nn.avg_pool2d(lv, "
          "pool_size=[1, 1], strides=[1, 1], layout=\"NCHW\")\n"
          "            b: R.Tensor((2, 3), dtype=\"float32\") = R.nn.avg_pool2d(a, "
          "pool_size=[1, 1], strides=[1, 1], layout=\"NCHW\")\n"
          "            c: R.Tensor((2, 3), dtype=\"float32\") = R.nn.avg_pool2d(b, "
          "pool_size=[1, 1], strides=[2, 1], layout=\"NCHW\")\n"
          "            d: R.Tensor((2, 3), dtype=\"float32\") = R.nn.avg_pool2d(c, "
          "pool_size=[1, 1],\n                strides=[1, 1], layout=\"NCHW\")\n"
          "            e: R.Tensor((2, 3), dtype=\"float32\") = R.nn.max_pool2d(d, "
          "pool_size=[1, 1], strides=[1, 1], layout=\"NCHW\")\n"
          "            e2: R.Tensor((2, 3), dtype=\"float32\") = R.nn.max_pool2d(d, "
          "pool_size=[1, 1], strides=[1, 1], layout=\"NCHW\", ceil_mode=True)\n"
          "            f = R.call_tir(cls.k, (e,), out_sinfo=R.Tensor((2, 3), dtype=\"float32\"))\n"
          "            gv = R.call_tir(cls.k, (f,), out_sinfo=R.Tensor((2, 3), dtype=\"float32\"))";
    const std::string module = smallModule(body)
        + "    @T.prim_func(private=True)\n    def k(x: T.handle, y: T.handle):\n"
          "        T.func_attr({\"op_pattern\": 0})\n";
    const ImportResult r = importBytes(module, "shared.relax.py");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const FunctionId main = g.findFunction("main");
    const std::vector<std::int64_t> ones { 1, 1 };
    for (const char *name : { "a", "b", "d", "e" }) {
        const Node &n = g.node(byName(g, main, name));
        QCOMPARE(n.attrs.size(), std::size_t(3));
        QCOMPARE(n.attrs.intList("pool_size"), std::optional(ones));
        QCOMPARE(n.attrs.intList("strides"), std::optional(ones));
        QCOMPARE(n.attrs.stringOr("layout", ""), std::string("NCHW"));
    }
    QCOMPARE(g.node(byName(g, main, "c")).attrs.intList("strides"),
             std::optional(std::vector<std::int64_t> { 2, 1 }));
    QCOMPARE(g.node(byName(g, main, "e")).op, std::string("relax.nn.max_pool2d"));
    // A keyword text that begins with one read before is its own (four attributes).
    const Node &e2 = g.node(byName(g, main, "e2"));
    QCOMPARE(e2.attrs.size(), std::size_t(4));
    QVERIFY(e2.attrs.find("ceil_mode") && e2.attrs.find("ceil_mode")->boolValue);
    // Each node at its own line and column (the calls' positions, not the first one's).
    QCOMPARE(g.node(byName(g, main, "b")).where.line, 9);
    QCOMPARE(g.node(byName(g, main, "e")).where.line, 13);
    const Type t = Type::tensor({ Dim::known(2), Dim::known(3) }, "float32");
    for (const char *name : { "f", "gv" }) {
        const Node &n = g.node(byName(g, main, name));
        QCOMPARE(n.outputType(), t);
        QCOMPARE(n.attrs.stringOr("call", ""), std::string("call_tir"));
        QCOMPARE(n.attrs.intOr("op_pattern", -1), std::int64_t(0));
        QCOMPARE(n.attrs.size(), std::size_t(2)); // call and op_pattern: out_sinfo is the type
    }
    QCOMPARE(g.node(byName(g, main, "gv")).inputs.front().node, byName(g, main, "f"));
}

void TestRelaxImport::dottedNames()
{
    // A dotted name is one path whether written `R.nn.relu` or with blanks around the dots, as
    // Python allows; a dot needs a name after it.
    const ImportResult spaced
        = importBytes(smallModule("            gv = R . nn.  relu(lv)"), "spaced.relax.py");
    QVERIFY2(spaced.ok(), spaced.firstError().c_str());
    const Graph &g = *spaced.graph;
    QCOMPARE(g.node(byName(g, g.findFunction("main"), "gv")).op, std::string("relax.nn.relu"));
    const ImportResult bad = importBytes(smallModule("            gv = R.nn.(lv)"), "bad.relax.py");
    QVERIFY(!bad.ok());
    QCOMPARE(bad.diagnostics.front().where.line, 8);
    QCOMPARE(bad.diagnostics.front().where.column, 23); // the `(` where a name must be
    QVERIFY(bad.firstError().find("expected a name after '.'") != std::string::npos);
    const ImportResult param = importBytes(
        "@I.ir_module\nclass M:\n    @R.function\n    def main(x.y: R.Object):\n        return x\n",
        "param.relax.py");
    QVERIFY(!param.ok());
    QCOMPARE(param.diagnostics.front().where.line, 4);
    QCOMPARE(param.diagnostics.front().where.column, 14);
}

void TestRelaxImport::literalValues()
{
    // Literals as Python reads them: a sign written apart from its number, escapes, adjacent
    // string literals joined, a raw string keeping its backslash.
    const std::string body = "            a = R.const(-3, \"int32\")\n"
                             "            b = R.const(- 4, \"int32\")\n"
                             "            c = R.str(\"say \\\"hi\\\"\\n\")\n"
                             "            d = R.str(\"ab\" 'cd')\n"
                             "            e = R.str(r\"x\\y\")\n"
                             "            gv = R.add(lv, x)";
    const ImportResult r = importBytes(smallModule(body), "literals.relax.py");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const FunctionId main = g.findFunction("main");
    QCOMPARE(g.node(byName(g, main, "a")).value().intValue, std::int64_t(-3));
    QCOMPARE(g.node(byName(g, main, "b")).value().intValue, std::int64_t(-4));
    QCOMPARE(g.node(byName(g, main, "c")).value().text, std::string("say \"hi\"\n"));
    QCOMPARE(g.node(byName(g, main, "d")).value().text, std::string("abcd"));
    QCOMPARE(g.node(byName(g, main, "e")).value().text, std::string("x\\y"));
}

void TestRelaxImport::deepNestingIsAnError()
{
    // 100000 nested brackets, a 100000-term sum and 2000 nested blocks: an error at a position,
    // never a crash.
    std::string deep = smallModule("            gv = R.add(lv, " + std::string(100000, '(') + "x"
                                   + std::string(100000, ')') + ")");
    const ImportResult r = importBytes(deep, "deep.relax.py");
    QVERIFY(!r.ok());
    QCOMPARE(r.diagnostics.front().where.line, 8);
    std::string chain = "x";
    for (int i = 0; i < 100000; ++i)
        chain += " + x";
    const ImportResult c
        = importBytes(smallModule("            gv = R.add(lv, " + chain + ")"), "chain.relax.py");
    QVERIFY(!c.ok());
    QCOMPARE(c.diagnostics.front().where.line, 8);
    std::string blocks
        = "@I.ir_module\nclass M:\n    @R.function\n    def main(x: R.Object) -> R.Object:\n";
    for (int i = 0; i < 2000; ++i)
        blocks += std::string(8 + 4 * static_cast<std::size_t>(i), ' ') + "if x:\n";
    blocks += std::string(8 + 4 * 2000, ' ') + "y = x\n";
    const ImportResult b = importBytes(blocks, "blocks.relax.py");
    QVERIFY(!b.ok());
    QVERIFY(b.diagnostics.front().where.line > 4);
    QVERIFY(b.diagnostics.front().message.find("nested too deeply") != std::string::npos);
}

void TestRelaxImport::controlByteIsNamed()
{
    // A record separator (0x1E) where an expression goes: named by its code, not printed raw
    // (a raw control byte breaks the message's line).
    const ImportResult r
        = importBytes(smallModule("            gv = R.add(lv, \x1e)"), "ctl.relax.py");
    QVERIFY(!r.ok());
    const Diagnostic &d = r.diagnostics.front();
    QCOMPARE(d.message, std::string("unexpected byte 0x1E"));
    QCOMPARE(d.where.line, 8);
    QCOMPARE(d.where.column, 28); // 12 blanks, "gv = R.add(lv, " is 15 more: column 28
    QCOMPARE(d.code, std::string("relax.syntax"));

    // A string token that spans lines is quoted on one line, newlines escaped.
    const ImportResult s
        = importBytes("@I.ir_module\nclass M\"\"\"a\nb\"\"\":\n    pass\n", "str.relax.py");
    QVERIFY(!s.ok());
    QCOMPARE(s.diagnostics.front().message,
             std::string("expected ':' after the class name, found '\"\"\"a\\nb\"\"\"'"));
    QCOMPARE(s.diagnostics.front().where.line, 2);
    QCOMPARE(s.diagnostics.front().where.column, 8);
}

namespace {

/// A tensor in TVM's NDArray serialization (src/runtime/ndarray.cc, SaveDLTensor): magic,
/// reserved, CPU device (1, 0), ndim, dtype (code, bits, lanes), shape, byte size, data.
QByteArray ndarray(std::vector<std::int64_t> shape, std::int64_t declaredBytes,
                   std::size_t dataBytes, std::uint64_t magic = 0xDD5E40F096B4A13FULL)
{
    QByteArray b;
    const auto put = [&b](const auto value) {
        b.append(reinterpret_cast<const char *>(&value), sizeof(value)); // x86-64: little endian
    };
    put(magic);
    put(std::uint64_t { 0 });
    put(std::int32_t { 1 });
    put(std::int32_t { 0 });
    put(static_cast<std::int32_t>(shape.size()));
    put(std::uint8_t { 2 }); // float
    put(std::uint8_t { 32 });
    put(std::uint16_t { 1 });
    for (std::int64_t d : shape)
        put(d);
    put(declaredBytes);
    b.append(QByteArray(static_cast<int>(dataBytes), '\0'));
    return b.toBase64();
}

/// A module adding metadata["relax.expr.Constant"][0] (a float32 (2,)) to x, with a legacy
/// metadata header printed as TVM 0.14-0.20 print it: one JSON line per element, quotes
/// escaped. `arrayData` is the constant table's Array data, `constantData` the constant's
/// payload index, `payload` the one b64ndarrays entry.
std::string payloadModule(const std::string &payload, const std::string &arrayData = "[2]",
                          const std::string &constantData = "0")
{
    return "# from tvm.script import relax as R\n"
           "metadata = tvm.ir.load_json(\"\"\"{\n"
           "  \\\"root\\\": 1, \n"
           "  \\\"nodes\\\": [\n"
           "    {\\\"type_key\\\": \\\"\\\"}, \n"
           "    {\\\"type_key\\\": \\\"Map\\\", \\\"keys\\\": [\\\"relax.expr.Constant\\\"], "
           "\\\"data\\\": [3]}, \n"
           "    {\\\"type_key\\\": \\\"relax.expr.Constant\\\", \\\"attrs\\\": {\\\"data\\\": "
           "\\\""
        + constantData
        + "\\\"}}, \n"
          "    {\\\"type_key\\\": \\\"Array\\\", \\\"data\\\": "
        + arrayData
        + "}\n"
          "  ], \n"
          "  \\\"b64ndarrays\\\": [\n"
          "    \\\""
        + payload
        + "\\\"\n"
          "  ]\n"
          "}\"\"\")\n"
          "@I.ir_module\n"
          "class M:\n"
          "    @R.function\n"
          "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), "
          "dtype=\"float32\"):\n"
          "        gv: R.Tensor((2,), dtype=\"float32\") = R.add(x, "
          "metadata[\"relax.expr.Constant\"][0])\n"
          "        return gv\n";
}

} // namespace

void TestRelaxImport::metadataPayloads_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message"); // empty: the module imports
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    const QString good = QString::fromLatin1(ndarray({ 2 }, 8, 8));
    // Lines of payloadModule: 11 holds the payload (at column 5, the backslash of its opening
    // \"), 7 the constant node, 8 the Array node (both at column 5, their '{').
    const auto row
        = [](const char *name, const std::string &text, const char *message, int line, int column) {
              QTest::newRow(name) << QString::fromStdString(text) << QString::fromUtf8(message)
                                  << line << column;
          };
    row("valid", payloadModule(good.toStdString()), "", 0, 0);
    row("not base64", payloadModule("@@@@"),
        "invalid metadata header: tensor payload 0: the payload is not base64", 11, 5);
    row("no magic", payloadModule(ndarray({ 2 }, 8, 8, 42).toStdString()),
        "invalid metadata header: tensor payload 0: the payload is not a TVM tensor "
        "(no NDArray magic number)",
        11, 5);
    // float32 x 2 needs 8 bytes; the header says 4.
    row("impossible size", payloadModule(ndarray({ 2 }, 4, 4).toStdString()),
        "invalid metadata header: tensor payload 0: the payload declares 4 data "
        "bytes, but its shape and dtype need 8",
        11, 5);
    row("truncated data", payloadModule(ndarray({ 2 }, 8, 4).toStdString()),
        "invalid metadata header: tensor payload 0: the payload declares 8 data "
        "bytes but holds 4",
        11, 5);
    // A rank of 2^31-1 in a 56-byte payload (32 bytes of header, one dim, the size, 8 data).
    QByteArray rank = QByteArray::fromBase64(good.toLatin1());
    const std::int32_t hugeRank = 0x7fffffff;
    std::memcpy(rank.data() + 24, &hugeRank, sizeof(hugeRank));
    row("impossible rank", payloadModule(rank.toBase64().toStdString()),
        "invalid metadata header: tensor payload 0: the payload's rank 2147483647 "
        "does not fit its 56 bytes",
        11, 5);
    row("no such payload", payloadModule(good.toStdString(), "[2]", "5"),
        "invalid metadata header: constant node 2 names no tensor payload (there "
        "are 1)",
        7, 5);
    row("dangling reference", payloadModule(good.toStdString(), "[9]"),
        "invalid metadata header: Array node 3 references 9, which is no node "
        "(there are 4)",
        8, 5);
    row("cycle", payloadModule(good.toStdString(), "[2, 3]"),
        "invalid metadata header: Array node 3 references node 3, which contains it "
        "(a cycle)",
        8, 5);
}

void TestRelaxImport::metadataPayloads()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    QFETCH(int, line);
    QFETCH(int, column);
    const ImportResult r = importBytes(text.toStdString(), "meta.relax.py");
    if (message.isEmpty()) {
        QVERIFY2(r.ok(), r.firstError().c_str());
        return;
    }
    QVERIFY(!r.ok());
    const Diagnostic &d = r.diagnostics.front();
    QCOMPARE(QString::fromStdString(d.message), message);
    QCOMPARE(d.code, std::string("relax.metadata"));
    QCOMPARE(d.where.line, line);
    QCOMPARE(d.where.column, column);
}

QTEST_GUILESS_MAIN(TestRelaxImport)
#include "tst_relaximport.moc"
