// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The export folder swap (core/export/ExportFolder): a failure injected between every two
// steps leaves the destination holding the old export or the new one, complete; the user's
// files survive; a folder that is not an export is refused unless forced; leftovers of an
// interrupted export are cleaned (or, for the fallback swap, restored) by the next export.
#include "core/export/ExportFolder.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/support/FileIo.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace cleave;
namespace fs = std::filesystem;

namespace {

/// QCOMPARE of two std::string that prints both on failure.
#define CHECK_TEXT(actual, expected)                                                               \
    QCOMPARE(QString::fromStdString(actual), QString::fromStdString(expected))

using Snapshot = std::map<std::string, std::string>; // file name -> content

/// Every entry of `dir` (recursively, names relative to it) with its content.
Snapshot snapshot(const fs::path &dir)
{
    Snapshot files;
    std::error_code ec;
    if (!fs::exists(dir, ec))
        return files;
    for (const auto &entry : fs::recursive_directory_iterator(dir)) {
        if (entry.is_regular_file())
            files[fs::relative(entry.path(), dir).string()] = *readFile(entry.path().string());
    }
    return files;
}

/// Siblings of `dir` whose names start with `.<name>.` (temporary and old folders).
std::vector<std::string> siblings(const fs::path &dir)
{
    std::vector<std::string> found;
    const std::string prefix = "." + dir.filename().string() + ".";
    for (const auto &entry : fs::directory_iterator(dir.parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0)
            found.push_back(name);
    }
    return found;
}

} // namespace

class TestExportFolder : public QObject
{
    Q_OBJECT

    std::unique_ptr<Graph> m_graph;

    /// Exports resnet18 cut after the given adds (0 cuts: one partition) into `dir`.
    ExportResult exportCuts(const fs::path &dir, std::vector<std::size_t> adds,
                            ExportOptions options = {})
    {
        PartitionPlan plan(*m_graph);
        std::vector<SplitPoint> points;
        for (std::size_t a : adds)
            points.push_back({ "add", a });
        if (!points.empty())
            plan.cutAfterOps(points);
        options.buildScript = false; // keep the snapshots small
        return exportPartitions(plan, computeBoundary(plan), options, dir.string());
    }

private slots:
    void initTestCase()
    {
        ImportResult r = importFile(std::string(CLEAVE_SAMPLES_DIR) + "/resnet18.relay");
        QVERIFY(r.graph);
        m_graph = std::move(r.graph);
    }

    void interruptedExportLeavesOldOrNew_data()
    {
        QTest::addColumn<bool>("noExchange");
        QTest::newRow("renameat2 exchange") << false;
        QTest::newRow("two-rename fallback") << true;
    }

    void interruptedExportLeavesOldOrNew()
    {
        QFETCH(bool, noExchange);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path base = tmp.path().toStdString();
        // Reference snapshots: the old export (3 partitions) and the new one (2 partitions).
        QVERIFY(exportCuts(base / "old", { 0, 1 }).ok);
        QVERIFY(exportCuts(base / "new", { 2 }).ok);
        const Snapshot oldFiles = snapshot(base / "old");
        const Snapshot newFiles = snapshot(base / "new");
        QVERIFY(oldFiles.count("mod2.relay") && !newFiles.count("mod2.relay"));
        QVERIFY(oldFiles.at("mod0.relay") != newFiles.at("mod0.relay"));

        // The steps of replacing an existing export.
        std::vector<std::string> steps;
        ExportOptions record;
        record.noExchange = noExchange;
        record.stepHook = [&](std::string_view s) {
            steps.emplace_back(s);
            return true;
        };
        QVERIFY(exportCuts(base / "probe", { 0, 1 }).ok);
        QVERIFY(exportCuts(base / "probe", { 2 }, record).ok);
        const std::vector<std::string> expectedTail = noExchange
            ? std::vector<std::string> { "listed", "carried", "moved-old", "swapped",
                                         "removed-old" }
            : std::vector<std::string> { "listed", "carried", "swapped", "removed-old" };
        QVERIFY(steps.size() > expectedTail.size());
        QCOMPARE(std::vector<std::string>(steps.end() - static_cast<long>(expectedTail.size()),
                                          steps.end()),
                 expectedTail);
        QCOMPARE(steps.front(), std::string("cleaned"));

        for (std::size_t stop = 0; stop < steps.size(); ++stop) {
            const fs::path out = base / ("out" + std::to_string(stop));
            QVERIFY(exportCuts(out, { 0, 1 }).ok);
            std::size_t seen = 0;
            ExportOptions crash;
            crash.noExchange = noExchange;
            crash.stepHook = [&](std::string_view) { return seen++ < stop; };
            const ExportResult r = exportCuts(out, { 2 }, crash);
            QVERIFY(!r.ok);
            const Snapshot now = snapshot(out);
            if (noExchange && steps[stop] == "moved-old") {
                // Killed between the two renames: the old export waits in .<out>.old-N ...
                QVERIFY(now.empty());
                const std::vector<std::string> left = siblings(out);
                const auto old = std::find_if(left.begin(), left.end(), [](const std::string &n) {
                    return n.find(".old-") != std::string::npos;
                });
                QVERIFY(old != left.end());
                QCOMPARE(snapshot(out.parent_path() / *old), oldFiles);
                // ... and the next export puts it back before anything else.
                ExportOptions stopEarly;
                stopEarly.stepHook = [](std::string_view s) { return s != "cleaned"; };
                QVERIFY(!exportCuts(out, { 2 }, stopEarly).ok);
                QCOMPARE(snapshot(out), oldFiles);
            } else {
                QVERIFY2(now == oldFiles || now == newFiles, ("after step " + steps[stop]).c_str());
                // A step is reported once done: killed at "swapped" or later, the new export is
                // in place; before it, the old one.
                const auto end = steps.begin() + static_cast<long>(stop) + 1;
                const bool swapped = std::find(steps.begin(), end, "swapped") != end;
                QCOMPARE(now == newFiles, swapped);
            }
            // The next export cleans every leftover and writes the new folder.
            QVERIFY(exportCuts(out, { 2 }).ok);
            QCOMPARE(snapshot(out), newFiles);
            QCOMPARE(siblings(out), std::vector<std::string> {});
        }
    }

    void userFilesSurvive()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        QVERIFY(exportCuts(out, { 0, 1 }).ok);
        QVERIFY(writeFileAtomically((out / "precious.txt").string(), "mine\n"));
        fs::create_directory(out / "notes");
        QVERIFY(writeFileAtomically((out / "notes" / "a.txt").string(), "a\n"));
        QVERIFY(exportCuts(out, { 2 }).ok);
        const Snapshot now = snapshot(out);
        CHECK_TEXT(now.at("precious.txt"), std::string("mine\n"));
        CHECK_TEXT(now.at("notes/a.txt"), std::string("a\n"));
        QVERIFY(!now.count("mod2.relay")); // Cleave's own file of the old export is gone
        QVERIFY(now.count("mod1.relay"));
        CHECK_TEXT(now.at(".cleave-export"),
                   std::string("cleave-export 1\nmod0.relay\nmod1.relay\npipeline_config.json\n"
                               "partitions.json\n"));
    }

    void foreignFolderNeedsForce()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        fs::create_directory(out);
        QVERIFY(writeFileAtomically((out / "precious.txt").string(), "mine\n"));
        const ExportResult refused = exportCuts(out, { 0 });
        QVERIFY(!refused.ok);
        CHECK_TEXT(refused.diagnostics.back().code, std::string("export.io"));
        CHECK_TEXT(
            refused.diagnostics.back().message,
            out.string()
                + " is not empty and is not a Cleave export (it holds 'precious.txt' and no "
                  ".cleave-export); choose an empty folder, or force the export (--force) to "
                  "add Cleave's files beside the ones there");
        QCOMPARE(snapshot(out), (Snapshot { { "precious.txt", "mine\n" } }));
        ExportOptions force;
        force.force = true;
        QVERIFY(exportCuts(out, { 0 }, force).ok);
        const Snapshot now = snapshot(out);
        CHECK_TEXT(now.at("precious.txt"), std::string("mine\n"));
        QVERIFY(now.count("mod1.relay"));
        // A later export no longer needs the flag: the folder is now an export.
        QVERIFY(exportCuts(out, { 1 }).ok);
        CHECK_TEXT(snapshot(out).at("precious.txt"), std::string("mine\n"));
    }

    void userFileWithCleavesNameIsNotOverwritten()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        QVERIFY(exportCuts(out, { 0 }).ok);
        // The user puts a file where the next export (3 partitions) writes mod2.relay.
        QVERIFY(writeFileAtomically((out / "mod2.relay").string(), "hand-written\n"));
        const ExportResult r = exportCuts(out, { 0, 1 });
        QVERIFY(!r.ok);
        CHECK_TEXT(r.diagnostics.back().message,
                   std::string("the export would overwrite 'mod2.relay', which Cleave did not "
                               "write; move it away or force the export (--force); ")
                       + out.string() + " is unchanged");
        CHECK_TEXT(snapshot(out).at("mod2.relay"), std::string("hand-written\n"));
    }

    void badTargetIsRefusedBeforeWriting()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        ExportOptions options;
        options.targets = { "llvm", "dnnl\"); import os; (\"" };
        const ExportResult r = exportCuts(out, { 0 }, options);
        QVERIFY(!r.ok);
        CHECK_TEXT(r.diagnostics.back().code, std::string("export.bad_target"));
        CHECK_TEXT(
            r.diagnostics.back().message,
            std::string("partition 'stage1' has the target 'dnnl\"); import os; (\"': a target "
                        "starts with an identifier such as llvm, cuda or a BYOC compiler "
                        "name (letters, digits, '_')"));
        QVERIFY(!fs::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestExportFolder)
#include "tst_export_folder.moc"
