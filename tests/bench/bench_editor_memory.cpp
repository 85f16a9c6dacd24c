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
// (Ctrl+1) until drawn, zoom in on the middle; then a pan across the whole drawing as a user
// reads the model: at zoom 0.6 (node titles and shapes are written from 0.45; the far picture
// stands for the items well below it, so every node and edge in view has its item), following
// the main function's nodes in program order (its data flow, top to bottom), a step whenever
// the next node lies outside the viewport's middle 80% (the node is placed near the top: a
// step is about 80% of a viewport), with two viewport-wide steps right and two left of the
// path at each quarter of it; each step painted and its items made (the event loop runs
// until no more are made). bench_editor's rss_MB also counts that program's own copies (its
// LayoutGraph, a second block graph for the unprepared switch, a second open from the
// cache); this one holds nothing but the window.
//
// Printed per model:
//   nodes     the operators drawn (the main function's nodes the layout places);
//   base_MB   RSS of the shown empty window, before the file is opened (libraries, fonts);
//   open_s    wall seconds from openFile() to the drawn, laid-out model;
//   pre_MB    max RSS (getrusage) before the pan: open, fit, both levels, zoom;
//   rss_MB, KB/node  max RSS of the process over all of it (the pan included), and per node;
//   KB/nd+    (max RSS - base) per node: what each node of a model costs the editor;
//   pan_MB    rss_MB - pre_MB: what the pan added to the maximum;
//   steps     the pan's steps (each a painted viewport);
//   items     node and edge items that exist after the pan (made per tile around the mouse,
//             which each step moves onto the node it placed or the viewport's centre: tiles
//             paint from the layout, items serve hover and tooltips; CanvasWidget::itemsMade);
//   heap_MB   live heap (mallinfo2) at the end, after the pan;
//   prepared  whether the Blocks level was prepared when Ctrl+2 was pressed.
// A generated graph (gen*, chain*) is printed as Relay text to a file by a process of its own
// first, so that the measured process never held the generator's graph; --scratch DIR keeps
// those files in DIR (and reuses them) instead of a temporary folder. --in-process measures
// without a child process (for heaptrack; then give one model).
//
// --export (issue 32, M6: memory after an export) measures, after the pan, what exporting the
// open model costs and whether it is given back: the stage0 | stage1 plan (a cut after the
// middle node in program order) exported through the Export dialog as File > Export does
// (ExportDialog::runExport: the modules, the configuration, the recomposition check), the
// dialog closed, then resnet18.relay opened in the same window. Printed on a second line:
//   cur_MB     current RSS (VmRSS) before the export;
//   exp_MB     current RSS after the export, the dialog closed;
//   exp_heap_MB  live heap (mallinfo2) then;
//   peak_MB    max RSS over the export;
//   next_MB    current RSS after opening the next model;
//   out_MB     the bytes the export wrote.
// vit<L> (e.g. vit10) is a generated weight-heavy ONNX model (BenchOnnx.h: L transformer-shaped
// blocks of 33 MB of weights each; vit10 is 330 MB, the size of ViT-B/16).
// Usage: bench_editor_memory [--cases rnnt,resnet50,gen10000,gen100000,chain100000,vit10,FILE...]
//                            [--scratch DIR] [--in-process] [--quick-switch] [--export]
#include "BenchGraphs.h"
#include "BenchOnnx.h"
#include "BenchSupport.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/graph/Graph.h"
#include "core/layout/LayoutGraph.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/far/FarPicture.h"
#include "ui/canvas/view/CanvasView.h"
#include "ui/dialogs/ExportDialog.h"
#include "ui/document/Document.h"
#include "ui/document/LevelView.h"
#include "ui/document/MallocSettings.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QScrollBar>
#include <QUndoStack>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
bool g_export = false;

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

// The process' max RSS so far (getrusage), in kilobytes.
double maxRssKb()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss);
}

// Paints the viewport, moves the mouse (no button held) to viewport position `mouse` as a
// user looking at the view would (the canvas makes the items around it, for hover and
// tooltips), then runs the event loop until the canvas makes no more items.
void paintStep(ui::CanvasWidget &canvas, const QPoint &mouse)
{
    QWidget *viewport = canvas.view()->viewport();
    viewport->repaint();
    QMouseEvent move(QEvent::MouseMove, QPointF(mouse), QPointF(viewport->mapToGlobal(mouse)),
                     Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(viewport, &move);
    std::size_t made = canvas.itemsMade();
    int still = 0;
    for (int round = 0; round < 200 && still < 3; ++round) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        const std::size_t now = canvas.itemsMade();
        still = now == made ? still + 1 : 0;
        made = now;
    }
}

// The pan (see the header): the steps it took.
int panAcross(ui::CanvasWidget &canvas, const Graph &graph)
{
    constexpr qreal panZoom = 0.6;
    QGraphicsView *view = canvas.view();
    const QRect area = view->viewport()->rect();
    const QRect middle = area.adjusted(area.width() / 10, area.height() / 10, -area.width() / 10,
                                       -area.height() / 10);
    const QPoint nearTop(area.center().x(), area.height() / 10);
    const std::vector<NodeId> &nodes = graph.function(graph.mainFunction()).nodes;
    int steps = 0;
    const std::size_t quarter = std::max<std::size_t>(1, nodes.size() / 4);
    std::size_t nextQuarter = quarter;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const QPoint at = canvas.viewportPosOfNode(nodes[i]);
        if (at.isNull())
            continue; // not drawn
        if (steps == 0 || !middle.contains(at)) {
            canvas.placeNode(nodes[i], nearTop, panZoom);
            paintStep(canvas, nearTop);
            ++steps;
        }
        if (i < nextQuarter)
            continue;
        nextQuarter += quarter;
        QScrollBar *bar = view->horizontalScrollBar();
        const int home = bar->value();
        for (const int direction : { 1, -1 }) {
            for (int k = 1; k <= 2; ++k) {
                bar->setValue(home + direction * k * area.width());
                paintStep(canvas, area.center());
                ++steps;
            }
        }
        bar->setValue(home);
    }
    return steps;
}

bool trigger(ui::MainWindow &window, const char *name)
{
    auto *action = window.findChild<QAction *>(QString::fromLatin1(name));
    if (action == nullptr)
        return false;
    action->trigger();
    return true;
}

// Bytes under `dir`.
std::uintmax_t folderBytes(const std::filesystem::path &dir)
{
    std::uintmax_t total = 0;
    std::error_code ec;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
        if (entry.is_regular_file(ec))
            total += entry.file_size(ec);
    }
    return total;
}

// --export: the open model cut in two and exported through the Export dialog, the dialog
// closed, the next model opened (see the header). True when every step finished.
bool measureExport(ui::MainWindow &window, const std::string &scratch)
{
    const Graph &g = *window.document()->graph();
    const std::vector<NodeId> &nodes = g.function(window.document()->plan()->function()).nodes;
    NodeId middle;
    for (std::size_t i = nodes.size() / 2; i < nodes.size() && !middle.isValid(); ++i) {
        if (window.document()->plan()->view().isAssignable(nodes[i]))
            middle = nodes[i];
    }
    auto *cutAfter = window.findChild<QAction *>(QStringLiteral("cutAfterAction"));
    if (!middle.isValid() || cutAfter == nullptr)
        return false;
    window.canvas()->selectNodes({ middle });
    cutAfter->trigger();
    settle(500);
    const double beforeKb = bench::residentKb();
    const double peakBeforeKb = maxRssKb();
    const std::filesystem::path out = std::filesystem::path(scratch) / "export";
    ui::ExportDialog *dialog = window.showExportDialog();
    bool ok = dialog != nullptr;
    if (ok) {
        dialog->setFolder(QString::fromStdString(out.string()));
        ok = dialog->runExport();
        dialog->close();
    }
    settle(1000);
    const double afterKb = bench::residentKb();
    const double afterHeapMb = bench::heapMb();
    const double peakKb = maxRssKb();
    const std::uintmax_t written = folderBytes(out);
    std::filesystem::remove_all(out);
    // The plan was exported, not saved: the user opens the next model without saving it.
    window.document()->undoStack()->setClean();
    const QString next = QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    ok = ok && window.openFile(next)
        && waitUntil([&] { return window.canvas()->isLayoutReady(); }, 120);
    settle(1000);
    const double nextKb = bench::residentKb();
    std::printf("  export: cur_MB %.0f  exp_MB %.0f  exp_heap_MB %.0f  peak_MB %.0f  next_MB %.0f  "
                "out_MB %.0f%s%s\n",
                beforeKb / 1024, afterKb / 1024, afterHeapMb, std::max(peakKb, peakBeforeKb) / 1024,
                nextKb / 1024, static_cast<double>(written) / 1e6,
                peakKb > peakBeforeKb ? "" : " (the export did not raise the maximum)",
                ok ? "" : " (a step did not finish)");
    std::fflush(stdout);
    return ok;
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
    const double preKb = maxRssKb();
    int steps = 0;
    if (ok)
        steps = panAcross(*canvas, *window.document()->graph());
    settle(500);

    const double rssKb = maxRssKb();
    const double heapMb = bench::heapMb();
    const std::size_t items = canvas->itemsMade();
    // Counted after the maximum is read: the LayoutGraph is the bench's, not the editor's.
    std::size_t nodes = 0;
    if (const Graph *g = window.document()->graph())
        nodes = buildLayoutGraph(*g, g->mainFunction()).nodes.size();
    const double perNode = 1.0 / static_cast<double>(std::max<std::size_t>(1, nodes));
    std::printf("%-26s %7zu %8.0f %7.1f %7.0f %7.0f %8.2f %7.2f %7.0f %6d %7zu %8.0f %9s %s\n",
                name.c_str(), nodes, baseKb / 1024, openS, preKb / 1024, rssKb / 1024,
                rssKb * perNode, (rssKb - baseKb) * perNode, (rssKb - preKb) / 1024, steps, items,
                heapMb, prepared ? "yes" : "no", ok ? "" : "(a step did not finish)");
    std::fflush(stdout);
    if (ok && g_export)
        ok = measureExport(window, cacheHome);
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

// Writes a generated model to `path` by `write` in a child process (so that the measured
// process never holds the generator's graph), unless it is there already. False, said on
// stdout, when it could not be written.
bool generateOnce(const std::string &name, const std::string &path,
                  const std::function<int()> &write)
{
    if (std::filesystem::exists(path) || inChild(write) == 0)
        return true;
    std::printf("%-26s  could not write the generated model\n", name.c_str());
    return false;
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
        } else if (arg == "--export") {
            g_export = true;
        }
    }
    std::printf("%-26s %7s %8s %7s %7s %7s %8s %7s %7s %6s %7s %8s %9s\n", "graph", "nodes",
                "base_MB", "open_s", "pre_MB", "rss_MB", "KB/node", "KB/nd+", "pan_MB", "steps",
                "items", "heap_MB", "prepared");
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
            if (!generateOnce(name, path, [&] {
                    const std::unique_ptr<Graph> g
                        = gen ? bench::resnetShaped(n) : bench::gatedChain(n);
                    std::ofstream(path) << printRelay(*g);
                    return 0;
                }))
                continue;
        } else if (w.rfind("vit", 0) == 0) {
            const int layers = std::stoi(w.substr(3));
            name = "weight_heavy_" + std::to_string(layers) + "L.onnx";
            path = (scratch / name).string();
            if (!generateOnce(name, path, [&] {
                    return bench::writeWeightHeavyOnnx(path, layers) > 0 ? 0 : 1;
                }))
                continue;
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
