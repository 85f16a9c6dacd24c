// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// bench_editor_memory: the editor's memory as a user gets it. Each model is opened by the real
// MainWindow (every dock, the canvas, the level view: what `cleave MODEL` builds), through
// MainWindow::openFile() as File > Open does (import and layout in the background), in a
// process of its own with an empty layout cache (XDG_CACHE_HOME in a fresh temporary folder),
// on the offscreen platform with the malloc settings the editor applies at start. Then what a
// user does first: Fit (F) and the far picture, Fused Blocks (Ctrl+2) once the editor has
// prepared that level in the background (as after a second's look at the model; with
// --quick-switch at once, which may come before it is prepared), until drawn, Operators
// (Ctrl+1) until drawn, zoom in on the middle. bench_editor's rss_MB also counts that
// program's own copies (its LayoutGraph, a second block graph for the unprepared switch, a
// second open from the cache); this one holds nothing but the window.
//
// Printed per model:
//   nodes     the operators drawn (the main function's nodes the layout places);
//   base_MB   RSS of the shown empty window, before the file is opened (libraries, fonts);
//   open_s    wall seconds from openFile() to the drawn, laid-out model;
//   rss_MB, KB/node  max RSS (getrusage) of the process over all of it, and per node;
//   KB/nd+    (max RSS - base) per node: what each node of a model costs the editor;
//   heap_MB   live heap (mallinfo2) at the end, back at the operators level;
//   prepared  whether the Blocks level was prepared when Ctrl+2 was pressed.
// A generated graph (gen*, chain*) is printed as Relay text to a file by a process of its own
// first, so that the measured process never held the generator's graph; --scratch DIR keeps
// those files in DIR (and reuses them) instead of a temporary folder. --in-process measures
// without a child process (for heaptrack; then give one model).
// Usage: bench_editor_memory [--cases rnnt,resnet50,gen10000,gen100000,chain100000,FILE...]
//                            [--scratch DIR] [--in-process] [--quick-switch]
#include "BenchGraphs.h"
#include "BenchSupport.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/layout/LayoutGraph.h"
#include "ui/MainWindow.h"
#include "ui/document/Document.h"
#include "ui/document/LevelView.h"
#include "ui/document/MallocSettings.h"
#include "ui/scene/CanvasView.h"
#include "ui/scene/CanvasWidget.h"
#include "ui/scene/FarPicture.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QGraphicsView>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace cleave;
namespace {

bool g_quickSwitch = false;

// Runs the event loop until `done` holds or `seconds` pass; false on timeout.
bool waitUntil(const std::function<bool()> &done, int seconds)
{
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > static_cast<qint64>(seconds) * 1000)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    return true;
}

// Runs the event loop for `ms` milliseconds (the scene's slices, the far picture's worker).
void settle(int ms)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

bool trigger(ui::MainWindow &window, const char *name)
{
    auto *action = window.findChild<QAction *>(QString::fromLatin1(name));
    if (action == nullptr)
        return false;
    action->trigger();
    return true;
}

// The measured process: the window, the file opened, the first steps of a user. Exit code 0
// when every step finished.
int measure(const std::string &name, const std::string &path, const std::string &cacheHome)
{
    setenv("XDG_CACHE_HOME", cacheHome.c_str(), 1);
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    ui::applyMallocSettings(); // as the editor's main() does
    int argc = 1;
    char arg0[] = "bench_editor_memory";
    char *argv[] = { arg0, nullptr };
    QApplication app(argc, argv);
    ui::MainWindow window;
    window.resize(1440, 900);
    window.show();
    settle(300);
    const double baseKb = bench::residentKb();

    QElapsedTimer wall;
    wall.start();
    ui::CanvasWidget *canvas = window.canvas();
    bool ok = window.openFile(QString::fromStdString(path));
    ok = ok
        && waitUntil([&] { return window.document()->graph() && canvas->isLayoutReady(); }, 600);
    const double openS = static_cast<double>(wall.elapsed()) / 1000.0;
    const auto *view = qobject_cast<ui::CanvasView *>(canvas->view());
    const auto farDone = [&] { return view->farPicture()->isCurrent(); };
    ok = ok && trigger(window, "fitAction") && waitUntil(farDone, 120);
    settle(500);
    if (!g_quickSwitch)
        waitUntil([&] { return window.levelView()->preparedBlocks() != nullptr; }, 60);
    const bool prepared = window.levelView()->preparedBlocks() != nullptr;
    // A level's action, then until that level is drawn and its scene's slices are made.
    const auto switchTo = [&](const char *action, ui::MainWindow::Level level) {
        const bool done = trigger(window, action)
            && waitUntil([&] { return window.level() == level && canvas->isLayoutReady(); }, 600);
        settle(1000);
        return done;
    };
    ok = ok && switchTo("blocksLevelAction", ui::MainWindow::Level::Blocks);
    ok = ok && switchTo("opsLevelAction", ui::MainWindow::Level::Ops);
    canvas->view()->setTransform(QTransform::fromScale(0.6, 0.6));
    canvas->view()->centerOn(canvas->view()->sceneRect().center());
    settle(500);

    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const auto rssKb = static_cast<double>(usage.ru_maxrss);
    const double heapMb = bench::heapMb();
    // Counted after the maximum is read: the LayoutGraph is the bench's, not the editor's.
    std::size_t nodes = 0;
    if (const Graph *g = window.document()->graph())
        nodes = buildLayoutGraph(*g, g->mainFunction()).nodes.size();
    const double perNode = 1.0 / static_cast<double>(std::max<std::size_t>(1, nodes));
    std::printf("%-26s %7zu %8.0f %7.1f %7.0f %8.2f %7.2f %8.0f %9s %s\n", name.c_str(), nodes,
                baseKb / 1024, openS, rssKb / 1024, rssKb * perNode, (rssKb - baseKb) * perNode,
                heapMb, prepared ? "yes" : "no", ok ? "" : "(a step did not finish)");
    std::fflush(stdout);
    return ok ? 0 : 1;
}

// Runs `body` in a child process and waits for it; its exit status.
int inChild(const std::function<int()> &body)
{
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0)
        _exit(body());
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> wanted { "rnnt", "resnet50", "gen10000", "gen100000", "chain100000" };
    std::filesystem::path scratch = std::filesystem::temp_directory_path()
        / ("cleave-bench-editor-memory-" + std::to_string(getpid()));
    bool keep = false;
    bool inProcess = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cases" && i + 1 < argc) {
            wanted = bench::commaList(argv[++i]);
        } else if (arg == "--scratch" && i + 1 < argc) {
            scratch = argv[++i];
            keep = true;
        } else if (arg == "--in-process") {
            inProcess = true;
        } else if (arg == "--quick-switch") {
            g_quickSwitch = true;
        }
    }
    std::printf("%-26s %7s %8s %7s %7s %8s %7s %8s %9s\n", "graph", "nodes", "base_MB", "open_s",
                "rss_MB", "KB/node", "KB/nd+", "heap_MB", "prepared");
    const std::string corpus = CLEAVE_CORPUS_DIR;
    for (const std::string &w : wanted) {
        std::filesystem::remove_all(scratch / "cache");
        std::filesystem::create_directories(scratch / "cache");
        std::string name = w;
        std::string path;
        if (w == "rnnt") {
            name = "rnnt_24k";
            path = corpus + "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt";
        } else if (w == "resnet50") {
            path = corpus + "/relay/resnet50-v2_onnx_tvm-collage-menagerie.relay.txt";
        } else if (w.rfind("gen", 0) == 0 || w.rfind("chain", 0) == 0) {
            const bool gen = w.rfind("gen", 0) == 0;
            const std::size_t n = std::stoul(w.substr(gen ? 3 : 5));
            name = (gen ? "resnet_" : "chain_") + std::to_string(n);
            path = (scratch / (name + ".relay")).string();
            const int written = std::filesystem::exists(path) ? 0 : inChild([&] {
                const std::unique_ptr<Graph> g
                    = gen ? bench::resnetShaped(n) : bench::gatedChain(n);
                std::ofstream(path) << printRelay(*g);
                return 0;
            });
            if (written != 0) {
                std::printf("%-26s  could not write the generated model\n", name.c_str());
                continue;
            }
        } else {
            path = w;
            name = std::filesystem::path(w).filename().string();
        }
        const auto run = [&] { return measure(name, path, (scratch / "cache").string()); };
        const int status = inProcess ? run() : inChild(run);
        if (status > 1)
            std::printf("%-26s  ended abnormally (status %d)\n", name.c_str(), status);
    }
    if (keep)
        std::filesystem::remove_all(scratch / "cache");
    else
        std::filesystem::remove_all(scratch);
    return 0;
}
