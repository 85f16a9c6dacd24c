// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Exports of real-world source shapes: dumps without a metadata section (the warning and
// --lift-constants) and models that return an input or a constant directly.
#include "TestSupport.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

using namespace cleave;
using namespace cleave::test;

namespace {

/// Printed by TVM with `meta data omitted`: two tensor constants and no #[metadata] section.
const char *noMetadata = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32] {
  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */;
  %1 = nn.relu(%0) /* ty=Tensor[(1, 4), float32] */;
  multiply(%1, meta[relay.Constant][1] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */
}
/* For debugging purposes the metadata section has been omitted.
 * If you would like to see the full metadata section you can set the
 * option to `True` when invoking `astext`.
 */
)";

/// Returns a computed tensor, an input read by the model, a constant and an unread input.
const char *directOutputs = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4), float32], %y: Tensor[(1, 4), float32]) {
  %0 = nn.relu(%x) /* ty=Tensor[(1, 4), float32] */;
  %1 = nn.relu(%0) /* ty=Tensor[(1, 4), float32] */;
  (%1, %x, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */, %y)
}
)";

} // namespace

class TestExportSources : public QObject
{
    Q_OBJECT

private slots:
    void warnsWithoutMetadata();
    void liftConstantsWithoutMetadata();
    void liftConstantsFusedSample();
    void directOutputsRouted();
};

void TestExportSources::warnsWithoutMetadata()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/nometa.relay");
    QVERIFY(writeAll(path, noMetadata));
    const auto g = load(path);
    QVERIFY(g);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.relu", 0 } });
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult r = exportPartitions(plan, computeBoundary(plan), {}, dir.toStdString());
    QVERIFY(r.ok);
    const std::vector<Diagnostic> warnings = withCode(r.diagnostics, "export.no_metadata");
    QCOMPARE(warnings.size(), std::size_t(2));
    QVERIFY(warnings[0].severity == Severity::Warning);
    QVERIFY2(warnings[0].message.rfind("mod0.relay references 1 constant(s) as "
                                       "meta[relay.Constant][i] but the source model has no "
                                       "#[metadata] section",
                                       0)
                 == 0,
             warnings[0].message.c_str());
    QVERIFY(warnings[1].message.rfind("mod1.relay references 1 constant(s)", 0) == 0);
    // The manifest records the warnings too.
    const auto manifest = nlohmann::json::parse(readAll(dir + QStringLiteral("/partitions.json")));
    int inManifest = 0;
    for (const auto &d : manifest["diagnostics"])
        inManifest += d["code"] == "export.no_metadata" ? 1 : 0;
    QCOMPARE(inManifest, 2);
    QVERIFY(readAll(dir + QStringLiteral("/mod1.relay")).find("meta[relay.Constant][0]")
            != std::string::npos);
}

void TestExportSources::liftConstantsWithoutMetadata()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/nometa.relay");
    QVERIFY(writeAll(path, noMetadata));
    const auto g = load(path);
    QVERIFY(g);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.relu", 0 } });
    const QString dir = tmp.path() + QStringLiteral("/out");
    ExportOptions options;
    options.liftConstants = true;
    const ExportResult r
        = exportPartitions(plan, computeBoundary(plan), options, dir.toStdString());
    QVERIFY(r.ok);
    QVERIFY(withCode(r.diagnostics, "export.no_metadata").empty());
    for (const char *file : { "/mod0.relay", "/mod1.relay" }) {
        const std::string text = readAll(dir + QLatin1String(file));
        QVERIFY2(text.find("meta[") == std::string::npos, text.c_str());
        QVERIFY(text.find("%const_0: Tensor[(4), float32]") != std::string::npos);
    }
    const auto manifest = nlohmann::json::parse(readAll(dir + QStringLiteral("/partitions.json")));
    const auto &lifted = manifest["lifted_constants"];
    QCOMPARE(lifted.size(), std::size_t(2));
    QCOMPARE(lifted[0]["mod_idx"].get<int>(), 0);
    QCOMPARE(lifted[0]["parameter"].get<std::string>(), std::string("const_0"));
    QCOMPARE(lifted[0]["source_ref"].get<std::string>(), std::string("meta[relay.Constant][0]"));
    QCOMPARE(lifted[1]["mod_idx"].get<int>(), 1);
    QCOMPARE(lifted[1]["source_ref"].get<std::string>(), std::string("meta[relay.Constant][1]"));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExportSources::liftConstantsFusedSample()
{
    // resnet_fused.relay passes its constants to fused functions from @main: all of them lift.
    const QString path = QStringLiteral(CLEAVE_SAMPLES_DIR) + QStringLiteral("/resnet_fused.relay");
    const auto g = load(path);
    QVERIFY(g);
    PartitionPlan plan(*g);
    // Cut after the third fused call (%22): everything later in program order moves on.
    std::vector<NodeId> calls, after;
    for (NodeId n : plan.view().assignableNodes()) {
        if (g->node(n).kind == NodeKind::FunctionCall)
            calls.push_back(n);
    }
    QVERIFY(calls.size() > 3);
    for (NodeId n : plan.view().assignableNodes()) {
        if (plan.view().position(n) > plan.view().position(calls[2]))
            after.push_back(n);
    }
    QVERIFY(!hasErrors(plan.cutBeforeNodes({ after }).diagnostics));
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    ExportOptions options;
    options.liftConstants = true;
    const ExportResult r
        = exportPartitions(plan, computeBoundary(plan), options, dir.toStdString());
    QVERIFY(r.ok);
    QVERIFY(withCode(r.diagnostics, "export.no_metadata").empty());
    for (std::size_t k = 0; k < plan.partitionCount(); ++k) {
        const std::string text = readAll(dir + QStringLiteral("/mod%1.relay").arg(k));
        QVERIFY2(text.find("meta[relay.Constant]") == std::string::npos, text.c_str());
    }
    const auto manifest = nlohmann::json::parse(readAll(dir + QStringLiteral("/partitions.json")));
    // The sample's 16 tensor constants (meta[relay.Constant][0..15], all arguments of calls
    // in @main), each lifted once.
    QCOMPARE(manifest["lifted_constants"].size(), std::size_t(16));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExportSources::directOutputsRouted()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/direct.relay");
    QVERIFY(writeAll(path, directOutputs));
    const auto g = load(path);
    QVERIFY(g);
    PartitionPlan plan(*g);
    plan.cutAfterOps({ { "nn.relu", 0 } });
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult r = exportPartitions(plan, computeBoundary(plan), {}, dir.toStdString());
    for (const Diagnostic &d : r.diagnostics)
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
    QVERIFY(r.ok);
    // By hand: the result tuple belongs to the last partition, so mod1 reads %x (forwarded by
    // mod0, its first reader) and %y (a global input of mod1). Output 1 (%x) is mod0's
    // pass-through output; output 2 (the constant) and output 3 (%y) leave mod1, which holds
    // the tuple.
    QCOMPARE(QString::fromStdString(readAll(dir + QStringLiteral("/pipeline_config.json"))),
             QStringLiteral(
                 "{\"param_connection\": [], \"input_connection\": [{\"global_interface_name\": "
                 "\"x\", \"mod_idx\": 0, \"module_interface_name\": \"x\"}, "
                 "{\"global_interface_name\": \"y\", \"mod_idx\": 1, \"module_interface_name\": "
                 "\"y\"}], \"module_connection\": [{\"mod_idx\": 0, \"cpu_affinity\": \"\", "
                 "\"output\": [{\"output_idx\": 0, \"dependencies\": [{\"mod_idx\": 1, "
                 "\"input_name\": \"data_n_0\"}]}, {\"output_idx\": 1, \"dependencies\": "
                 "[{\"mod_idx\": 1, \"input_name\": \"x\"}, {\"global_output_index\": 1}]}], "
                 "\"dev\": \"1,0\"}, {\"mod_idx\": 1, \"cpu_affinity\": \"\", \"output\": "
                 "[{\"output_idx\": 0, \"dependencies\": [{\"global_output_index\": 0}]}, "
                 "{\"output_idx\": 1, \"dependencies\": [{\"global_output_index\": 2}]}, "
                 "{\"output_idx\": 2, \"dependencies\": [{\"global_output_index\": 3}]}], "
                 "\"dev\": \"1,0\"}]}\n"));
    const std::string mod1 = readAll(dir + QStringLiteral("/mod1.relay"));
    QVERIFY2(mod1.find("(%0, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */, %y)")
                 != std::string::npos,
             mod1.c_str());
    QCOMPARE(withCode(r.diagnostics, "export.direct_output").size(), std::size_t(3));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_APPLESS_MAIN(TestExportSources)
#include "tst_export_sources.moc"
