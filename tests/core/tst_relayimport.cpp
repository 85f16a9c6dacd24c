// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "TestSupport.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/GraphCompare.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace cleave;

namespace {

QJsonObject loadJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QString modelPath(const QString &name)
{
    const QString corpus = QStringLiteral(CLEAVE_CORPUS_DIR "/relay/") + name;
    if (QFile::exists(corpus))
        return corpus;
    return QStringLiteral(CLEAVE_SAMPLES_DIR "/") + name;
}

// Every primitive operator call in the module, nested function bodies included.
std::map<std::string, int> opHistogram(const Graph &g)
{
    std::map<std::string, int> ops;
    for (const Node &n : g.nodes()) {
        if (n.kind == NodeKind::OpCall)
            ++ops[n.op];
    }
    return ops;
}

} // namespace

class TestRelayImport : public QObject
{
    Q_OBJECT

private slots:
    void everyFile_data();
    void everyFile();
    void roundTrip_data();
    void roundTrip();
    void malformed_data();
    void malformed();
    void longTokensAreBounded();
    void longNamesAreBounded();
    void inlineValuesAreNamed();
    void syntaxForms();
    void repeatedAttributeTexts();
    void typesAndAttributes();
    void constantsFromMetadata();
    void rareFieldsOnlyWhereUsed();
    void functionsAndBlocks();
};

void TestRelayImport::everyFile_data()
{
    QTest::addColumn<QString>("file");
    const QJsonObject expected
        = loadJson(QStringLiteral(CLEAVE_TESTDATA_DIR "/relay_expected.json"));
    QVERIFY(expected.size() >= 20);
    // Every corpus and sample file must be in the expectations.
    const QStringList corpus
        = QDir(QStringLiteral(CLEAVE_CORPUS_DIR "/relay")).entryList({ "*.relay.txt" });
    const QStringList samples = QDir(QStringLiteral(CLEAVE_SAMPLES_DIR)).entryList({ "*.relay" });
    if (corpus.isEmpty())
        QTest::newRow(test::missingCorpusRow()) << QString();
    else
        QCOMPARE(corpus.size(), 15);
    QCOMPARE(samples.size(), 5);
    for (const QString &f : corpus + samples) {
        QVERIFY2(expected.contains(f), qPrintable(f));
        QTest::newRow(qPrintable(f)) << f;
    }
}

void TestRelayImport::everyFile()
{
    QFETCH(QString, file);
    CLEAVE_SKIP_MISSING_CORPUS_ROW(file);
    const QJsonObject expected
        = loadJson(QStringLiteral(CLEAVE_TESTDATA_DIR "/relay_expected.json"))
              .value(file)
              .toObject();
    const ImportResult r = importFile(modelPath(file).toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    QCOMPARE(QString::fromStdString(g.format()), QStringLiteral("relay"));
    QCOMPARE(g.checksum().size(), std::size_t(64));

    const std::map<std::string, int> ops = opHistogram(g);
    const QJsonObject expectedOps = expected.value("ops").toObject();
    QCOMPARE(int(ops.size()), expectedOps.size());
    int calls = 0;
    for (const auto &[op, count] : ops) {
        QVERIFY2(expectedOps.contains(QString::fromStdString(op)), op.c_str());
        QCOMPARE(count, expectedOps.value(QString::fromStdString(op)).toInt());
        calls += count;
    }
    QCOMPARE(calls, expected.value("op_calls").toInt());

    const FunctionId mainFn = g.mainFunction();
    QVERIFY(mainFn.isValid());
    QCOMPARE(int(g.function(mainFn).params.size()), expected.value("main_inputs").toInt());
    QCOMPARE(int(g.outputs(mainFn).size()), expected.value("main_outputs").toInt());
    int globals = 0;
    for (const Function &f : g.functions())
        globals += f.kind == Function::Kind::Global ? 1 : 0;
    QCOMPARE(globals, expected.value("functions").toInt());

    // Keys are unique and resolve back to their node.
    for (std::size_t i = 0; i < g.nodeCount(); ++i)
        QCOMPARE(g.findByKey(g.key(NodeId(i))), NodeId(i));
}

void TestRelayImport::roundTrip_data()
{
    everyFile_data();
}

void TestRelayImport::roundTrip()
{
    QFETCH(QString, file);
    CLEAVE_SKIP_MISSING_CORPUS_ROW(file);
    const ImportResult first = importFile(modelPath(file).toStdString());
    QVERIFY2(first.ok(), first.firstError().c_str());
    const std::string text = printRelay(*first.graph);
    const ImportResult second = importBytes(text, "printed.relay");
    QVERIFY2(second.ok(), (second.firstError() + "\n" + text.substr(0, 2000)).c_str());
    const auto difference = firstDifference(*first.graph, *second.graph);
    QVERIFY2(!difference, difference ? difference->c_str() : "");
    // Printing is stable: the reprint of the reprint is the same text.
    QCOMPARE(printRelay(*second.graph), text);
}

void TestRelayImport::malformed_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QStringList>("phrases");
    const QJsonObject expected
        = loadJson(QStringLiteral(CLEAVE_TESTDATA_DIR "/malformed/expected.json"));
    QCOMPARE(expected.size(), 10);
    for (auto it = expected.begin(); it != expected.end(); ++it) {
        const QJsonObject e = it.value().toObject();
        QStringList phrases;
        for (const auto &p : e.value("message_contains").toArray())
            phrases << p.toString();
        QTest::newRow(qPrintable(it.key()))
            << it.key() << e.value("line").toInt() << e.value("column").toInt() << phrases;
    }
}

void TestRelayImport::malformed()
{
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QStringList, phrases);
    const std::string path
        = (QStringLiteral(CLEAVE_TESTDATA_DIR "/malformed/") + file).toStdString();
    const ImportResult r = importFile(path);
    QVERIFY(!r.ok());
    QVERIFY(r.graph == nullptr);
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    const Diagnostic &d = r.diagnostics.front();
    QCOMPARE(d.severity, Severity::Error);
    QCOMPARE(QString::fromStdString(d.where.file), QString::fromStdString(path));
    QCOMPARE(d.where.line, line);
    QCOMPARE(d.where.column, column);
    for (const QString &p : phrases)
        QVERIFY2(QString::fromStdString(d.message).contains(p), d.message.c_str());
    QVERIFY(QString::fromStdString(d.toString())
                .startsWith(QString::fromStdString(path) + ":" + QString::number(line) + ":"
                            + QString::number(column)));
}

void TestRelayImport::longTokensAreBounded()
{
    // A token quoted in a message is cut to 60 bytes with its length (a digit run or a name may
    // be megabytes long).
    const ImportResult r = importBytes("def @main(%x: Tensor[(1, 3), float32]) "
                                           + std::string(100, '7') + " {\n  %x\n}\n",
                                       "long.relay");
    QVERIFY(!r.ok());
    QCOMPARE(r.diagnostics.front().toString(),
             "long.relay:1:40: error: expected '{' to open the body of @main, found number '"
                 + std::string(60, '7') + "…' (100 bytes) [relay.syntax]");
}

void TestRelayImport::longNamesAreBounded()
{
    // A binding keeps its name's length in 16 bits: 65,535 bytes read, one more is an error at
    // the name (the `%` is column 3).
    const auto module = [](std::size_t length) {
        return "def @main(%x: Tensor[(1, 3), float32]) {\n  %" + std::string(length, 'n')
            + " = nn.relu(%x);\n  %" + std::string(length, 'n') + "\n}\n";
    };
    const ImportResult fits = importBytes(module(65535), "fits.relay");
    QVERIFY2(fits.ok(), fits.firstError().c_str());
    const NodeId relu = fits.graph->findByKey("%" + std::string(65535, 'n'));
    QVERIFY(relu.isValid());
    QCOMPARE(fits.graph->node(relu).op, std::string("nn.relu"));

    const ImportResult tooLong = importBytes(module(65536), "long.relay");
    QVERIFY(!tooLong.ok());
    QCOMPARE(tooLong.diagnostics.size(), std::size_t(1));
    const Diagnostic &d = tooLong.diagnostics.front();
    QCOMPARE(d.where.line, 2);
    QCOMPARE(d.where.column, 3);
    QVERIFY2(d.message.find("is 65536 bytes long; Cleave reads names of up to 65535 bytes")
                 != std::string::npos,
             d.message.c_str());
}

void TestRelayImport::inlineValuesAreNamed()
{
    // Values without a binding are named after their first consumer and argument position,
    // recursively; a function's unbound result after the function (`%ret` in main).
    const char *text = "def @main(%x: Tensor[(1, 4), float32]) {\n"
                       "  %0 = add(nn.relu(%x), multiply(%x, 2f));\n"
                       "  %1 = fn (%y: Tensor[(1, 4), float32]) { negative(%y) };\n"
                       "  %2 = %1(%0);\n"
                       "  add(%2, subtract(%0, nn.relu(%x)))\n"
                       "}\n";
    const ImportResult r = importBytes(text, "inline.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const auto opOf = [&](const char *key) {
        const NodeId id = g.findByKey(key);
        return id.isValid() ? g.node(id).op.str() : std::string("(no node ") + key + ")";
    };
    QCOMPARE(opOf("%0/0"), std::string("nn.relu"));
    QCOMPARE(opOf("%0/1"), std::string("multiply"));
    QCOMPARE(g.node(g.findByKey("%0/1/1")).kind, NodeKind::Constant);
    QCOMPARE(opOf("%ret"), std::string("add"));
    QCOMPARE(opOf("%ret/1"), std::string("subtract"));
    QCOMPARE(opOf("%ret/1/1"), std::string("nn.relu"));
    const FunctionId literal = g.node(g.findByKey("%2")).callee;
    QVERIFY(literal.isValid());
    QCOMPARE(g.node(g.function(literal).result).name, std::string("%1/ret"));
    QCOMPARE(g.node(g.function(literal).result).op, std::string("negative"));
}

void TestRelayImport::syntaxForms()
{
    // v0.6 header, free_var-less let chain with a tuple-valued let and a local-name projection.
    const char *text
        = "v0.0.4\n"
          "def @main(%x: Tensor[(2, 3), float32], %input_tensor:0: Tensor[(2, 3), float32]) {\n"
          "  let %t: (Tensor[(2, 3), float32], Tensor[(2, 3), float32]) = (%x, %input_tensor:0);\n"
          "  let %a = add(%t.0, %t.1) /* resnet_model/add */ /* ty=Tensor[(2, 3), float32] */;\n"
          "  %0 = nn.relu(%a);\n"
          "  %1 = (%0,);\n"
          "  %1.0\n"
          "}\n"
          "// meta data omitted. you can use show_meta_data=True to include meta data\n";
    const ImportResult r = importBytes(text, "forms.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    QCOMPARE(g.versionHeader(), std::string("0.0.4"));
    const Function &mainFn = g.function(g.mainFunction());
    QCOMPARE(g.node(mainFn.params[1]).name, std::string("%input_tensor:0"));
    const NodeId add = g.findByKey("%a");
    QVERIFY(add.isValid());
    QCOMPARE(g.node(add).op, std::string("add"));
    QCOMPARE(g.node(add).span(), std::string("resnet_model/add"));
    QCOMPARE(g.node(add).outputType().toRelay(), std::string("Tensor[(2, 3), float32]"));
    QVERIFY(g.node(add).typeAnnotated);
    // add reads the two projections of the tuple %t, which reads both parameters.
    const Node &p0 = g.node(g.node(add).inputs[0].node);
    QCOMPARE(p0.kind, NodeKind::TupleGetItem);
    QCOMPARE(p0.index, 0U);
    QCOMPARE(g.node(p0.inputs[0].node).kind, NodeKind::Tuple);
    QCOMPARE(g.node(p0.inputs[0].node).inputs[1].node, mainFn.params[1]);
    // relu was not annotated: shape inference filled it from add.
    const NodeId relu = g.findByKey("%0");
    QCOMPARE(g.node(relu).outputType().toRelay(), std::string("Tensor[(2, 3), float32]"));
    QVERIFY(!g.node(relu).typeAnnotated);
    QCOMPARE(g.node(mainFn.result).kind, NodeKind::TupleGetItem);
    QCOMPARE(g.uses(relu).size(), std::size_t(1));
}

void TestRelayImport::repeatedAttributeTexts()
{
    // The importer reads an attribute list it has seen before from its cache, keyed by the
    // text: the same text must give the same values, an argument after the attributes must
    // still be an input, and positions after a skipped list must stay right.
    const char *text = "#[version = \"0.0.5\"]\n"
                       "def @main(%x: Tensor[(1, 4), float32]) {\n"
                       "  %0 = clip(%x, a_min=0f, a_max=6f);\n"
                       "  %1 = clip(%0, a_min=0f, a_max=6f);\n"
                       "  %2 = clip(%1, a_min=0f, /* kept */ a_max=6f);\n"
                       "  %3 = my.op(%2, axis=1, %x);\n"
                       "  %4 = my.op(%3, axis=1, %x);\n"
                       "  %5 = clip(%4, a_min=0f, a_max=6f);\n"
                       "  %5\n"
                       "}\n";
    const ImportResult r = importBytes(text, "attrs.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    for (const char *key : { "%0", "%1", "%2", "%5" }) {
        const Node &clip = g.node(g.findByKey(key));
        QCOMPARE(clip.attrs.items().size(), std::size_t(2));
        QCOMPARE(clip.attrs.find("a_min")->floatValue, 0.0);
        QCOMPARE(clip.attrs.find("a_max")->floatValue, 6.0);
        QCOMPARE(clip.attrs.find("a_max")->text, std::string("6f"));
        QCOMPARE(clip.inputs.size(), std::size_t(1));
    }
    // Both calls of my.op read two inputs: the previous value and %x.
    const NodeId x = g.function(g.mainFunction()).params[0];
    for (const char *key : { "%3", "%4" }) {
        const Node &op = g.node(g.findByKey(key));
        QCOMPARE(op.inputs.size(), std::size_t(2));
        QCOMPARE(op.inputs[1].node, x);
        QCOMPARE(op.attrs.find("axis")->intValue, std::int64_t(1));
    }
    QCOMPARE(g.node(g.findByKey("%4")).inputs[0].node, g.findByKey("%3"));

    // An error after a list read from the cache is placed by the text: line 5, column 37.
    const char *bad = "def @main(%x: Tensor[(1, 4), float32]) {\n"
                      "  %0 = clip(%x, a_min=0f, a_max=6f);\n"
                      "  %1 = clip(%0, a_min=0f,\n"
                      "    a_max=6f);\n"
                      "  %2 = clip(%1, a_min=0f, a_max=6f) $;\n"
                      "  %2\n"
                      "}\n";
    const ImportResult failed = importBytes(bad, "bad.relay");
    QVERIFY(!failed.ok());
    QCOMPARE(failed.diagnostics.front().where.line, 5);
    QCOMPARE(failed.diagnostics.front().where.column, 37);
}

void TestRelayImport::typesAndAttributes()
{
    const char *text
        = "#[version=\"0.0.5\"]\n"
          "def @main(%data: Tensor[(?, 3, 224, 224), float32], %s: int64) -> Tensor[(?, 8, 224, "
          "224), float32] {\n"
          "  %0 = nn.conv2d(%data, meta[relay.Constant][0] /* ty=Tensor[(8, 3, 3, 3), float32] */, "
          "padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], out_dtype=\"\", axes=None, "
          "end=[9223372036854775807i64], scale=1e-05f, neg=-inff, big=3000000000, pad_width=[[0, "
          "0], [0, 1]], "
          "on=True, vd=VirtualDevice(device_type=1, target=Target(kind='llvm', keys={'cpu'})));\n"
          "  add(%0, 1f /* ty=float32 */)\n"
          "}\n";
    const ImportResult r = importBytes(text, "attrs.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const Node &conv = g.node(g.findByKey("%0"));
    const Attributes &a = conv.attrs;
    QCOMPARE(a.size(), std::size_t(12));
    QCOMPARE(a.items()[0].first, std::string("padding")); // source order
    QCOMPARE(*a.intList("padding"), (std::vector<std::int64_t> { 1, 1, 1, 1 }));
    QCOMPARE(a.intOr("channels", 0), 8);
    QCOMPARE(a.find("out_dtype")->kind, AttrValue::Kind::String);
    QVERIFY(a.find("axes")->isNull());
    QCOMPARE(a.find("end")->list[0].intValue, std::int64_t(9223372036854775807LL));
    QCOMPARE(a.find("end")->list[0].dtype.str(), std::string("int64"));
    QCOMPARE(a.find("scale")->floatValue, 1e-05);
    QCOMPARE(a.find("scale")->toRelay(), std::string("1e-05f"));
    QVERIFY(std::isinf(a.find("neg")->floatValue) && a.find("neg")->floatValue < 0);
    QCOMPARE(a.find("big")->dtype.str(), std::string("int64"));
    QCOMPARE(a.find("pad_width")->toRelay(), std::string("[[0, 0], [0, 1]]"));
    QCOMPARE(a.find("on")->boolValue, true);
    QCOMPARE(a.find("vd")->kind, AttrValue::Kind::Opaque);
    QCOMPARE(a.find("vd")->text,
             std::string("VirtualDevice(device_type=1, target=Target(kind='llvm', keys={'cpu'}))"));
    // conv2d had no ty comment: inferred with the dynamic batch kept.
    QCOMPARE(conv.outputType().toRelay(), std::string("Tensor[(?, 8, 224, 224), float32]"));
    const Node &weight = g.node(conv.inputs[1].node);
    QCOMPARE(weight.kind, NodeKind::Constant);
    QCOMPARE(weight.metaRef(), std::string("meta[relay.Constant][0]"));
    QCOMPARE(weight.outputType().byteSize().value(), std::int64_t(8 * 3 * 3 * 3 * 4));
    const Function &mainFn = g.function(g.mainFunction());
    QCOMPARE(g.node(mainFn.params[1]).outputType().toRelay(), std::string("int64"));
    QCOMPARE(mainFn.returnType.shape[0].isKnown(), false);
    const Node &scalar = g.node(g.node(mainFn.result).inputs[1].node);
    QCOMPARE(scalar.value().floatValue, 1.0);
    QCOMPARE(scalar.outputType().toRelay(), std::string("float32"));
}

void TestRelayImport::rareFieldsOnlyWhereUsed()
{
    // Six nodes by hand: the input %x, relu (with a span), the meta constant, add, the scalar 2f
    // and multiply. Only relu (span), the meta constant (metaRef) and 2f (scalar value) have a
    // rare field, so only those three hold a NodeDetail.
    const char *text = "#[version = \"0.0.5\"]\n"
                       "def @main(%x: Tensor[(1, 4), float32]) {\n"
                       "  %0 = nn.relu(%x) /* ty=Tensor[(1, 4), float32] span=layer/relu */;\n"
                       "  %1 = add(%0, meta[relay.Constant][0] /* ty=Tensor[(1, 4), float32] */);\n"
                       "  multiply(%1, 2f)\n"
                       "}\n";
    const ImportResult r = importBytes(text, "rare.relay");
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    QCOMPARE(g.nodeCount(), std::size_t(6));
    int withDetail = 0;
    for (const Node &n : g.nodes())
        withDetail += n.hasDetail() ? 1 : 0;
    // The span and the scalar need a detail; `meta[relay.Constant][0]` is held inline.
    QCOMPARE(withDetail, 2);
    const Node &relu = g.node(g.findByKey("%0"));
    QCOMPARE(relu.span(), std::string("layer/relu"));
    QCOMPARE(relu.where.line, 3);
    const Node &add = g.node(g.findByKey("%1"));
    QVERIFY(!add.hasDetail());
    QCOMPARE(add.where.line, 4);
    const Node &weight = g.node(add.inputs[1].node);
    QCOMPARE(weight.metaRef(), std::string("meta[relay.Constant][0]"));
    const Node &multiply = g.node(g.function(g.mainFunction()).result);
    QCOMPARE(g.node(multiply.inputs[1].node).value().toRelay(), std::string("2f"));

    // Printed and read back, the meta reference and the scalar are still there (the printer
    // writes no spans).
    const ImportResult again = importBytes(printRelay(g), "rare-again.relay");
    QVERIFY2(again.ok(), again.firstError().c_str());
    const Graph &h = *again.graph;
    QCOMPARE(h.nodeCount(), std::size_t(6));
    const Node &add2 = h.node(h.findByKey("%1"));
    QCOMPARE(h.node(add2.inputs[1].node).metaRef(), std::string("meta[relay.Constant][0]"));
    const Node &multiply2 = h.node(h.function(h.mainFunction()).result);
    QCOMPARE(h.node(multiply2.inputs[1].node).value().toRelay(), std::string("2f"));
}

void TestRelayImport::constantsFromMetadata()
{
    CLEAVE_REQUIRE_CORPUS("relay");
    const ImportResult r = importFile(
        QStringLiteral(CLEAVE_CORPUS_DIR
                       "/relay/transformer_pytorch_adt-typedefs_meta-attrs_glenside.relay.txt")
            .toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    int batchMatmuls = 0;
    for (const Node &n : r.graph->nodes()) {
        if (n.op != "nn.batch_matmul")
            continue;
        ++batchMatmuls;
        QVERIFY(n.attrsRef().rfind("meta[relay.attrs.BatchMatmulAttrs][", 0) == 0);
        QCOMPARE(n.attrs.intOr("transpose_b", -1), 1); // from the #[metadata] section
        QCOMPARE(n.inputs.size(), std::size_t(2));
    }
    QCOMPARE(batchMatmuls, 36);

    const ImportResult byoc = importFile(
        QStringLiteral(CLEAVE_CORPUS_DIR
                       "/relay/conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt")
            .toStdString());
    QVERIFY2(byoc.ok(), byoc.firstError().c_str());
    QVERIFY(!byoc.graph->metadata().empty());
    int constants = 0;
    for (const Node &n : byoc.graph->nodes()) {
        if (n.kind == NodeKind::Constant && !n.metaRef().empty()) {
            ++constants;
            QVERIFY(n.outputType().hasStaticShape());
        }
    }
    QCOMPARE(constants, 2);

    // Object fields of a whole-attrs reference point at other metadata nodes (an Array of
    // IntImm); plain digit strings stay integers.
    const char *text
        = "#[version = \"0.0.5\"]\n"
          "def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {\n"
          "  nn.conv2d(%x, %w, meta[relay.attrs.Conv2DAttrs][0])\n"
          "}\n"
          "#[metadata]\n"
          "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"},"
          " {\"type_key\": \"Map\", \"keys\": [\"relay.attrs.Conv2DAttrs\"], \"data\": [2]},"
          " {\"type_key\": \"Array\", \"data\": [3]},"
          " {\"type_key\": \"relay.attrs.Conv2DAttrs\", \"attrs\": {\"strides\": \"4\", "
          "\"groups\": \"1\","
          " \"data_layout\": \"NCHW\"}},"
          " {\"type_key\": \"Array\", \"data\": [5, 5]},"
          " {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int32\", \"value\": \"2\"}}],"
          " \"b64ndarrays\": [], \"attrs\": {\"tvm_version\": \"0.9.0\"}}\n";
    const ImportResult meta = importBytes(text, "meta.relay");
    QVERIFY2(meta.ok(), meta.firstError().c_str());
    const Node &conv = meta.graph->node(meta.graph->function(meta.graph->mainFunction()).result);
    QCOMPARE(conv.attrsRef(), std::string("meta[relay.attrs.Conv2DAttrs][0]"));
    QCOMPARE(*conv.attrs.intList("strides"), (std::vector<std::int64_t> { 2, 2 }));
    QCOMPARE(conv.attrs.intOr("groups", 0), 1);
    QCOMPARE(conv.attrs.stringOr("data_layout", ""), std::string("NCHW"));
    QCOMPARE(conv.outputType().toRelay(), std::string("Tensor[(1, 4, 3, 3), float32]"));

    // A payload TVM cannot load (not base64) is a located warning at the #[metadata] line (5).
    std::string badPayload = text;
    const std::string noPayloads = "\"b64ndarrays\": []";
    badPayload.replace(badPayload.find(noPayloads), noPayloads.size(),
                       "\"b64ndarrays\": [\"P6G0-\"]");
    const ImportResult bad = importBytes(badPayload, "meta.relay");
    QVERIFY2(bad.ok(), bad.firstError().c_str());
    const auto warning
        = std::find_if(bad.diagnostics.begin(), bad.diagnostics.end(),
                       [](const Diagnostic &d) { return d.code == "relay.metadata"; });
    QVERIFY(warning != bad.diagnostics.end());
    QCOMPARE(warning->severity, Severity::Warning);
    QCOMPARE(QString::fromStdString(warning->message),
             QString::fromUtf8(
                 "tensor payload 0 of the #[metadata] section: the payload is not "
                 "base64; TVM refuses or misreads this module's constants, and an export's "
                 "that keeps them"));
    QCOMPARE(warning->where.line, 5);
}

void TestRelayImport::functionsAndBlocks()
{
    const ImportResult r = importFile(
        QStringLiteral(CLEAVE_SAMPLES_DIR "/byoc_dnnl_partitioned.relay").toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const Graph &g = *r.graph;
    const FunctionId byoc = g.findFunction("tvmgen_default_dnnl_main_0");
    QVERIFY(byoc.isValid());
    QCOMPARE(g.function(byoc).compiler(), std::string("dnnl"));
    QVERIFY(g.function(byoc).isPrimitive());
    QCOMPARE(g.node(g.function(byoc).params[0]).name, std::string("%dnnl_0_i0"));
    int composites = 0;
    for (const Function &f : g.functions()) {
        if (!f.composite().empty()) {
            ++composites;
            QCOMPARE(f.kind, Function::Kind::Literal);
            QVERIFY(g.topLevelFunction(f.parent).isValid());
        }
    }
    QVERIFY(composites >= 3);
    // @main calls both external functions; node keys outside main are qualified.
    int externalCalls = 0;
    for (NodeId n : g.function(g.mainFunction()).nodes) {
        const Node &node = g.node(n);
        if (node.kind == NodeKind::FunctionCall && !g.function(node.callee).compiler().empty())
            ++externalCalls;
    }
    QCOMPARE(externalCalls, 2);
    const NodeId inner = g.function(byoc).params[0];
    QCOMPARE(g.key(inner), std::string("@tvmgen_default_dnnl_main_0:%dnnl_0_i0"));

    // Prelude: generics, match, if, closures and constructors (a corpus model).
    CLEAVE_REQUIRE_CORPUS("relay");
    const ImportResult tf = importFile(
        QStringLiteral(
            CLEAVE_CORPUS_DIR
            "/relay/resnet50_tensorflow_simplifyinference_with-prelude-adt_3la.relay.txt")
            .toStdString());
    QVERIFY2(tf.ok(), tf.firstError().c_str());
    QCOMPARE(int(tf.graph->typeDefinitions().size()), 12);
    const FunctionId foldl = tf.graph->findFunction("foldl");
    QCOMPARE(tf.graph->function(foldl).typeParams, (std::vector<std::string> { "A", "B" }));
    const Node &match = tf.graph->node(tf.graph->function(foldl).result);
    QCOMPARE(match.kind, NodeKind::Match);
    QCOMPARE(match.patterns().size(), std::size_t(2));
    QCOMPARE(match.patterns()[0].name, std::string("Cons"));
    QCOMPARE(match.patterns()[1].name, std::string("Nil"));
    const Function &mainTf = tf.graph->function(tf.graph->mainFunction());
    QCOMPARE(tf.graph->node(mainTf.params[0]).outputType().toRelay(),
             std::string("Tensor[(?, 224, 224, 3), float32]"));
}

QTEST_APPLESS_MAIN(TestRelayImport)
#include "tst_relayimport.moc"
