// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "CliRunner.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QtTest>

using namespace cleave;
using namespace cleave::test;

namespace {

/// graph_split's unit-test shape: %0 relu(data) %1 add(%0, c0) %2 relu %3 add(%2, c1)
/// %4 add(%3, %0): cut after add:0 and relu:1, the skip from %0 runs from the first
/// partition straight into the third.
const char *const skipModel
    = "#[version = \"0.0.5\"]\n"
      "def @main(%data: Tensor[(1, 16), float32]) -> Tensor[(1, 16), float32] {\n"
      "  %0 = nn.relu(%data) /* ty=Tensor[(1, 16), float32] */;\n"
      "  %1 = add(%0, meta[relay.Constant][0] /* ty=Tensor[(1, 16), float32] */) /* ty=Tensor[(1, "
      "16), float32] */;\n"
      "  %2 = nn.relu(%1) /* ty=Tensor[(1, 16), float32] */;\n"
      "  %3 = add(%2, meta[relay.Constant][1] /* ty=Tensor[(1, 16), float32] */) /* ty=Tensor[(1, "
      "16), float32] */;\n"
      "  add(%3, %0) /* ty=Tensor[(1, 16), float32] */\n"
      "}\n";

QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// Exports the skip model cut in three with the given targets; returns the folder.
QString exportSkip(const QTemporaryDir &tmp, const QString &targets)
{
    const QString model = tmp.path() + QStringLiteral("/skip.relay");
    QFile f(model);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(model));
    f.write(skipModel);
    f.close();
    const QString dir = tmp.path() + QStringLiteral("/out");
    const CliRun run = runCli({ QStringLiteral("partition"), model, QStringLiteral("--cut-after"),
                                QStringLiteral("add:0"), QStringLiteral("--cut-after"),
                                QStringLiteral("nn.relu:1"), QStringLiteral("--targets"), targets,
                                QStringLiteral("--out"), dir });
    if (run.exitCode != 0)
        qFatal("export failed: %s", run.err.constData());
    return dir;
}

} // namespace

class TestByoc : public QObject
{
    Q_OBJECT

private slots:
    void consecutiveSameTargetRegions();
    void alternatingTargetsKeepDirectEdge();
    void noByocFilesForDeviceTargets();
};

void TestByoc::consecutiveSameTargetRegions()
{
    QTemporaryDir tmp;
    const QString dir = exportSkip(tmp, QStringLiteral("dnnl,dnnl,llvm"));
    // Two regions of one compiler stay two external functions, each called once.
    QCOMPARE(readAll(dir + QStringLiteral("/byoc.relay")),
             QStringLiteral(
                 "#[version = \"0.0.5\"]\n"
                 "def @main(%data: Tensor[(1, 16), float32]) -> Tensor[(1, 16), float32] {\n"
                 "  %0 = @tvmgen_default_dnnl_main_0(%data) /* ty=(Tensor[(1, 16), float32], "
                 "Tensor[(1, 16), float32]) */;\n"
                 "  %1 = %0.0 /* ty=Tensor[(1, 16), float32] */;\n"
                 "  %2 = %0.1 /* ty=Tensor[(1, 16), float32] */;\n"
                 "  %3 = @tvmgen_default_dnnl_main_1(%1) /* ty=Tensor[(1, 16), float32] */;\n"
                 "  %4 = add(%3, meta[relay.Constant][1] /* ty=Tensor[(1, 16), float32] */) /* "
                 "ty=Tensor[(1, 16), float32] */;\n"
                 "  add(%4, %2) /* ty=Tensor[(1, 16), float32] */\n"
                 "}\n"
                 "\n"
                 "def @tvmgen_default_dnnl_main_0(%dnnl_0_i0: Tensor[(1, 16), float32], "
                 "Compiler=\"dnnl\", Primitive=1, Inline=1, "
                 "global_symbol=\"tvmgen_default_dnnl_main_0\") -> (Tensor[(1, 16), float32], "
                 "Tensor[(1, 16), float32]) {\n"
                 "  %5 = nn.relu(%dnnl_0_i0) /* ty=Tensor[(1, 16), float32] */;\n"
                 "  %6 = add(%5, meta[relay.Constant][0] /* ty=Tensor[(1, 16), float32] */) /* "
                 "ty=Tensor[(1, 16), float32] */;\n"
                 "  (%6, %5) /* ty=(Tensor[(1, 16), float32], Tensor[(1, 16), float32]) */\n"
                 "}\n"
                 "\n"
                 "def @tvmgen_default_dnnl_main_1(%dnnl_1_i0: Tensor[(1, 16), float32], "
                 "Compiler=\"dnnl\", Primitive=1, Inline=1, "
                 "global_symbol=\"tvmgen_default_dnnl_main_1\") -> Tensor[(1, 16), float32] {\n"
                 "  nn.relu(%dnnl_1_i0) /* ty=Tensor[(1, 16), float32] */\n"
                 "}\n"));
    // The value leaving the first region is closed (compiler_end) and reopened
    // (compiler_begin) before the second: no region nests inside the other.
    QCOMPARE(
        readAll(dir + QStringLiteral("/byoc_annotated.relay")),
        QStringLiteral("#[version = \"0.0.5\"]\n"
                       "def @main(%data: Tensor[(1, 16), float32]) -> Tensor[(1, 16), float32] {\n"
                       "  %0 = annotation.compiler_begin(%data, compiler=\"dnnl\") /* "
                       "ty=Tensor[(1, 16), float32] */;\n"
                       "  %1 = nn.relu(%0) /* ty=Tensor[(1, 16), float32] */;\n"
                       "  %2 = add(%1, meta[relay.Constant][0] /* ty=Tensor[(1, 16), float32] */) "
                       "/* ty=Tensor[(1, 16), float32] */;\n"
                       "  %3 = annotation.compiler_end(%2, compiler=\"dnnl\") /* ty=Tensor[(1, "
                       "16), float32] */;\n"
                       "  %4 = annotation.compiler_end(%1, compiler=\"dnnl\") /* ty=Tensor[(1, "
                       "16), float32] */;\n"
                       "  %5 = annotation.compiler_begin(%3, compiler=\"dnnl\") /* ty=Tensor[(1, "
                       "16), float32] */;\n"
                       "  %6 = nn.relu(%5) /* ty=Tensor[(1, 16), float32] */;\n"
                       "  %7 = annotation.compiler_end(%6, compiler=\"dnnl\") /* ty=Tensor[(1, "
                       "16), float32] */;\n"
                       "  %8 = add(%7, meta[relay.Constant][1] /* ty=Tensor[(1, 16), float32] */) "
                       "/* ty=Tensor[(1, 16), float32] */;\n"
                       "  add(%8, %4) /* ty=Tensor[(1, 16), float32] */\n"
                       "}\n"));
    QCOMPARE(runCli({ QStringLiteral("verify"), dir }).exitCode, 0);
}

void TestByoc::alternatingTargetsKeepDirectEdge()
{
    QTemporaryDir tmp;
    const QString dir = exportSkip(tmp, QStringLiteral("dnnl,llvm,dnnl"));
    // A -> B -> A with the direct A -> A skip: the two dnnl regions are not merged (that would
    // make a cycle through the llvm partition); the skip travels as the second output of
    // @tvmgen_default_dnnl_main_0 into the second region.
    const QString byoc = readAll(dir + QStringLiteral("/byoc.relay"));
    QCOMPARE(byoc,
             QStringLiteral(
                 "#[version = \"0.0.5\"]\n"
                 "def @main(%data: Tensor[(1, 16), float32]) -> Tensor[(1, 16), float32] {\n"
                 "  %0 = @tvmgen_default_dnnl_main_0(%data) /* ty=(Tensor[(1, 16), float32], "
                 "Tensor[(1, 16), float32]) */;\n"
                 "  %1 = %0.0 /* ty=Tensor[(1, 16), float32] */;\n"
                 "  %2 = %0.1 /* ty=Tensor[(1, 16), float32] */;\n"
                 "  %3 = nn.relu(%1) /* ty=Tensor[(1, 16), float32] */;\n"
                 "  @tvmgen_default_dnnl_main_1(%3, %2) /* ty=Tensor[(1, 16), float32] */\n"
                 "}\n"
                 "\n"
                 "def @tvmgen_default_dnnl_main_0(%dnnl_0_i0: Tensor[(1, 16), float32], "
                 "Compiler=\"dnnl\", Primitive=1, Inline=1, "
                 "global_symbol=\"tvmgen_default_dnnl_main_0\") -> (Tensor[(1, 16), float32], "
                 "Tensor[(1, 16), float32]) {\n"
                 "  %4 = nn.relu(%dnnl_0_i0) /* ty=Tensor[(1, 16), float32] */;\n"
                 "  %5 = add(%4, meta[relay.Constant][0] /* ty=Tensor[(1, 16), float32] */) /* "
                 "ty=Tensor[(1, 16), float32] */;\n"
                 "  (%5, %4) /* ty=(Tensor[(1, 16), float32], Tensor[(1, 16), float32]) */\n"
                 "}\n"
                 "\n"
                 "def @tvmgen_default_dnnl_main_1(%dnnl_1_i0: Tensor[(1, 16), float32], "
                 "%dnnl_1_i1: Tensor[(1, 16), float32], Compiler=\"dnnl\", Primitive=1, Inline=1, "
                 "global_symbol=\"tvmgen_default_dnnl_main_1\") -> Tensor[(1, 16), float32] {\n"
                 "  %6 = add(%dnnl_1_i0, meta[relay.Constant][1] /* ty=Tensor[(1, 16), float32] "
                 "*/) /* ty=Tensor[(1, 16), float32] */;\n"
                 "  add(%6, %dnnl_1_i1) /* ty=Tensor[(1, 16), float32] */\n"
                 "}\n"));
    QCOMPARE(
        readAll(dir + QStringLiteral("/byoc_annotated.relay")),
        QStringLiteral(
            "#[version = \"0.0.5\"]\n"
            "def @main(%data: Tensor[(1, 16), float32]) -> Tensor[(1, 16), float32] {\n"
            "  %0 = annotation.compiler_begin(%data, compiler=\"dnnl\") /* ty=Tensor[(1, 16), "
            "float32] */;\n"
            "  %1 = nn.relu(%0) /* ty=Tensor[(1, 16), float32] */;\n"
            "  %2 = add(%1, meta[relay.Constant][0] /* ty=Tensor[(1, 16), float32] */) /* "
            "ty=Tensor[(1, 16), float32] */;\n"
            "  %3 = annotation.compiler_end(%2, compiler=\"dnnl\") /* ty=Tensor[(1, 16), float32] "
            "*/;\n"
            "  %4 = annotation.compiler_end(%1, compiler=\"dnnl\") /* ty=Tensor[(1, 16), float32] "
            "*/;\n"
            "  %5 = nn.relu(%3) /* ty=Tensor[(1, 16), float32] */;\n"
            "  %6 = annotation.compiler_begin(%5, compiler=\"dnnl\") /* ty=Tensor[(1, 16), "
            "float32] */;\n"
            "  %7 = annotation.compiler_begin(%4, compiler=\"dnnl\") /* ty=Tensor[(1, 16), "
            "float32] */;\n"
            "  %8 = add(%6, meta[relay.Constant][1] /* ty=Tensor[(1, 16), float32] */) /* "
            "ty=Tensor[(1, 16), float32] */;\n"
            "  %9 = add(%8, %7) /* ty=Tensor[(1, 16), float32] */;\n"
            "  annotation.compiler_end(%9, compiler=\"dnnl\") /* ty=Tensor[(1, 16), float32] */\n"
            "}\n"));
    // Both files read back with our importer, with the PartitionGraph attributes.
    ImportResult r = importFile((dir + QStringLiteral("/byoc.relay")).toStdString());
    QVERIFY2(r.ok(), r.firstError().c_str());
    const FunctionId f = r.graph->findFunction("tvmgen_default_dnnl_main_1");
    QVERIFY(f.isValid());
    QCOMPARE(r.graph->function(f).compiler(), std::string("dnnl"));
    QVERIFY(r.graph->function(f).isPrimitive());
    QCOMPARE(r.graph->function(f).params.size(), std::size_t(2));
    QCOMPARE(r.graph->node(r.graph->function(f).params[1]).name, std::string("%dnnl_1_i1"));
    ImportResult a = importFile((dir + QStringLiteral("/byoc_annotated.relay")).toStdString());
    QVERIFY2(a.ok(), a.firstError().c_str());
    QCOMPARE(runCli({ QStringLiteral("verify"), dir }).exitCode, 0);
}

void TestByoc::noByocFilesForDeviceTargets()
{
    QTemporaryDir tmp;
    const QString dir = exportSkip(tmp, QStringLiteral("llvm,cuda,llvm"));
    QVERIFY(!QFile::exists(dir + QStringLiteral("/byoc.relay")));
    QVERIFY(!QFile::exists(dir + QStringLiteral("/byoc_annotated.relay")));
    QVERIFY(readAll(dir + QStringLiteral("/pipeline_config.json"))
                .contains(QStringLiteral("\"dev\": \"2,0\"")));
}

QTEST_GUILESS_MAIN(TestByoc)
#include "tst_byoc.moc"
