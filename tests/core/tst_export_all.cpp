// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Every sample and corpus model (Relay, graph.json, ONNX) exports a runnable artefact set with
// a cut, and the export recomposes the source.
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/validation/Validation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>

using namespace cleave;

namespace {

void addFolder(QStringList &files, const QString &dir, const QStringList &patterns)
{
    for (const QString &f : QDir(dir).entryList(patterns, QDir::Files, QDir::Name))
        files << dir + QLatin1Char('/') + f;
}

} // namespace

class TestExportAll : public QObject
{
    Q_OBJECT

private slots:
    void everyModelExports_data();
    void everyModelExports();
};

void TestExportAll::everyModelExports_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("moduleExtension");
    QTest::addColumn<QString>("script");
    QStringList relay, onnx, graphs;
    const QString samples = QStringLiteral(CLEAVE_SAMPLES_DIR);
    const QString corpus = QStringLiteral(CLEAVE_CORPUS_DIR);
    addFolder(relay, samples, { QStringLiteral("*.relay") });
    addFolder(relay, corpus + QStringLiteral("/relay"), { QStringLiteral("*.relay.txt") });
    addFolder(onnx, samples, { QStringLiteral("*.onnx") });
    addFolder(graphs, samples, { QStringLiteral("*.graph.json") });
    addFolder(graphs, corpus + QStringLiteral("/graph_json"), { QStringLiteral("*.json") });
    if (relay.isEmpty() || onnx.isEmpty())
        QSKIP("samples not available");
    for (const QString &m : relay)
        QTest::newRow(qPrintable(QFileInfo(m).fileName()))
            << m << QStringLiteral("relay") << QStringLiteral("build_pipeline.py");
    for (const QString &m : onnx)
        QTest::newRow(qPrintable(QFileInfo(m).fileName()))
            << m << QStringLiteral("onnx") << QStringLiteral("build_pipeline.py");
    for (const QString &m : graphs)
        QTest::newRow(qPrintable(QFileInfo(m).fileName()))
            << m << QStringLiteral("json") << QStringLiteral("run_pipeline.py");
}

void TestExportAll::everyModelExports()
{
    QFETCH(QString, model);
    QFETCH(QString, moduleExtension);
    QFETCH(QString, script);
    if (QFileInfo(model).size() > 500 * 1024)
        QSKIP("large models are walked by tst_weights / tst_export (one cut each)");
    ImportResult imported = importFile(model.toStdString());
    QVERIFY2(imported.ok(), imported.firstError().c_str());
    const Graph &g = *imported.graph;
    PartitionPlan plan(g);
    std::vector<NodeId> calls;
    for (NodeId n : plan.view().assignableNodes()) {
        const NodeKind kind = g.node(n).kind;
        if (kind == NodeKind::OpCall || kind == NodeKind::FunctionCall)
            calls.push_back(n);
    }
    std::size_t expected = 1;
    if (calls.size() >= 3) {
        // Cut after the middle call in program order.
        std::vector<NodeId> after;
        for (NodeId n : plan.view().assignableNodes()) {
            if (plan.view().position(n) > plan.view().position(calls[calls.size() / 2]))
                after.push_back(n);
        }
        QVERIFY(!hasErrors(plan.cutBeforeNodes({ after }).diagnostics));
        expected = 2;
    }
    QCOMPARE(plan.partitionCount(), expected);
    const BoundaryTable boundary = computeBoundary(plan);
    for (const Diagnostic &d : validateAll(plan, boundary))
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult r = exportPartitions(plan, boundary, {}, dir.toStdString());
    for (const Diagnostic &d : r.diagnostics)
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
    QVERIFY(r.ok);
    // The runnable set: one module per partition, the connection config, the manifest and the
    // script that builds (or, for compiled models, runs) the pipeline.
    for (std::size_t k = 0; k < expected; ++k) {
        const std::string file = "mod" + std::to_string(k) + "." + moduleExtension.toStdString();
        QVERIFY2(std::find(r.files.begin(), r.files.end(), file) != r.files.end(), file.c_str());
    }
    for (const std::string &file : { std::string("pipeline_config.json"),
                                     std::string("partitions.json"), script.toStdString() })
        QVERIFY2(std::find(r.files.begin(), r.files.end(), file) != r.files.end(), file.c_str());
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_APPLESS_MAIN(TestExportAll)
#include "tst_export_all.moc"
