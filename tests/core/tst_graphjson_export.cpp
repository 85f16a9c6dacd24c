// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// A compiled model (graph executor JSON) splits without recompiling: mod<k>.json per partition.
#include "TestSupport.h"
#include "core/export/graphjson/GraphJsonModuleExporter.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace cleave;
using namespace cleave::test;
using json = nlohmann::json;

namespace {

/// A small compiled graph: a conv kernel, a BYOC kernel with two outputs, an add.
const char *smallGraph = R"({"nodes": [
  {"op": "null", "name": "data", "inputs": []},
  {"op": "null", "name": "p0", "inputs": []},
  {"op": "null", "name": "p1", "inputs": []},
  {"op": "tvm_op", "name": "tvmgen_default_fused_nn_conv2d_add_nn_relu",
   "attrs": {"func_name": "tvmgen_default_fused_nn_conv2d_add_nn_relu", "num_inputs": "3",
             "num_outputs": "1", "flatten_data": "0", "hash": "00112233aabbccdd"},
   "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
  {"op": "tvm_op", "name": "tvmgen_default_dnnl_main_0",
   "attrs": {"func_name": "tvmgen_default_dnnl_main_0", "num_inputs": "1", "num_outputs": "2", "flatten_data": "0"},
   "inputs": [[3, 0, 0]]},
  {"op": "tvm_op", "name": "tvmgen_default_fused_add",
   "attrs": {"func_name": "tvmgen_default_fused_add", "num_inputs": "2", "num_outputs": "1", "flatten_data": "0"},
   "inputs": [[4, 0, 0], [4, 1, 0]]}],
 "arg_nodes": [0, 1, 2],
 "heads": [[5, 0, 0]],
 "attrs": {"shape": ["list_shape", [[1,3,8,8],[4,3,3,3],[4,1,1],[1,4,8,8],[1,2,8,8],[1,2,8,8],[1,2,8,8]]],
           "dltype": ["list_str", ["float32","float32","float32","float32","float32","float32","float32"]],
           "storage_id": ["list_int", [0,1,2,3,4,5,3]]},
 "node_row_ptr": [0, 1, 2, 3, 4, 6, 7]}
)";

/// Cuts so that each group of kernel positions after the cut points starts a new partition.
void cutAtKernels(PartitionPlan &plan, const std::vector<std::size_t> &starts)
{
    std::vector<NodeId> kernels;
    for (NodeId n : plan.view().assignableNodes()) {
        if (plan.graph().node(n).kind == NodeKind::OpCall)
            kernels.push_back(n);
    }
    std::vector<std::vector<NodeId>> groups;
    for (std::size_t s : starts) {
        std::vector<NodeId> after;
        for (NodeId n : plan.view().assignableNodes()) {
            if (plan.view().position(n) >= plan.view().position(kernels[s]))
                after.push_back(n);
        }
        groups.push_back(std::move(after));
    }
    const PlanEdit edit = plan.cutBeforeNodes(groups);
    QVERIFY(!hasErrors(edit.diagnostics));
}

/// Independent check of a storage plan: every entry has an id, and entries whose lifetimes
/// overlap (producer step to last reading step; inputs and heads live throughout) never share.
QString storageProblem(const json &doc)
{
    const json &nodes = doc["nodes"];
    const std::vector<std::size_t> rowPtr = doc["node_row_ptr"].get<std::vector<std::size_t>>();
    const std::vector<int> ids = doc["attrs"]["storage_id"][1].get<std::vector<int>>();
    const std::size_t entries = rowPtr.back();
    if (ids.size() != entries)
        return QStringLiteral("%1 storage ids for %2 entries").arg(ids.size()).arg(entries);
    std::vector<std::size_t> first(entries), last(entries);
    for (std::size_t nid = 0; nid < nodes.size(); ++nid) {
        for (std::size_t e = rowPtr[nid]; e < rowPtr[nid + 1]; ++e) {
            first[e] = nodes[nid]["op"] == "null" ? 0 : nid;
            last[e] = nodes[nid]["op"] == "null" ? nodes.size() : nid;
        }
        for (const json &in : nodes[nid]["inputs"]) {
            const std::size_t e = rowPtr[in[0].get<std::size_t>()] + in[1].get<std::size_t>();
            last[e] = std::max(last[e], nid);
        }
    }
    for (const json &h : doc["heads"])
        last[rowPtr[h[0].get<std::size_t>()] + h[1].get<std::size_t>()] = nodes.size();
    for (std::size_t a = 0; a < entries; ++a) {
        if (ids[a] < 0)
            return QStringLiteral("entry %1 has no storage id").arg(a);
        for (std::size_t b = a + 1; b < entries; ++b) {
            const bool overlap = first[a] <= last[b] && first[b] <= last[a];
            if (overlap && ids[a] == ids[b])
                return QStringLiteral("entries %1 and %2 are alive together in storage %3")
                    .arg(a)
                    .arg(b)
                    .arg(ids[a]);
        }
    }
    return {};
}

QStringList corpusGraphs()
{
    const QString dir = QStringLiteral(CLEAVE_CORPUS_DIR) + QStringLiteral("/graph_json");
    QStringList files;
    for (const QString &f :
         QDir(dir).entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name))
        files << dir + QLatin1Char('/') + f;
    return files;
}

} // namespace

class TestGraphJsonExport : public QObject
{
    Q_OBJECT

private slots:
    void storagePlanReusesDeadEntries();
    void smallGraphExact();
    void corpusCuts_data();
    void corpusCuts();
};

void TestGraphJsonExport::storagePlanReusesDeadEntries()
{
    // x → a → b → c → d → e (head), all 64 bytes: c takes a's storage (a's last reader b ran
    // before c), d takes b's; x and the head e keep their own.
    const std::vector<int> ids = graphJsonStoragePlan({ 0, 1, 2, 3, 4, 5 }, { 1, 2, 3, 4, 5, 5 },
                                                      { 64, 64, 64, 64, 64, 64 },
                                                      { true, false, false, false, false, true });
    QCOMPARE(ids, (std::vector<int> { 0, 1, 2, 1, 2, 3 }));
    // Different sizes never share.
    const std::vector<int> sized = graphJsonStoragePlan(
        { 0, 1, 2, 3 }, { 1, 2, 3, 3 }, { 64, 64, 64, 32 }, { true, false, false, true });
    QCOMPARE(sized, (std::vector<int> { 0, 1, 2, 3 }));
}

void TestGraphJsonExport::smallGraphExact()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/small.graph.json");
    QVERIFY(writeAll(path, smallGraph));
    ImportResult imported = importFile(path.toStdString());
    QVERIFY2(imported.ok(), imported.firstError().c_str());
    PartitionPlan plan(*imported.graph);
    cutAtKernels(plan, { 1 }); // conv | dnnl + add
    QCOMPARE(plan.partitionCount(), std::size_t(2));
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult r = exportPartitions(plan, computeBoundary(plan), {}, dir.toStdString());
    for (const Diagnostic &d : r.diagnostics)
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
    QVERIFY(r.ok);
    QVERIFY(std::find(r.files.begin(), r.files.end(), "run_pipeline.py") != r.files.end());
    QVERIFY(std::find(r.files.begin(), r.files.end(), "build_pipeline.py") == r.files.end());
    // Written by hand from the graph executor format (TVM's graph executor JSON).
    const json mod0 = json::parse(readAll(dir + QStringLiteral("/mod0.json")));
    const json expected0 = json::parse(R"({"nodes": [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "p0", "inputs": []},
        {"op": "null", "name": "p1", "inputs": []},
        {"op": "tvm_op", "name": "tvmgen_default_fused_nn_conv2d_add_nn_relu",
         "attrs": {"func_name": "tvmgen_default_fused_nn_conv2d_add_nn_relu", "num_inputs": "3",
                   "num_outputs": "1", "flatten_data": "0", "hash": "00112233aabbccdd"},
         "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}],
       "arg_nodes": [0, 1, 2], "heads": [[3, 0, 0]],
       "attrs": {"shape": ["list_shape", [[1,3,8,8],[4,3,3,3],[4,1,1],[1,4,8,8]]],
                 "dltype": ["list_str", ["float32","float32","float32","float32"]],
                 "storage_id": ["list_int", [0,1,2,3]]},
       "node_row_ptr": [0, 1, 2, 3, 4]})");
    QCOMPARE(mod0, expected0);
    const json mod1 = json::parse(readAll(dir + QStringLiteral("/mod1.json")));
    const json expected1 = json::parse(R"({"nodes": [
        {"op": "null", "name": "data_n_0", "inputs": []},
        {"op": "tvm_op", "name": "tvmgen_default_dnnl_main_0",
         "attrs": {"func_name": "tvmgen_default_dnnl_main_0", "num_inputs": "1", "num_outputs": "2", "flatten_data": "0"},
         "inputs": [[0, 0, 0]]},
        {"op": "tvm_op", "name": "tvmgen_default_fused_add",
         "attrs": {"func_name": "tvmgen_default_fused_add", "num_inputs": "2", "num_outputs": "1", "flatten_data": "0"},
         "inputs": [[1, 0, 0], [1, 1, 0]]}],
       "arg_nodes": [0], "heads": [[2, 0, 0]],
       "attrs": {"shape": ["list_shape", [[1,4,8,8],[1,2,8,8],[1,2,8,8],[1,2,8,8]]],
                 "dltype": ["list_str", ["float32","float32","float32","float32"]],
                 "storage_id": ["list_int", [0,1,2,3]]},
       "node_row_ptr": [0, 1, 3, 4]})");
    QCOMPARE(mod1, expected1);
    const json config = json::parse(readAll(dir + QStringLiteral("/pipeline_config.json")));
    QCOMPARE(config["module_connection"][0]["output"][0]["dependencies"][0]["input_name"]
                 .get<std::string>(),
             std::string("data_n_0"));
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestGraphJsonExport::corpusCuts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("parts");
    const QStringList files = corpusGraphs();
    if (files.isEmpty())
        QSKIP("corpus graph_json folder not available");
    for (const QString &f : files) {
        QTest::newRow(qPrintable(QFileInfo(f).fileName() + QStringLiteral(" / 2"))) << f << 2;
        QTest::newRow(qPrintable(QFileInfo(f).fileName() + QStringLiteral(" / 3"))) << f << 3;
    }
}

void TestGraphJsonExport::corpusCuts()
{
    QFETCH(QString, file);
    QFETCH(int, parts);
    ImportResult imported = importFile(file.toStdString());
    QVERIFY2(imported.ok(), imported.firstError().c_str());
    const Graph &g = *imported.graph;
    PartitionPlan plan(g);
    std::size_t kernels = 0;
    std::set<std::string> sourceFuncs;
    for (NodeId n : plan.view().assignableNodes()) {
        if (g.node(n).kind == NodeKind::OpCall) {
            ++kernels;
            sourceFuncs.insert(g.node(n).op);
        }
    }
    QVERIFY(kernels >= 3);
    std::vector<std::size_t> starts;
    for (int p = 1; p < parts; ++p)
        starts.push_back(kernels * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts));
    cutAtKernels(plan, starts);
    QCOMPARE(plan.partitionCount(), static_cast<std::size_t>(parts));
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    const ExportResult r = exportPartitions(plan, computeBoundary(plan), {}, dir.toStdString());
    for (const Diagnostic &d : r.diagnostics)
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
    QVERIFY(r.ok);
    std::size_t kernelsInModules = 0;
    for (int k = 0; k < parts; ++k) {
        const QString path = dir + QStringLiteral("/mod%1.json").arg(k);
        const json doc = json::parse(readAll(path));
        // Valid graph executor JSON: the reader's five keys, node_row_ptr as prefix sums.
        for (const char *key : { "nodes", "arg_nodes", "heads", "node_row_ptr", "attrs" })
            QVERIFY2(doc.contains(key), key);
        std::size_t entries = 0;
        for (std::size_t i = 0; i < doc["nodes"].size(); ++i) {
            const json &n = doc["nodes"][i];
            QCOMPARE(doc["node_row_ptr"][i].get<std::size_t>(), entries);
            entries
                += n["op"] == "null" ? 1 : std::stoul(n["attrs"]["num_outputs"].get<std::string>());
            if (n["op"] == "tvm_op") {
                ++kernelsInModules;
                // The same compiled kernels, by func_name.
                QVERIFY(sourceFuncs.count(n["attrs"]["func_name"].get<std::string>()));
            }
        }
        QCOMPARE(doc["node_row_ptr"].back().get<std::size_t>(), entries);
        QCOMPARE(doc["attrs"]["shape"][1].size(), entries);
        QCOMPARE(doc["attrs"]["dltype"][1].size(), entries);
        const QString storage = storageProblem(doc);
        QVERIFY2(storage.isEmpty(), qPrintable(storage));
        ImportResult back = importFile(path.toStdString());
        QVERIFY2(back.ok(), back.firstError().c_str());
    }
    QCOMPARE(kernelsInModules, kernels);
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_APPLESS_MAIN(TestGraphJsonExport)
#include "tst_graphjson_export.moc"
