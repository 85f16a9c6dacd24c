// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: layout quality beside the peers. For each graph (generated ResNet-, transformer-
// (one attention mask read by every layer), Inception- and DenseNet-shaped graphs at about 3k,
// 10k and 30k drawn nodes, and the real rnnt and ResNet-50 dumps of the corpus) it lays out the
// drawn graph (buildLayoutGraph: the same nodes, sizes and stubs for every engine) with
//   cleave  the editor's computeLayout (the engine it picks for that size);
//   dot     Graphviz's full dot in process, up to 3.5k nodes (beyond, tens of seconds);
//   dagre   npm dagre 0.8.5, the engine Netron's layout is a port of, run by node
//           (tests/bench/dagre/dagre_layout.js; install it with tests/bench/dagre/install.sh),
//           with Cleave's separations (nodesep 18 pt, ranksep 29 pt) and Netron's edgesep (20);
// and prints for each its wall milliseconds, edge crossings (LayoutMetrics.h: stubs excluded)
// and drawing width in points, then one JSON line per graph. With CLEAVE_BENCH_DUMP=DIR, Cleave's
// layout of each graph is also written to DIR/<graph>.layout.json (layoutToJson) to look at.
// Usage: bench_quality [--sizes 3000,10000,30000] [--shapes resnet,transformer,inception,
//                      densenet] [--corpus rnnt,resnet50] [--dagre DIR] [--timeout SECONDS]
#include "BenchGraphs.h"
#include "LayoutMetrics.h"
#include "core/formats/FormatRegistry.h"
#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutGraph.h"

#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace cleave;

namespace {

struct Figures
{
    bool ok = false;
    std::string note; // why not ok: "timeout", "failed", "skipped"
    double ms = 0;
    long long crossings = 0;
    double width = 0;
};

Figures figuresOf(const Layout &layout, double ms)
{
    Figures f;
    f.ok = true;
    f.ms = ms;
    f.crossings = static_cast<long long>(bench::countCrossings(layout));
    f.width = layout.bbox.width;
    return f;
}

std::vector<std::string> splitList(const std::string &list)
{
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

// dagre's drawing of `lg`, read back as a Layout: node boxes from dagre's centres, each route
// as a polyline (written as a cubic spline whose control points sit on its corners, so the
// metrics read the corners as on-curve points). A stub edge starts at a small point node of its
// own next to the consumer, as in full dot.
Figures layOutWithDagre(const LayoutGraph &lg, const std::string &dagreDir, int timeoutSeconds,
                        const std::filesystem::path &tmp)
{
    Figures f;
    if (dagreDir.empty() || !std::filesystem::exists(dagreDir + "/node_modules/dagre")) {
        f.note = "no dagre";
        return f;
    }
    nlohmann::json nodes = nlohmann::json::array();
    for (const LayoutGraph::Node &n : lg.nodes)
        nodes.push_back({ n.width, n.height });
    nlohmann::json edges = nlohmann::json::array();
    for (const LayoutGraph::Edge &e : lg.edges) {
        std::size_t from = e.from;
        if (e.stub) {
            from = nodes.size();
            nodes.push_back({ 3.6, 3.6 });
        }
        edges.push_back({ from, e.to });
    }
    const nlohmann::json graph { { "nodesep", 18 },
                                 { "ranksep", 28.8 },
                                 { "edgesep", 20 },
                                 { "nodes", std::move(nodes) },
                                 { "edges", std::move(edges) } };
    const std::filesystem::path in = tmp / "dagre-in.json";
    const std::filesystem::path out = tmp / "dagre-out.json";
    std::filesystem::remove(out);
    std::ofstream(in) << graph.dump();
    // dagre recurses once per rank (acyclic.js, rank.js): a deep chain overflows node's default
    // stack, as it does in Netron. The stack is raised so that depth alone does not fail it.
    const std::string command = "timeout " + std::to_string(timeoutSeconds)
        + " sh -c 'ulimit -s unlimited; exec \"$0\" \"$@\"' node --stack-size=500000"
          " --max-old-space-size=8192 '" CLEAVE_BENCH_SOURCE_DIR "/dagre/dagre_layout.js' '"
        + dagreDir + "' '" + in.string() + "' '" + out.string() + "' > /dev/null 2>&1";
    const int status = std::system(command.c_str());
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        // timeout(1) exits 124; a shell reports a child killed by signal N as 128 + N (V8
        // out of heap aborts: 134; the kernel's OOM killer: 137; a stack overflow: 139).
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        f.note = code == 124 ? "timeout"
            : code > 128     ? "signal " + std::to_string(code - 128)
                             : "exit " + std::to_string(code);
        return f;
    }
    std::ifstream result(out);
    const nlohmann::json doc = nlohmann::json::parse(result, nullptr, false);
    if (doc.is_discarded() || doc["nodes"].size() < lg.nodes.size()
        || doc["edges"].size() != lg.edges.size()) {
        f.note = "bad output";
        return f;
    }
    Layout layout;
    double left = std::numeric_limits<double>::max();
    double right = std::numeric_limits<double>::lowest();
    std::vector<std::pair<NodeId, LayoutRect>> rects;
    // Each edge's polyline as cubic segments (control points on the chord), by edge id.
    std::vector<std::pair<EdgeRef, std::pair<bool, std::vector<LayoutPoint>>>> routes;
    for (std::size_t i = 0; i < lg.nodes.size(); ++i) {
        const LayoutGraph::Node &n = lg.nodes[i];
        const double x = doc["nodes"][i][0].get<double>() - n.width / 2;
        const double y = doc["nodes"][i][1].get<double>() - n.height / 2;
        rects.emplace_back(n.id, LayoutRect { x, y, n.width, n.height });
        left = std::min(left, x);
        right = std::max(right, x + n.width);
    }
    for (std::size_t k = 0; k < lg.edges.size(); ++k) {
        const LayoutGraph::Edge &e = lg.edges[k];
        const nlohmann::json &pts = doc["edges"][k];
        std::vector<LayoutPoint> points;
        for (std::size_t i = 0; i + 1 < pts.size(); i += 2) {
            const LayoutPoint p { pts[i].get<double>(), pts[i + 1].get<double>() };
            left = std::min<double>(left, p.x);
            right = std::max<double>(right, p.x);
            if (!points.empty()) {
                points.push_back(points.back());
                points.push_back(p);
            }
            points.push_back(p);
        }
        routes.push_back({ EdgeRef { e.tensor, e.consumer }, { e.stub, std::move(points) } });
    }
    layout.nodes = FlatMap<NodeId, LayoutRect>::fromUnsorted(std::move(rects));
    std::sort(routes.begin(), routes.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &[key, route] : routes)
        layout.edges.append(key, route.second, {}, false, route.first);
    layout.bbox = { left, 0, right - left, 0 };
    return figuresOf(layout, doc["ms"].get<double>());
}

std::string cell(const Figures &f, double value, const char *format)
{
    if (!f.ok)
        return f.note;
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

void measure(const std::string &name, const Graph &graph, const std::string &dagreDir,
             int timeoutSeconds, const std::filesystem::path &tmp)
{
    const LayoutGraph lg = buildLayoutGraph(graph, graph.mainFunction());
    const LayoutResult mine = computeLayout(lg);
    Figures cleaveFigures;
    if (mine.isOk())
        cleaveFigures = figuresOf(*mine.layout, mine.milliseconds);
    if (const char *dump = std::getenv("CLEAVE_BENCH_DUMP"); dump != nullptr && mine.isOk())
        std::ofstream(std::string(dump) + "/" + name + ".layout.json")
            << layoutToJson(*mine.layout);
    else
        cleaveFigures.note = "failed";
    Figures dot;
    dot.note = "skipped";
    if (mine.isOk() && mine.layout->engine == "dot") {
        dot = cleaveFigures;
    } else if (lg.nodes.size() <= 3500) {
        LayoutSettings full;
        full.engine = "dot";
        const LayoutResult r = computeLayout(lg, full);
        if (r.isOk())
            dot = figuresOf(*r.layout, r.milliseconds);
        else
            dot.note = "failed";
    }
    const Figures dagre = layOutWithDagre(lg, dagreDir, timeoutSeconds, tmp);
    std::printf("%-22s %6zu %-12s %8s %9s %8s | %8s %9s %8s | %8s %9s %8s\n", name.c_str(),
                lg.nodes.size(), mine.isOk() ? mine.layout->engine.c_str() : "-",
                cell(cleaveFigures, cleaveFigures.ms, "%.0f").c_str(),
                cell(cleaveFigures, static_cast<double>(cleaveFigures.crossings), "%.0f").c_str(),
                cell(cleaveFigures, cleaveFigures.width, "%.0f").c_str(),
                cell(dot, dot.ms, "%.0f").c_str(),
                cell(dot, static_cast<double>(dot.crossings), "%.0f").c_str(),
                cell(dot, dot.width, "%.0f").c_str(), cell(dagre, dagre.ms, "%.0f").c_str(),
                cell(dagre, static_cast<double>(dagre.crossings), "%.0f").c_str(),
                cell(dagre, dagre.width, "%.0f").c_str());
    auto json = [](const Figures &f) {
        return f.ok
            ? nlohmann::json { { "ms", f.ms }, { "crossings", f.crossings }, { "width", f.width } }
            : nlohmann::json { { "error", f.note } };
    };
    const nlohmann::json line { { "bench", "quality" },
                                { "graph", name },
                                { "nodes", lg.nodes.size() },
                                { "edges", lg.edges.size() },
                                { "engine", mine.isOk() ? mine.layout->engine : "" },
                                { "cleave", json(cleaveFigures) },
                                { "dot", json(dot) },
                                { "dagre", json(dagre) } };
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> sizes { "3000", "10000", "30000" };
    std::vector<std::string> shapes { "resnet", "transformer", "inception", "densenet" };
    std::vector<std::string> corpusCases { "rnnt", "resnet50" };
    std::string dagreDir = CLEAVE_BENCH_DAGRE_DIR;
    int timeoutSeconds = 300;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string arg = argv[i];
        const std::string value = argv[i + 1];
        if (arg == "--sizes")
            sizes = splitList(value);
        else if (arg == "--shapes")
            shapes = splitList(value);
        else if (arg == "--corpus")
            corpusCases = splitList(value);
        else if (arg == "--dagre")
            dagreDir = value;
        else if (arg == "--timeout")
            timeoutSeconds = std::atoi(value.c_str());
        else {
            std::fprintf(stderr, "unknown option %s\n", arg.c_str());
            return 2;
        }
    }
    const std::filesystem::path tmp
        = std::filesystem::temp_directory_path() / "cleave-bench-quality";
    std::filesystem::create_directories(tmp);
    std::printf("%-22s %6s %-12s %8s %9s %8s | %8s %9s %8s | %8s %9s %8s\n", "graph", "nodes",
                "engine", "ms", "crossings", "width", "dot_ms", "dot_cross", "dot_wid", "dagre_ms",
                "dag_cross", "dag_wid");
    const std::string corpus = CLEAVE_CORPUS_DIR;
    for (const std::string &c : corpusCases) {
        if (c != "rnnt" && c != "resnet50")
            continue;
        const std::string file = c == "rnnt"
            ? corpus + "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt"
            : corpus + "/relay/resnet50-v2_onnx_tvm-collage-menagerie.relay.txt";
        ImportResult imported = importFile(file);
        if (!imported.ok()) {
            std::printf("%-22s SKIP: cannot read %s\n", c.c_str(), file.c_str());
            continue;
        }
        measure(c, *imported.graph, dagreDir, timeoutSeconds, tmp);
    }
    const std::vector<std::pair<std::string, std::function<std::unique_ptr<Graph>(std::size_t)>>>
        generators { { "resnet", bench::resnetShaped },
                     { "transformer", bench::transformerShaped },
                     { "inception", bench::inceptionShaped },
                     { "densenet", bench::denseNetShaped } };
    for (const std::string &size : sizes) {
        for (const auto &[shape, make] : generators) {
            if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end())
                continue;
            measure(shape + "_" + size, *make(std::stoul(size)), dagreDir, timeoutSeconds, tmp);
        }
    }
    if (std::getenv("CLEAVE_BENCH_KEEP") == nullptr)
        std::filesystem::remove_all(tmp);
    return 0;
}
