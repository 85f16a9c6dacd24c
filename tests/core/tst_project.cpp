// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Project files (.cleave): round trip, relative model paths, checksum mismatch, corrupted files.
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/PlanFile.h"
#include "core/project/ProjectFile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <filesystem>
#include <fstream>

using namespace cleave;

namespace {

const std::string resnet
    = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay")).toStdString();

using test::loadOrAbort;

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

std::vector<std::string> codes(const std::vector<Diagnostic> &diagnostics)
{
    std::vector<std::string> out;
    for (const Diagnostic &d : diagnostics)
        out.push_back(d.code);
    return out;
}

} // namespace

class TestProject : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip();
    void modelPathIsRelative();
    void checksumMismatch();
    void corruptedProject_data();
    void corruptedProject();
    void syntaxErrorHasLineAndColumn();
    void failedSaveKeepsExistingProject();
    void settingsRoundTrip();
    void projectWithoutSettingsLoads();
    void malformedSettingsAreLocated();
};

void TestProject::roundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::unique_ptr<Graph> graph = loadOrAbort(resnet);
    PartitionPlan plan(*graph);
    QVERIFY(!plan.cutAfterOps({ { "add", 0 }, { "add", 2 } }).isEmpty());
    plan.renamePartition(plan.partitions()[1].id, "middle");
    plan.setTarget(plan.partitions()[2].id, "cuda");
    QCOMPARE(plan.partitionCount(), std::size_t(3));

    ProjectViewState view;
    view.zoom = 0.75;
    view.centerX = 120.5;
    view.centerY = -42.0;
    view.hasCenter = true;
    view.tool = "cut";
    const std::string path = dir.filePath(QStringLiteral("resnet.cleave")).toStdString();
    std::string error;
    QVERIFY2(saveProjectFile(makeProject(plan, path, view), path, &error), error.c_str());
    QVERIFY(!QFileInfo::exists(QString::fromStdString(path + ".tmp")));

    const ProjectLoadResult loaded = loadProjectFile(path);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded.diagnostics.size(), std::size_t(0));
    QCOMPARE(loaded.project->view, view);
    QCOMPARE(loaded.project->modelChecksum, graph->checksum());
    QCOMPARE(resolveModelPath(*loaded.project, path), resnet);
    QVERIFY(!modelChanged(*loaded.project, *graph));

    const std::unique_ptr<Graph> again = loadOrAbort(resolveModelPath(*loaded.project, path));
    PlanLoadResult reloaded = projectPlan(*loaded.project, *again, path, false);
    QVERIFY(reloaded.ok());
    QCOMPARE(planToJson(*reloaded.plan), planToJson(plan));
    QCOMPARE(reloaded.plan->partitions()[1].name, std::string("middle"));
    QCOMPARE(reloaded.plan->partitions()[2].target, std::string("cuda"));
}

void TestProject::modelPathIsRelative()
{
    // A project beside a copy of the model names it by file name, and moving both together
    // keeps the project working.
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("models/net.relay"));
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("models"))));
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("projects"))));
    QVERIFY(QFile::copy(QString::fromStdString(resnet), model));
    const std::unique_ptr<Graph> graph = loadOrAbort(model.toStdString());
    const PartitionPlan plan(*graph);
    const std::string path = dir.filePath(QStringLiteral("projects/p.cleave")).toStdString();
    const Project project = makeProject(plan, path);
    QCOMPARE(project.modelPath, std::string("../models/net.relay"));
    QVERIFY(saveProjectFile(project, path));
    QCOMPARE(resolveModelPath(*loadProjectFile(path).project, path),
             QDir::cleanPath(model).toStdString());

    const nlohmann::json json = projectToJson(project);
    QCOMPARE(json["cleave_project"].get<int>(), 1);
    QCOMPARE(json["model"]["path"].get<std::string>(), std::string("../models/net.relay"));
    QCOMPARE(json["plan"]["partitions"].size(), std::size_t(1));
    QCOMPARE(json["view"]["tool"].get<std::string>(), std::string("select"));
}

void TestProject::checksumMismatch()
{
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("net.relay"));
    QVERIFY(QFile::copy(QString::fromStdString(resnet), model));
    const std::unique_ptr<Graph> graph = loadOrAbort(model.toStdString());
    PartitionPlan plan(*graph);
    plan.cutAfterOp("add", 0);
    const std::string path = dir.filePath(QStringLiteral("net.cleave")).toStdString();
    QVERIFY(saveProjectFile(makeProject(plan, path), path));

    // The model is edited afterwards (a comment appended): same nodes, another checksum.
    QFile file(model);
    QVERIFY(file.open(QIODevice::Append));
    file.write("\n// edited\n");
    file.close();
    const std::unique_ptr<Graph> changed = loadOrAbort(model.toStdString());
    const ProjectLoadResult loaded = loadProjectFile(path);
    QVERIFY(loaded.ok());
    QVERIFY(modelChanged(*loaded.project, *changed));

    const PlanLoadResult strict = projectPlan(*loaded.project, *changed, path, false);
    QVERIFY(!strict.ok());
    QCOMPARE(codes(strict.diagnostics), std::vector<std::string> { "plan.checksum" });
    QCOMPARE(strict.diagnostics[0].severity, Severity::Error);

    const PlanLoadResult forced = projectPlan(*loaded.project, *changed, path, true);
    QVERIFY(forced.ok());
    QCOMPARE(codes(forced.diagnostics), std::vector<std::string> { "plan.checksum" });
    QCOMPARE(forced.diagnostics[0].severity, Severity::Warning);
    QCOMPARE(forced.plan->partitionCount(), std::size_t(2));
    QCOMPARE(planToJson(*forced.plan)["partitions"], planToJson(plan)["partitions"]);
}

void TestProject::corruptedProject_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("not a project")
        << QByteArray(R"({"cleave_plan": 1, "partitions": []})")
        << QStringLiteral("project.version") << QStringLiteral("not a Cleave project file");
    QTest::newRow("future version")
        << QByteArray(R"({"cleave_project": 7})") << QStringLiteral("project.version")
        << QStringLiteral("project file version 7 is not supported");
    QTest::newRow("no model") << QByteArray(R"({"cleave_project": 1, "plan": {}})")
                              << QStringLiteral("project.schema")
                              << QStringLiteral("the project names no model");
    QTest::newRow("no plan") << QByteArray(R"({"cleave_project": 1, "model": {"path": "a.relay"}})")
                             << QStringLiteral("project.schema")
                             << QStringLiteral("the project has no \"plan\" object");
    QTest::newRow("bad view") << QByteArray(
        R"({"cleave_project": 1, "model": {"path": "a.relay"}, "plan": {},)"
        R"( "view": {"zoom": -1}})")
                              << QStringLiteral("project.schema")
                              << QStringLiteral("the \"view\" object is malformed");
}

void TestProject::corruptedProject()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, code);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.cleave"));
    writeAll(path, text);
    const ProjectLoadResult r = loadProjectFile(path.toStdString());
    QVERIFY(!r.ok());
    QVERIFY(!r.project);
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(r.diagnostics[0].code), code);
    QVERIFY2(QString::fromStdString(r.diagnostics[0].message).startsWith(message),
             r.diagnostics[0].message.c_str());
    QCOMPARE(r.diagnostics[0].where.file, path.toStdString());
    // Reading never touches the file.
    QCOMPARE(readAll(path), text);
}

void TestProject::syntaxErrorHasLineAndColumn()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("cut.cleave"));
    const QByteArray text
        = "{\"cleave_project\": 1,\n  \"model\": {\"path\": \"a.relay\"},\n  \"plan\": {\"cle";
    writeAll(path, text);
    const ProjectLoadResult r = loadProjectFile(path.toStdString());
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    QCOMPARE(r.diagnostics[0].code, std::string("project.syntax"));
    QCOMPARE(r.diagnostics[0].where.line, 3);
    QCOMPARE(r.diagnostics[0].where.column, 16);
    QVERIFY(
        QString::fromStdString(r.diagnostics[0].toString())
            .startsWith(path + QStringLiteral(":3:16: error: the project file is not valid JSON")));

    const ProjectLoadResult missing
        = loadProjectFile(dir.filePath(QStringLiteral("nope.cleave")).toStdString());
    QCOMPARE(codes(missing.diagnostics), std::vector<std::string> { "project.unreadable" });
}

void TestProject::failedSaveKeepsExistingProject()
{
    QTemporaryDir dir;
    const std::unique_ptr<Graph> graph = loadOrAbort(resnet);
    PartitionPlan plan(*graph);
    const std::string path = dir.filePath(QStringLiteral("p.cleave")).toStdString();
    QVERIFY(saveProjectFile(makeProject(plan, path), path));
    const QByteArray before = readAll(QString::fromStdString(path));

    // The temporary file cannot be created (a folder is in the way): the save fails, says why,
    // and the project on disk is the one saved before.
    QVERIFY(QDir().mkpath(QString::fromStdString(path + ".tmp")));
    plan.cutAfterOp("add", 0);
    std::string error;
    QVERIFY(!saveProjectFile(makeProject(plan, path), path, &error));
    QCOMPARE(error, "cannot write " + path + ".tmp: Is a directory");
    QCOMPARE(readAll(QString::fromStdString(path)), before);

    std::string missingError;
    const std::string nowhere = dir.filePath(QStringLiteral("no/such/dir/p.cleave")).toStdString();
    QVERIFY(!saveProjectFile(makeProject(plan, nowhere), nowhere, &missingError));
    QCOMPARE(missingError, "cannot write " + nowhere + ".tmp: No such file or directory");
}

void TestProject::settingsRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::unique_ptr<Graph> graph = loadOrAbort(resnet);
    const PartitionPlan plan(*graph);
    const std::string folder = QDir::cleanPath(dir.path()).toStdString();
    ProjectSettings settings;
    settings.opSupportFiles = { folder + "/lists/dnnl.json", folder + "/cuda.json" };
    settings.latencyFile = folder + "/lat.json";
    settings.opPatternsFile = folder + "/patterns.json";
    settings.foldBatchNorm = true;
    settings.transparentStopFusion = true;
    settings.params = { "conv1.weight", "fc.bias" };
    settings.liftConstants = true;
    const std::string path = folder + "/p.cleave";
    QVERIFY(saveProjectFile(makeProject(plan, path, {}, settings), path));

    // Stored relative to the project's folder, every key present.
    const nlohmann::json json = nlohmann::json::parse(readAll(QString::fromStdString(path)));
    QCOMPARE(json["settings"].dump(),
             std::string("{\"export\":{\"lift_constants\":true},\"fusion\":{\"fold_batch_norm\":"
                         "true,\"op_patterns\":\"patterns.json\",\"transparent_stop_fusion\":true},"
                         "\"latency\":\"lat.json\",\"op_support\":[\"lists/dnnl.json\","
                         "\"cuda.json\"],\"params\":[\"conv1.weight\",\"fc.bias\"]}"));
    const ProjectLoadResult loaded = loadProjectFile(path);
    QVERIFY(loaded.ok());
    QCOMPARE(resolvedSettings(loaded.project->settings, path), settings);

    // Default settings write no "settings" key: such projects look as they did before.
    const std::string plain = folder + "/plain.cleave";
    QVERIFY(saveProjectFile(makeProject(plan, plain), plain));
    QVERIFY(!nlohmann::json::parse(readAll(QString::fromStdString(plain))).contains("settings"));
}

void TestProject::projectWithoutSettingsLoads()
{
    // A project as Cleave wrote it before settings existed.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("old.cleave"));
    QVERIFY(QFile::copy(QString::fromStdString(resnet), dir.filePath(QStringLiteral("net.relay"))));
    writeAll(path, R"({"cleave_project": 1,
 "model": {"path": "net.relay"},
 "plan": {"cleave_plan": 1, "model": {"path": "net.relay"}, "function": "main",
          "partitions": [{"name": "stage0", "target": "llvm", "nodes": []}]},
 "view": {"zoom": 1.0, "tool": "select", "level": "ops"}})");
    const ProjectLoadResult loaded = loadProjectFile(path.toStdString());
    QVERIFY(loaded.project.has_value());
    QVERIFY(!hasErrors(loaded.diagnostics));
    QVERIFY(loaded.project->settings.isDefault());
    QCOMPARE(loaded.project->settings, ProjectSettings {});
}

void TestProject::malformedSettingsAreLocated()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.cleave"));
    // Line 4: `"settings": {"fusion": {"fold_batch_norm": "yes"}}`, the "yes" at column 45.
    writeAll(path, R"({"cleave_project": 1,
 "model": {"path": "net.relay"},
 "plan": {"cleave_plan": 1},
 "settings": {"fusion": {"fold_batch_norm": "yes"}}}
)");
    const ProjectLoadResult loaded = loadProjectFile(path.toStdString());
    QVERIFY(!loaded.ok());
    QCOMPARE(codes(loaded.diagnostics), std::vector<std::string> { "project.schema" });
    const Diagnostic &d = loaded.diagnostics.front();
    QCOMPARE(d.where.line, 4);
    QCOMPARE(d.where.column, 45);
    QVERIFY(d.message.find("fold_batch_norm") != std::string::npos);

    // A params list that is not one.
    writeAll(path, R"({"cleave_project": 1, "model": {"path": "net.relay"}, "plan": {},
 "settings": {"params": ["w", 3]}})");
    const ProjectLoadResult params = loadProjectFile(path.toStdString());
    QVERIFY(!params.ok());
    QCOMPARE(params.diagnostics.front().where.line, 2);
    QCOMPARE(params.diagnostics.front().where.column, 31);
}

QTEST_APPLESS_MAIN(TestProject)
#include "tst_project.moc"
