// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Per-partition ONNX export: every mod<k>.onnx of several cuts of samples/resnet_inception.onnx
// is checked by onnx.checker and compared with onnx.utils.extract_model (tests/core/
// onnx_oracle.py, run by Debian's /usr/bin/python3 with python3-onnx); `cleave-cli verify`
// accepts the exports and rejects altered ones.
#include "CliRunner.h"
#include "core/export/ModuleExporter.h"
#include "core/export/onnx/OnnxVerify.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>

using namespace cleave;
using cleave::test::runCli;

namespace {

const QString kPython = QStringLiteral("/usr/bin/python3");

QString sample()
{
    return QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet_inception.onnx");
}

QString oracle()
{
    return QStringLiteral(CLEAVE_SOURCE_DIR "/tests/core/onnx_oracle.py");
}

/// Runs the oracle helper; returns its exit code and stdout.
std::pair<int, QByteArray> runOracle(const QStringList &args)
{
    QProcess p;
    p.start(kPython, QStringList { oracle() } + args);
    if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit)
        return { -1, p.readAllStandardError() };
    const QByteArray err = p.readAllStandardError();
    if (p.exitCode() != 0)
        return { p.exitCode(), err };
    return { 0, p.readAllStandardOutput() };
}

QStringList toList(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &x : v.toArray())
        out << x.toString();
    return out;
}

/// One expected module: node count, initializer count, graph inputs, graph outputs.
struct Expected
{
    int nodes;
    int initializers;
    QStringList inputs;
    QStringList outputs;
};

} // namespace

Q_DECLARE_METATYPE(QList<Expected>)

class TestOnnxExport : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(kPython), "Debian's /usr/bin/python3 with python3-onnx is needed");
        const auto [code, out] = runOracle({});
        QCOMPARE(code, 2); // usage: the helper and its imports (onnx, numpy) load
    }

    // Issue 32 (M6): an export reads the source model with its weights once, and nothing of it
    // is held after the export: the writer's handle is the only owner left (a cache that owned
    // the models kept 330 MB of ViT-B/16 weights after every export; bench_editor_memory).
    void exportLeavesNoSourceHeld()
    {
        const ImportResult in = importFile(sample().toStdString());
        QVERIFY(in.graph);
        PartitionPlan plan(*in.graph);
        QVERIFY(plan.cutAfterOp("Add", 0).diagnostics.empty());
        QTemporaryDir tmp;
        ExportOptions options;
        options.moduleFormat = "onnx";
        const ExportResult out = exportPartitions(plan, computeBoundary(plan), options,
                                                  tmp.filePath(QStringLiteral("e")).toStdString());
        QVERIFY(out.ok);
        const ModuleExporter *writer = moduleExporterFor("onnx");
        QVERIFY(writer);
        std::shared_ptr<const void> held = writer->holdSource(*in.graph);
        QVERIFY(held);
        const std::weak_ptr<const void> watch = held;
        QCOMPARE(watch.use_count(), 1L);
        held.reset();
        QVERIFY(watch.expired());
    }

    void matchesExtractModel_data()
    {
        QTest::addColumn<QStringList>("cuts");
        QTest::addColumn<QList<Expected>>("modules");
        const QString in = QStringLiteral("input");
        const QString out = QStringLiteral("output");
        QTest::newRow("Add:0") << QStringList { QStringLiteral("Add:0") }
                               << QList<Expected> {
                                      { 9, 18, { in }, { QStringLiteral("layer1.add") } },
                                      { 31, 34, { QStringLiteral("layer1.add") }, { out } }
                                  };
        // Relu:3 = layer2.relu1: layer1.relu2 (the shortcut of block 2) crosses too.
        QTest::newRow("Relu:3") << QStringList { QStringLiteral("Relu:3") }
                                << QList<Expected> { { 13,
                                                       24,
                                                       { in },
                                                       { QStringLiteral("layer2.relu1"),
                                                         QStringLiteral("layer1.relu2") } },
                                                     { 27,
                                                       28,
                                                       { QStringLiteral("layer2.relu1"),
                                                         QStringLiteral("layer1.relu2") },
                                                       { out } } };
        QTest::newRow("Add:1+Concat:0")
            << QStringList { QStringLiteral("Add:1"), QStringLiteral("Concat:0") }
            << QList<Expected> {
                   { 18, 36, { in }, { QStringLiteral("layer2.add") } },
                   { 18, 14, { QStringLiteral("layer2.add") }, { QStringLiteral("inc.concat") } },
                   { 4, 2, { QStringLiteral("inc.concat") }, { out } }
               };
        // Relu:6 = inc.b2.relu1: the cut runs across the inception branches.
        const QStringList branches { QStringLiteral("inc.b2.relu1"), QStringLiteral("pool"),
                                     QStringLiteral("inc.b1.relu") };
        QTest::newRow("inception branches")
            << QStringList { QStringLiteral("Relu:6") }
            << QList<Expected> { { 24, 40, { in }, branches }, { 16, 12, branches, { out } } };
        // mod2 reads `pool` straight from mod0, past mod1.
        QTest::newRow("four stages")
            << QStringList { QStringLiteral("MaxPool:0"), QStringLiteral("Relu:7"),
                             QStringLiteral("Gemm:0") }
            << QList<Expected> { { 20, 36, { in }, { QStringLiteral("pool") } },
                                 { 6,
                                   6,
                                   { QStringLiteral("pool") },
                                   { QStringLiteral("inc.b1.relu"),
                                     QStringLiteral("inc.b2.relu2") } },
                                 { 13,
                                   10,
                                   { QStringLiteral("pool"), QStringLiteral("inc.b1.relu"),
                                     QStringLiteral("inc.b2.relu2") },
                                   { QStringLiteral("fc") } },
                                 { 1, 0, { QStringLiteral("fc") }, { out } } };
    }

    void matchesExtractModel()
    {
        QFETCH(QStringList, cuts);
        QFETCH(QList<Expected>, modules);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("export"));
        QStringList args { QStringLiteral("partition"), sample() };
        for (const QString &c : cuts)
            args << QStringLiteral("--cut-after") << c;
        args << QStringLiteral("--out") << dir;
        const auto run = runCli(args);
        QVERIFY2(run.exitCode == 0, run.err.constData());

        QStringList files
            = QDir(dir).entryList({ QStringLiteral("mod*") }, QDir::Files, QDir::Name);
        QStringList expectedFiles;
        for (int k = 0; k < modules.size(); ++k)
            expectedFiles << QStringLiteral("mod%1.onnx").arg(k);
        QCOMPARE(files, expectedFiles);

        QFile manifestFile(dir + QStringLiteral("/partitions.json"));
        QVERIFY(manifestFile.open(QIODevice::ReadOnly));
        const QJsonObject manifest = QJsonDocument::fromJson(manifestFile.readAll()).object();
        QCOMPARE(manifest.value(QStringLiteral("module_format")).toString(),
                 QStringLiteral("onnx"));

        for (int k = 0; k < modules.size(); ++k) {
            const QString file = dir + QStringLiteral("/mod%1.onnx").arg(k);
            const auto [code, out] = runOracle({ QStringLiteral("compare"), sample(), file });
            QVERIFY2(code == 0, out.constData());
            const QJsonObject v = QJsonDocument::fromJson(out).object();
            QVERIFY2(v.value(QStringLiteral("ok")).toBool(), out.constData());
            QCOMPARE(v.value(QStringLiteral("checker")).toString(), QStringLiteral("ok"));
            QVERIFY(v.value(QStringLiteral("same_nodes")).toBool());
            QVERIFY(v.value(QStringLiteral("same_edges")).toBool());
            QVERIFY(v.value(QStringLiteral("same_initializers")).toBool());
            QVERIFY(v.value(QStringLiteral("same_opsets")).toBool());
            QVERIFY(v.value(QStringLiteral("same_ir_version")).toBool());
            QCOMPARE(v.value(QStringLiteral("nodes")).toInt(), modules[k].nodes);
            QCOMPARE(v.value(QStringLiteral("extract_model_nodes")).toInt(), modules[k].nodes);
            QCOMPARE(v.value(QStringLiteral("initializers")).toInt(), modules[k].initializers);
            QCOMPARE(toList(v.value(QStringLiteral("inputs"))), modules[k].inputs);
            QCOMPARE(toList(v.value(QStringLiteral("outputs"))), modules[k].outputs);
        }
        const auto verify = runCli({ QStringLiteral("verify"), dir });
        QVERIFY2(verify.exitCode == 0, verify.out.constData());
        QVERIFY(verify.out.contains("export recomposes the source model"));
    }

    void modulesReimport()
    {
        // readModule: a module imports with Cleave's importer, with its own op counts.
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("export"));
        QCOMPARE(runCli({ QStringLiteral("partition"), sample(), QStringLiteral("--cut-after"),
                          QStringLiteral("Add:0"), QStringLiteral("--out"), dir })
                     .exitCode,
                 0);
        const ModuleExporter *onnx = moduleExporterFor("onnx");
        QVERIFY(onnx);
        QCOMPARE(onnx->extension(), std::string("onnx"));
        std::vector<Diagnostic> diags;
        const auto g = onnx->readModule((dir + QStringLiteral("/mod0.onnx")).toStdString(), diags);
        QVERIFY(g);
        std::map<std::string, int> ops;
        for (const Node &n : g->nodes()) {
            if (n.kind == NodeKind::OpCall)
                ++ops[n.op];
        }
        const std::map<std::string, int> expected {
            { "Add", 1 }, { "BatchNormalization", 3 }, { "Conv", 3 }, { "Relu", 2 }
        };
        QCOMPARE(ops, expected);
        QCOMPARE(g->node(g->findByKey("layer1.add")).outputType().toRelay(),
                 std::string("Tensor[(1, 16, 32, 32), float32]"));
    }

    void constantNodesAndExternalData()
    {
        // A `Constant` node read on both sides of the cut goes into both modules; external
        // data (initializers and the Constant's value) is inlined, so modules stand alone.
        QTemporaryDir tmp;
        const QString script = QStringLiteral(R"(
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
from onnx.external_data_helper import convert_model_to_external_data
c = helper.make_node("Constant", [], ["c"], name="c",
                     value=numpy_helper.from_array(np.full((1, 4), 0.5, np.float32)))
w = numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(4, 4), "w")
nodes = [c, helper.make_node("Add", ["x", "c"], ["a"], name="add"),
         helper.make_node("Relu", ["a"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w"], ["m"], name="matmul"),
         helper.make_node("Mul", ["m", "c"], ["y"], name="mul")]
g = helper.make_graph(nodes, "consts", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [w])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 7
convert_model_to_external_data(m, all_tensors_to_one_file=True, location="consts.bin",
                               size_threshold=0, convert_attribute=True)
onnx.save_model(m, sys.argv[1])
)");
        const QString model = tmp.filePath(QStringLiteral("model/consts.onnx"));
        QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("model"))));
        QProcess py;
        py.start(kPython, { QStringLiteral("-c"), script, model });
        QVERIFY(py.waitForFinished(60000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        QCOMPARE(QFileInfo(tmp.filePath(QStringLiteral("model/consts.bin"))).size(), 80);
        const QString dir = tmp.filePath(QStringLiteral("export"));
        const auto run = runCli({ QStringLiteral("partition"), model, QStringLiteral("--cut-after"),
                                  QStringLiteral("Relu:0"), QStringLiteral("--out"), dir });
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QList<Expected> modules {
            { 3, 0, { QStringLiteral("x") }, { QStringLiteral("r") } },
            { 3, 1, { QStringLiteral("r") }, { QStringLiteral("y") } }
        };
        for (int k = 0; k < modules.size(); ++k) {
            const auto [code, out] = runOracle(
                { QStringLiteral("compare"), model, dir + QStringLiteral("/mod%1.onnx").arg(k) });
            QVERIFY2(code == 0, out.constData());
            const QJsonObject v = QJsonDocument::fromJson(out).object();
            QVERIFY2(v.value(QStringLiteral("ok")).toBool(), out.constData());
            QCOMPARE(v.value(QStringLiteral("nodes")).toInt(), modules[k].nodes);
            QCOMPARE(v.value(QStringLiteral("initializers")).toInt(), modules[k].initializers);
            QCOMPARE(toList(v.value(QStringLiteral("inputs"))), modules[k].inputs);
            QCOMPARE(toList(v.value(QStringLiteral("outputs"))), modules[k].outputs);
        }
        QVERIFY(!QFile::exists(dir + QStringLiteral("/consts.bin")));
        const auto verify = runCli({ QStringLiteral("verify"), dir });
        QVERIFY2(verify.exitCode == 0, verify.out.constData());
    }

    void irVersion3ListsInitializersAsInputs()
    {
        // Before IR version 4 initializers are graph inputs too; the modules keep that rule.
        QTemporaryDir tmp;
        const QString script = QStringLiteral(R"(
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
w = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
b = numpy_helper.from_array(np.ones((1, 4), np.float32), "b")
nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
         helper.make_node("Relu", ["m"], ["r"], name="relu"),
         helper.make_node("Add", ["r", "b"], ["y"], name="add")]
vi = helper.make_tensor_value_info
g = helper.make_graph(nodes, "ir3", [vi("x", TensorProto.FLOAT, [1, 4]), vi("w", TensorProto.FLOAT, [4, 4]),
                                     vi("b", TensorProto.FLOAT, [1, 4])],
                      [vi("y", TensorProto.FLOAT, [1, 4])], [w, b])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 8)])
m.ir_version = 3
onnx.save(m, sys.argv[1])
)");
        const QString model = tmp.filePath(QStringLiteral("ir3.onnx"));
        QProcess py;
        py.start(kPython, { QStringLiteral("-c"), script, model });
        QVERIFY(py.waitForFinished(60000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        const QString dir = tmp.filePath(QStringLiteral("export"));
        const auto run = runCli({ QStringLiteral("partition"), model, QStringLiteral("--cut-after"),
                                  QStringLiteral("Relu:0"), QStringLiteral("--out"), dir });
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QList<QStringList> inputs { { QStringLiteral("x"), QStringLiteral("w") },
                                          { QStringLiteral("r"), QStringLiteral("b") } };
        for (int k = 0; k < 2; ++k) {
            const auto [code, out] = runOracle(
                { QStringLiteral("compare"), model, dir + QStringLiteral("/mod%1.onnx").arg(k) });
            QVERIFY2(code == 0, out.constData());
            const QJsonObject v = QJsonDocument::fromJson(out).object();
            QVERIFY2(v.value(QStringLiteral("ok")).toBool(), out.constData());
            QCOMPARE(toList(v.value(QStringLiteral("inputs"))), inputs[k]);
            QCOMPARE(v.value(QStringLiteral("initializers")).toInt(), 1);
        }
        QCOMPARE(runCli({ QStringLiteral("verify"), dir }).exitCode, 0);
    }

    void verifyRejectsAlteredModules_data()
    {
        QTest::addColumn<QStringList>("alter");
        QTest::addColumn<QString>("message");
        QTest::newRow("node deleted")
            << QStringList { QStringLiteral("delete-node"), QStringLiteral("mod1.onnx"),
                             QStringLiteral("inc.b3.relu2") }
            << QStringLiteral(
                   "mod1.onnx: Conv node 'inc.b3.conv3' reads 'inc.b3.relu2', which is neither "
                   "a module input, an initializer nor produced before it");
        QTest::newRow("attribute rewritten")
            << QStringList { QStringLiteral("set-attr"), QStringLiteral("mod1.onnx"),
                             QStringLiteral("inc.b1.conv"), QStringLiteral("strides"),
                             QStringLiteral("2,2") }
            << QStringLiteral("mod1.onnx: Conv node 'inc.b1.conv' has another value of attribute "
                              "'strides' than the source");
        QTest::newRow("last node deleted")
            << QStringList { QStringLiteral("delete-node"), QStringLiteral("mod2.onnx"),
                             QStringLiteral("softmax") }
            << QStringLiteral("mod2.onnx: output 'output' is not produced in the module");
    }

    void verifyRejectsAlteredModules()
    {
        QFETCH(QStringList, alter);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("export"));
        QCOMPARE(runCli({ QStringLiteral("partition"), sample(), QStringLiteral("--cut-after"),
                          QStringLiteral("Add:1"), QStringLiteral("--cut-after"),
                          QStringLiteral("Concat:0"), QStringLiteral("--out"), dir })
                     .exitCode,
                 0);
        QCOMPARE(runCli({ QStringLiteral("verify"), dir }).exitCode, 0);
        alter[1] = dir + QStringLiteral("/") + alter[1];
        QCOMPARE(runOracle(alter).first, 0);
        const auto run = runCli({ QStringLiteral("verify"), dir });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains(message.toUtf8()), run.out.constData());
        // The library check says the same.
        const VerifyResult r = verifyOnnxExport(dir.toStdString());
        QVERIFY(!r.ok);
        QVERIFY(!r.badInput);
        QVERIFY2(QString::fromStdString(r.firstDifference).endsWith(message),
                 r.firstDifference.c_str());
    }

    void verifyRejectsChangedSourceAndInitializer()
    {
        QTemporaryDir tmp;
        const QString model = tmp.filePath(QStringLiteral("model.onnx"));
        QVERIFY(QFile::copy(sample(), model));
        const QString dir = tmp.filePath(QStringLiteral("export"));
        QCOMPARE(runCli({ QStringLiteral("partition"), model, QStringLiteral("--cut-after"),
                          QStringLiteral("Add:0"), QStringLiteral("--out"), dir })
                     .exitCode,
                 0);
        // An initializer value changed in a module (in a copy of the export).
        const QString altered = tmp.filePath(QStringLiteral("altered"));
        QVERIFY(QDir().mkpath(altered));
        for (const QString &f : QDir(dir).entryList(QDir::Files))
            QVERIFY(QFile::copy(dir + QStringLiteral("/") + f, altered + QStringLiteral("/") + f));
        QProcess py;
        py.start(kPython,
                 { QStringLiteral("-c"),
                   QStringLiteral(
                       "import onnx,sys\nfrom onnx import numpy_helper as h\n"
                       "m=onnx.load(sys.argv[1])\nt=[t for t in m.graph.initializer if "
                       "t.name=='fc.weight'][0]\n"
                       "a=h.to_array(t).copy(); a.flat[3]+=1\nt.CopyFrom(h.from_array(a,t.name))\n"
                       "onnx.save(m,sys.argv[1])"),
                   altered + QStringLiteral("/mod1.onnx") });
        QVERIFY(py.waitForFinished(60000));
        QCOMPARE(py.exitCode(), 0);
        const auto run = runCli({ QStringLiteral("verify"), altered });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains("mod1.onnx: initializer 'fc.weight' has other dims, type or "
                                  "values than in the source"),
                 run.out.constData());
        // The source changed after the export.
        QFile src(model);
        QVERIFY(src.open(QIODevice::Append));
        src.write("\x00", 1);
        src.close();
        const auto changed = runCli({ QStringLiteral("verify"), dir });
        QCOMPARE(changed.exitCode, 1);
        QVERIFY2(changed.out.contains("has changed since it was imported"),
                 changed.out.constData());
        // Bad input: no manifest.
        QVERIFY(QFile::remove(dir + QStringLiteral("/partitions.json")));
        const VerifyResult r = verifyOnnxExport(dir.toStdString());
        QVERIFY(r.badInput);
        QVERIFY(QString::fromStdString(r.firstDifference)
                    .endsWith(QStringLiteral("partitions.json: cannot read the file")));
    }
};

QTEST_GUILESS_MAIN(TestOnnxExport)
#include "tst_onnx_export.moc"
