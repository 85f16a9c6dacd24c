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

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
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

/// Siblings of `dir` whose names start with `.<name>.` (temporary and old folders), but for the
/// lock file `.<name>.lock`, which every export leaves.
std::vector<std::string> siblings(const fs::path &dir)
{
    std::vector<std::string> found;
    const std::string prefix = "." + dir.filename().string() + ".";
    for (const auto &entry : fs::directory_iterator(dir.parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && name != prefix + "lock") // the lock file stays
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
        const ExportResult replaced = exportCuts(base / "probe", { 2 }, record);
        QVERIFY(replaced.ok);
        // Issue 34, N6: the fallback says it was used and where an interruption leaves the old
        // export; the one-step exchange needs no such word.
        const auto said
            = std::find_if(replaced.diagnostics.begin(), replaced.diagnostics.end(),
                           [](const Diagnostic &d) { return d.code == "export.fallback_swap"; });
        QCOMPARE(said != replaced.diagnostics.end(), noExchange);
        if (noExchange)
            QVERIFY2(said->message.find(".probe.old-") != std::string::npos, said->message.c_str());
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
                // verify says where the previous export is instead of "no such folder".
                const VerifyResult v = verifyExport(out.string());
                QVERIFY(v.badInput);
                QVERIFY2(v.firstDifference.find("interrupted export left the previous one in")
                                 != std::string::npos
                             && v.firstDifference.find(*old) != std::string::npos,
                         v.firstDifference.c_str());
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

    // Issue 34, N8: into a folder that is not an export, --force replaced the user's
    // mod0.relay with no word. Forced or not, a file Cleave did not write is never replaced.
    void forceNeverReplacesAUserFile()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        fs::create_directory(out);
        QVERIFY(writeFileAtomically((out / "mod0.relay").string(), "hand-written\n"));
        ExportOptions force;
        force.force = true;
        const ExportResult r = exportCuts(out, { 0 }, force);
        QVERIFY(!r.ok);
        CHECK_TEXT(r.diagnostics.back().toString(),
                   std::string("error: the export would overwrite 'mod0.relay', which Cleave did "
                               "not write; move or rename it (Cleave replaces only the files its "
                               ".cleave-export lists, even with --force); ")
                       + out.string() + " is unchanged [export.io]");
        QCOMPARE(snapshot(out), (Snapshot { { "mod0.relay", "hand-written\n" } }));
        QCOMPARE(siblings(out), std::vector<std::string> {});
    }

    // Issue 34, N9: a FIFO (or a socket) left in an export folder made every later export fail
    // ("cannot keep 'pipe'"). They are linked into the new folder, never opened.
    void fifoAndSocketAreKept()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        QVERIFY(exportCuts(out, { 0 }).ok);
        QCOMPARE(::mkfifo((out / "pipe").c_str(), 0600), 0);
        const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(sock >= 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        const std::string socketPath = (out / "sock").string();
        QVERIFY(socketPath.size() < sizeof address.sun_path);
        std::copy(socketPath.begin(), socketPath.end(), address.sun_path);
        QCOMPARE(::bind(sock, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
        for (int round = 0; round < 2; ++round) {
            const ExportResult r = exportCuts(out, { static_cast<std::size_t>(round) });
            QVERIFY2(r.ok, r.diagnostics.empty() ? "" : r.diagnostics.back().message.c_str());
            QVERIFY(std::none_of(r.diagnostics.begin(), r.diagnostics.end(),
                                 [](const Diagnostic &d) { return d.code == "export.not_kept"; }));
            QVERIFY(fs::is_fifo(fs::symlink_status(out / "pipe")));
            QVERIFY(fs::is_socket(fs::symlink_status(out / "sock")));
            QVERIFY(fs::exists(out / "mod1.relay"));
        }
        ::close(sock);
    }

    // Issue 34, N3: an export holds `.<dir>.lock`; another one meanwhile writes nothing and
    // says so (the two-process race is in concurrentExportsKeepUserFiles).
    void busyFolderIsRefused()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        QVERIFY(exportCuts(out, { 0 }).ok);
        const Snapshot before = snapshot(out);
        const fs::path lockFile = out.parent_path() / ".out.lock";
        QVERIFY(fs::is_regular_file(lockFile));
        const int held = ::open(lockFile.c_str(), O_RDWR | O_CLOEXEC);
        QVERIFY(held >= 0);
        QCOMPARE(::flock(held, LOCK_EX | LOCK_NB), 0);
        const ExportResult r = exportCuts(out, { 1 });
        QVERIFY(!r.ok);
        CHECK_TEXT(r.diagnostics.back().toString(),
                   std::string("error: another export is writing ") + out.string() + " (it holds "
                       + lockFile.string()
                       + "); nothing was written: export again when it has finished "
                         "[export.busy]");
        QCOMPARE(snapshot(out), before);
        QCOMPARE(siblings(out), std::vector<std::string> {});
        ::close(held);
        QVERIFY(exportCuts(out, { 1 }).ok);
    }

    void concurrentExportsKeepUserFiles()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString out = tmp.path() + QStringLiteral("/out");
        const QStringList args {
            QStringLiteral("partition"),   QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"),
            QStringLiteral("--cut-after"), QStringLiteral("add:1"),
            QStringLiteral("--out"),       out
        };
        QProcess first;
        first.start(QStringLiteral(CLEAVE_CLI_PATH), args);
        QVERIFY(first.waitForFinished(120000));
        QCOMPARE(first.exitCode(), 0);
        const fs::path dir = out.toStdString();
        const Snapshot reference = snapshot(dir);
        QVERIFY(writeFileAtomically((dir / "precious.txt").string(), "mine\n"));
        int refused = 0;
        const int rounds = 12;
        for (int round = 0; round < rounds; ++round) {
            QProcess a;
            QProcess b;
            a.start(QStringLiteral(CLEAVE_CLI_PATH), args);
            b.start(QStringLiteral(CLEAVE_CLI_PATH), args);
            QVERIFY(a.waitForFinished(120000) && b.waitForFinished(120000));
            int ok = 0;
            for (QProcess *p : { &a, &b }) {
                QCOMPARE(p->exitStatus(), QProcess::NormalExit);
                const QString err = QString::fromUtf8(p->readAllStandardError());
                if (p->exitCode() == 0) {
                    ++ok;
                    continue;
                }
                QCOMPARE(p->exitCode(), 2);
                QVERIFY2(err.contains(QStringLiteral("another export is writing "))
                             && err.contains(QStringLiteral("[export.busy]")),
                         qPrintable(err));
                ++refused;
            }
            QVERIFY(ok >= 1);
            // The folder is one complete export, and the user's file is still there.
            Snapshot now = snapshot(dir);
            CHECK_TEXT(now["precious.txt"], std::string("mine\n"));
            now.erase("precious.txt");
            QCOMPARE(now, reference);
            QCOMPARE(siblings(dir), std::vector<std::string> {});
        }
        qInfo("%d rounds of two exports at once: %d of %d exports refused as busy, none lost a "
              "file",
              rounds, refused, 2 * rounds);
    }

    // On a full disk (here: a file size limit) the error keeps the system's reason.
    void writeErrorsKeepTheirCause()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        QVERIFY(exportCuts(out, { 0 }).ok);
        const Snapshot before = snapshot(out);
        rlimit old {};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN); // write() fails with EFBIG instead
        rlimit small = old;
        small.rlim_cur = 1024;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
        const ExportResult r = exportCuts(out, { 1 });
        ::setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, previous);
        QVERIFY(!r.ok);
        const QString message = QString::fromStdString(r.diagnostics.back().message);
        const QRegularExpression expected(
            QStringLiteral("^cannot write .*/\\.out\\.tmp-[0-9]+/[a-z0-9_.]+: File too large; ")
            + QRegularExpression::escape(QString::fromStdString(out.string()))
            + QStringLiteral(" is unchanged$"));
        QVERIFY2(expected.match(message).hasMatch(), qPrintable(message));
        QCOMPARE(snapshot(out), before);
        QCOMPARE(siblings(out), std::vector<std::string> {});
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
                               "write; move or rename it (Cleave replaces only the files its "
                               ".cleave-export lists, even with --force); ")
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
