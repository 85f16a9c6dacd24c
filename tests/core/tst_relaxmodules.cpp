// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// What a Relax export routes and carries beyond the corpus round trips of tst_relaxexport:
// global inputs of any type shared by several partitions, per-module metadata subsets, and
// tuples moved between vdevices in placed.relax.py. Every module here is hand-written and the
// expected values are read off it by hand.
#include "TestSupport.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/session/PlanPipeline.h"
#include "core/validation/Validation.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>

using namespace cleave;

namespace {

/// Writes a module text to `dir/name` (verify re-reads the source from disk) and imports it;
/// aborts when it does not import, since every module of this test is written to be valid.
std::unique_ptr<Graph> importText(const QTemporaryDir &dir, const char *text, const char *name)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) < 0)
        qFatal("cannot write %s", qPrintable(path));
    f.close();
    return test::loadOrAbort(path.toStdString());
}

/// A tuple input `t` read by both sides of a cut after the add: stage0 = {t0, lv},
/// stage1 = {lv1, t1, gv}.
const char *const tupleInput = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"))) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            t0: R.Tensor((2, 3), dtype="float32") = t[0]
            lv: R.Tensor((2, 3), dtype="float32") = R.add(x, t0)
            lv1: R.Tensor((2, 3), dtype="float32") = R.nn.relu(lv)
            t1: R.Tensor((2, 3), dtype="float32") = t[1]
            gv: R.Tensor((2, 3), dtype="float32") = R.multiply(lv1, t1)
            R.output(gv)
        return gv
)";

/// A split whose tuple crosses a cut whole (concat reads it) and by projection (lv[1]).
const char *const tupleCrossing = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), dtype="float32")) -> R.Tuple(R.Tensor((4, 6), dtype="float32"), R.Tensor((2, 6), dtype="float32")):
        with R.dataflow():
            lv: R.Tuple(R.Tensor((2, 6), dtype="float32"), R.Tensor((2, 6), dtype="float32")) = R.split(x, indices_or_sections=2, axis=0)
            lv1: R.Tensor((4, 6), dtype="float32") = R.concat(lv, axis=0)
            lv2: R.Tensor((2, 6), dtype="float32") = lv[1]
            lv3: R.Tensor((2, 6), dtype="float32") = R.nn.relu(lv2)
            gv: R.Tuple(R.Tensor((4, 6), dtype="float32"), R.Tensor((2, 6), dtype="float32")) = (lv1, lv3)
            R.output(gv)
        return gv
)";

/// Three constants in the metadata header (TVM's node graph, laid out as tvm.ir.save_json
/// writes it), used on both sides of a cut after the add: c0 (3,) by stage0; c1 (2, 3) and
/// c2 (3,) by stage1. c0 and c2 share the IntImm 3 (node 7) of their shapes. 27 nodes:
/// 0 null, 1 root Map, 2 the constant table; c0 = 3..10 (Constant, TensorStructInfo,
/// ShapeExpr, Array, IntImm 3, ShapeStructInfo, ShapeType, DynTensorType); c1 = 11..19 (its
/// Array holds two IntImms, 15 and 16); c2 = 20..26 (its Array holds node 7).
const char *const threeConstants = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

metadata = tvm.ir.load_json("""{
  "root": 1,
  "nodes": [
    {"type_key": ""},
    {"type_key": "Map", "keys": ["relax.expr.Constant"], "data": [2]},
    {"type_key": "Array", "data": [3, 11, 20]},
    {"type_key": "relax.expr.Constant", "attrs": {"_checked_type_": "10", "data": "0", "span": "0", "struct_info_": "4"}},
    {"type_key": "relax.TensorStructInfo", "attrs": {"dtype": "float32", "ndim": "1", "shape": "5", "span": "0", "vdevice": "0"}},
    {"type_key": "relax.expr.ShapeExpr", "attrs": {"_checked_type_": "9", "span": "0", "struct_info_": "8", "values": "6"}},
    {"type_key": "Array", "data": [7]},
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "3"}},
    {"type_key": "relax.ShapeStructInfo", "attrs": {"ndim": "1", "span": "0", "values": "6"}},
    {"type_key": "relax.ShapeType", "attrs": {"ndim": "1", "span": "0"}},
    {"type_key": "relax.DynTensorType", "attrs": {"dtype": "float32", "ndim": "1", "span": "0"}},
    {"type_key": "relax.expr.Constant", "attrs": {"_checked_type_": "19", "data": "1", "span": "0", "struct_info_": "12"}},
    {"type_key": "relax.TensorStructInfo", "attrs": {"dtype": "float32", "ndim": "2", "shape": "13", "span": "0", "vdevice": "0"}},
    {"type_key": "relax.expr.ShapeExpr", "attrs": {"_checked_type_": "18", "span": "0", "struct_info_": "17", "values": "14"}},
    {"type_key": "Array", "data": [15, 16]},
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "2"}},
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "3"}},
    {"type_key": "relax.ShapeStructInfo", "attrs": {"ndim": "2", "span": "0", "values": "14"}},
    {"type_key": "relax.ShapeType", "attrs": {"ndim": "2", "span": "0"}},
    {"type_key": "relax.DynTensorType", "attrs": {"dtype": "float32", "ndim": "2", "span": "0"}},
    {"type_key": "relax.expr.Constant", "attrs": {"_checked_type_": "26", "data": "2", "span": "0", "struct_info_": "21"}},
    {"type_key": "relax.TensorStructInfo", "attrs": {"dtype": "float32", "ndim": "1", "shape": "22", "span": "0", "vdevice": "0"}},
    {"type_key": "relax.expr.ShapeExpr", "attrs": {"_checked_type_": "25", "span": "0", "struct_info_": "24", "values": "23"}},
    {"type_key": "Array", "data": [7]},
    {"type_key": "relax.ShapeStructInfo", "attrs": {"ndim": "1", "span": "0", "values": "23"}},
    {"type_key": "relax.ShapeType", "attrs": {"ndim": "1", "span": "0"}},
    {"type_key": "relax.DynTensorType", "attrs": {"dtype": "float32", "ndim": "1", "span": "0"}}
  ],
  "b64ndarrays": [
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAAACAPwAAAEAAAEBA",
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/AACAPwAAgD8AAABAAAAAQAAAAEA=",
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAAAAAPwAAAD8AAAA/"
  ],
  "attrs": {"tvm_version": "0.15.dev0"}
}""")

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
            lv1: R.Tensor((2, 3), dtype="float32") = R.multiply(lv, metadata["relax.expr.Constant"][1])
            gv: R.Tensor((2, 3), dtype="float32") = R.subtract(lv1, metadata["relax.expr.Constant"][2])
            R.output(gv)
        return gv
)";

/// The base64 NDArrays of c0, c1 and c2 (float32 [1, 2, 3], [[1, 1, 1], [2, 2, 2]],
/// [0.5, 0.5, 0.5], written by Python's struct module in TVM's NDArray save layout).
const char *const payloadC1
    = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/"
      "AACAPwAAgD8AAABAAAAAQAAAAEA=";
const char *const payloadC0
    = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAAACAPwAAAEAAAEBA";
const char *const payloadC2
    = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAAAAAPwAAAD8AAAA/";

/// The shape of metadata constant `i`, read by following its references by hand:
/// Constant.struct_info_ → TensorStructInfo.shape → ShapeExpr.values → Array → IntImm values.
std::vector<int> constantShape(const QJsonObject &doc, int i)
{
    const QJsonArray nodes = doc.value(QStringLiteral("nodes")).toArray();
    auto node = [&](const QJsonValue &ref) {
        return nodes.at(ref.isString() ? ref.toString().toInt() : ref.toInt()).toObject();
    };
    auto attr = [](const QJsonObject &n, const char *key) {
        return n.value(QStringLiteral("attrs")).toObject().value(QLatin1String(key));
    };
    auto data = [](const QJsonObject &n) { return n.value(QStringLiteral("data")).toArray(); };
    const QJsonObject root = node(doc.value(QStringLiteral("root")));
    const QJsonObject table = node(data(root).at(0));
    const QJsonObject constant = node(data(table).at(i));
    const QJsonObject sinfo = node(attr(constant, "struct_info_"));
    const QJsonObject shape = node(attr(sinfo, "shape"));
    std::vector<int> dims;
    for (const QJsonValue &d : data(node(attr(shape, "values"))))
        dims.push_back(attr(node(d), "value").toString().toInt());
    return dims;
}

} // namespace

class TestRelaxModules : public QObject
{
    Q_OBJECT

private slots:
    void sharedTupleInputIsForwarded();
    void relayWriterKeepsTensorRule();
    void metadataSubsetPerModule();
    void tupleMovedFieldByField();
};

void TestRelaxModules::sharedTupleInputIsForwarded()
{
    QTemporaryDir tmp;
    const auto g = importText(tmp, tupleInput, "tuple_input.relax.py");
    PartitionPlan plan(*g);
    QVERIFY(!hasErrors(plan.cutAfterOps({ { "relax.add", 0 } }).diagnostics));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const BoundaryTable boundary = computeBoundary(plan);

    // Under the pipeline executor's rule (tensors only) the tuple has no route.
    const std::vector<Diagnostic> strict = checkSharedGlobalInputs(plan);
    QCOMPARE(strict.size(), std::size_t(1));
    QCOMPARE(strict[0].code, std::string("pipeline.shared_global_input"));

    // The Relax writer forwards any value (the plan pipeline applies the model's writer's
    // capabilities): an info, no error.
    const PlanPipeline pipeline(*g, EngineSettings {});
    QVERIFY(pipeline.validationOptions().forwardsAnyValue);
    int routed = 0;
    for (const Diagnostic &d : pipeline.check(plan).diagnostics) {
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
        if (d.code == "pipeline.routed_input") {
            ++routed;
            QVERIFY2(d.message.starts_with(
                         "global input t is read by 2 partitions (stage0, stage1); the export "
                         "forwards it: stage0 returns it as an extra output feeding stage1"),
                     d.message.c_str());
        }
    }
    QCOMPARE(routed, 1);

    const QString dir = tmp.path() + "/out";
    const ExportResult r = pipeline.exportPlan(plan, {}, dir.toStdString());
    QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());
    // mod0 reads t and x, and returns lv and the tuple t it forwards.
    const auto mod0 = test::loadOrAbort((dir + "/mod0.relax.py").toStdString());
    const FunctionId main0 = mod0->findFunction("main");
    QCOMPARE(mod0->outputs(main0).size(), std::size_t(2));
    const TensorRef forwarded = mod0->outputs(main0)[1];
    QCOMPARE(mod0->node(forwarded.node).kind, NodeKind::Input);
    QCOMPARE(mod0->node(forwarded.node).name, std::string("t"));
    // mod1 takes the cut tensor and t.
    const auto mod1 = test::loadOrAbort((dir + "/mod1.relax.py").toStdString());
    std::vector<std::string> params;
    for (NodeId p : mod1->function(mod1->findFunction("main")).params)
        params.push_back(mod1->node(p).name);
    QCOMPARE(params, (std::vector<std::string> { "data_n_0", "t" }));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestRelaxModules::relayWriterKeepsTensorRule()
{
    const auto g = test::loadSample("resnet18.relay");
    ValidationOptions options;
    options.forwardsAnyValue = true;
    applyWriterCapabilities(*g, options);
    QVERIFY(!options.forwardsAnyValue); // the pipeline executor carries tensors only
}

void TestRelaxModules::metadataSubsetPerModule()
{
    QTemporaryDir tmp;
    const auto g = importText(tmp, threeConstants, "three_constants.relax.py");
    PartitionPlan plan(*g);
    QVERIFY(!hasErrors(plan.cutAfterOps({ { "relax.add", 0 } }).diagnostics));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const QString dir = tmp.path() + "/out";
    const ExportResult r = exportPartitions(plan, computeBoundary(plan), {}, dir.toStdString());
    QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());

    struct Expected
    {
        int nodes; // null + root + table + the nodes the kept constants reach
        std::vector<std::string> payloads;
        std::vector<std::vector<int>> shapes;
        std::vector<std::string> refs; // the constant each op reads, in program order
    };
    const Expected expected[] = {
        // c0 alone: 3 + 8.
        { 11, { payloadC0 }, { { 3 } }, { "metadata[\"relax.expr.Constant\"][0]" } },
        // c1 (9 nodes) and c2 (7 nodes plus the IntImm it shares with c0): 3 + 9 + 8.
        { 20,
          { payloadC1, payloadC2 },
          { { 2, 3 }, { 3 } },
          { "metadata[\"relax.expr.Constant\"][0]", "metadata[\"relax.expr.Constant\"][1]" } },
    };
    for (int k = 0; k < 2; ++k) {
        const auto module
            = test::loadOrAbort((dir + QStringLiteral("/mod%1.relax.py").arg(k)).toStdString());
        const QJsonObject doc
            = QJsonDocument::fromJson(QByteArray::fromStdString(module->metadata())).object();
        QVERIFY(!doc.isEmpty());
        const Expected &e = expected[k];
        QCOMPARE(doc.value(QStringLiteral("nodes")).toArray().size(), e.nodes);
        const QJsonArray payloads = doc.value(QStringLiteral("b64ndarrays")).toArray();
        QCOMPARE(payloads.size(), qsizetype(e.payloads.size()));
        for (std::size_t i = 0; i < e.payloads.size(); ++i) {
            QCOMPARE(payloads.at(qsizetype(i)).toString().toStdString(), e.payloads[i]);
            QCOMPARE(constantShape(doc, int(i)), e.shapes[i]);
        }
        QCOMPARE(doc.value(QStringLiteral("attrs"))
                     .toObject()
                     .value(QStringLiteral("tvm_version"))
                     .toString(),
                 QStringLiteral("0.15.dev0"));
        std::vector<std::string> refs;
        for (const Node &n : module->nodes()) {
            if (!n.metaRef().empty())
                refs.push_back(n.metaRef());
        }
        QCOMPARE(refs, e.refs);
    }
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestRelaxModules::tupleMovedFieldByField()
{
    QTemporaryDir tmp;
    const auto g = importText(tmp, tupleCrossing, "tuple_crossing.relax.py");
    PartitionPlan plan(*g);
    QVERIFY(!hasErrors(plan.cutAfterOps({ { "relax.split", 0 } }).diagnostics));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    ExportOptions options;
    options.targets = { "cuda", "cuda" };
    const QString dir = tmp.path() + "/out";
    const ExportResult r
        = exportPartitions(plan, computeBoundary(plan), options, dir.toStdString());
    QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.front().toString().c_str());
    // R.to_vdevice takes one tensor: each field moves to cuda:1 once, the tuple concat reads
    // is rebuilt there from the moved fields, the projection lv[1] reads its moved field, and
    // every binding (tuples field by field) carries its partition's vdevice.
    const QString t26_0 = QStringLiteral(R"(R.Tensor((2, 6), dtype="float32", vdevice="cuda:0"))");
    const QString t26_1 = QStringLiteral(R"(R.Tensor((2, 6), dtype="float32", vdevice="cuda:1"))");
    const QString t46_1 = QStringLiteral(R"(R.Tensor((4, 6), dtype="float32", vdevice="cuda:1"))");
    const QStringList expected {
        "lv: R.Tuple(" + t26_0 + ", " + t26_0 + ") = R.split(x, indices_or_sections=2, axis=0)",
        "lv_0_cuda_1: " + t26_1 + R"( = R.to_vdevice(lv[0], dst_vdevice="cuda:1"))",
        "lv_1_cuda_1: " + t26_1 + R"( = R.to_vdevice(lv[1], dst_vdevice="cuda:1"))",
        "lv_cuda_1: R.Tuple(" + t26_1 + ", " + t26_1 + ") = (lv_0_cuda_1, lv_1_cuda_1)",
        "lv1: " + t46_1 + " = R.concat(lv_cuda_1, axis=0)",
        "lv3: " + t26_1 + " = R.nn.relu(lv_1_cuda_1)",
        "gv: R.Tuple(" + t46_1 + ", " + t26_1 + ") = (lv1, lv3)",
    };
    QFile placed(dir + "/placed.relax.py");
    QVERIFY(placed.open(QIODevice::ReadOnly));
    QStringList bindings;
    for (const QString &line : QString::fromUtf8(placed.readAll()).split('\n')) {
        const QString text = line.trimmed();
        if (text.contains(" = ") && !text.startsWith(QLatin1String("metadata")))
            bindings << text;
    }
    QCOMPARE(bindings, expected);
    // The placed module reads back: two tensor moves, one rebuilt tuple.
    const auto module = test::loadOrAbort((dir + "/placed.relax.py").toStdString());
    int moves = 0;
    for (const Node &n : module->nodes())
        moves += n.op == "relax.to_vdevice" ? 1 : 0;
    QCOMPARE(moves, 2);
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_APPLESS_MAIN(TestRelaxModules)
#include "tst_relaxmodules.moc"
