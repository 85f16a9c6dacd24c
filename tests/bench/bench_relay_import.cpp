// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Relay import throughput on a generated ResNet-like module (≥ 50,000 bindings, residual skip
// connections, `ty=` comments and meta constants as TVM prints them), and on the 24k-binding
// rnnt corpus dump when it is present. Then the Graph's own memory: the live heap an imported
// model holds (mallinfo2 bytes in use: uordblks + hblkhd, after minus before) per node, for rnnt
// and every corpus model, and the sizes of the node and type structs. Prints figures and JSON
// lines; asserts nothing. Also how many distinct output-type lists each import adds to the
// process-wide pool (TypeList: entries are never freed).
// Usage: bench_relay_import [BLOCKS] [FILE...]   (FILEs are measured after the corpus models)
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/Graph.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string tensorType(int c, int hw)
{
    return "Tensor[(1, " + std::to_string(c) + ", " + std::to_string(hw) + ", " + std::to_string(hw)
        + "), float32]";
}

// One residual block is 10 bindings: conv, bn multiply/add, relu, conv, bn multiply/add, add, relu.
std::string generate(int blocks, int &bindings)
{
    std::string out = "#[version = \"0.0.5\"]\n";
    const int c = 64;
    const int hw = 56;
    const std::string t = tensorType(c, hw);
    out += "def @main(%data: " + t + ") -> " + t + " {\n";
    int n = 0;
    int meta = 0;
    std::string prev = "%data";
    auto bind = [&](const std::string &expr) {
        const std::string name = "%" + std::to_string(n++);
        out += "  " + name + " = " + expr + " /* ty=" + t + " */;\n";
        return name;
    };
    auto constant = [&](const std::string &type) {
        return "meta[relay.Constant][" + std::to_string(meta++) + "] /* ty=" + type + " */";
    };
    const std::string w = "Tensor[(64, 64, 3, 3), float32]";
    const std::string s = "Tensor[(64, 1, 1), float32]";
    for (int b = 0; b < blocks; ++b) {
        const std::string skip = prev;
        std::string x = bind("nn.conv2d(" + prev + ", " + constant(w)
                             + ", padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3])");
        x = bind("multiply(" + x + ", " + constant(s) + ")");
        x = bind("add(" + x + ", " + constant(s) + ")");
        x = bind("nn.relu(" + x + ")");
        x = bind("nn.conv2d(" + x + ", " + constant(w)
                 + ", padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3])");
        x = bind("multiply(" + x + ", " + constant(s) + ")");
        x = bind("add(" + x + ", " + constant(s) + ")");
        x = bind("add(" + x + ", " + skip + ")");
        x = bind("nn.relu(" + x + ")");
        prev = bind("clip(" + x + ", a_min=0f, a_max=6f)");
    }
    out += "  " + prev + "\n}\n";
    bindings = n;
    return out;
}

double secondsOf(const std::function<void()> &work, int runs)
{
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

std::size_t liveHeap()
{
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd; // bytes in use: heap chunks plus mmapped blocks
}

std::string readFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// The heap an imported model keeps alive (the source text is read before the first sample).
void printGraphMemory(const std::filesystem::path &path)
{
    const std::string text = readFile(path);
    const std::size_t listsBefore = cleave::TypeList::poolSize();
    malloc_trim(0);
    const std::size_t before = liveHeap();
    const cleave::ImportResult r = cleave::importBytes(text, path.string());
    malloc_trim(0);
    const std::size_t after = liveHeap();
    if (!r.ok() || !r.graph)
        return;
    const std::size_t nodes = r.graph->nodeCount();
    const double bytes = after > before ? static_cast<double>(after - before) : 0.0;
    const std::size_t lists = cleave::TypeList::poolSize() - listsBefore;
    std::printf("  %-70s %7zu nodes %8.2f MB %7.0f B/node %6zu new type lists\n",
                path.filename().string().c_str(), nodes, bytes / 1e6,
                nodes ? bytes / static_cast<double>(nodes) : 0.0, lists);
    std::printf("{\"bench\": \"graph_memory\", \"model\": \"%s\", \"nodes\": %zu, \"heap_bytes\": "
                "%.0f, \"new_type_lists\": %zu}\n",
                path.filename().string().c_str(), nodes, bytes, lists);
}

void printGraphMemory(const std::vector<std::filesystem::path> &extra)
{
    std::printf("graph memory: sizeof Node %zu, Type %zu, Dim %zu, AttrValue %zu, Function %zu\n",
                sizeof(cleave::Node), sizeof(cleave::Type), sizeof(cleave::Dim),
                sizeof(cleave::AttrValue), sizeof(cleave::Function));
    std::printf("live heap held by the imported model (after minus before import):\n");
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (const char *dir : { "relay", "graph_json", "relax" }) {
        const fs::path folder = fs::path(CLEAVE_CORPUS_DIR) / dir;
        std::error_code ec;
        for (const fs::directory_entry &e : fs::directory_iterator(folder, ec)) {
            if (e.is_regular_file() && e.path().extension() != ".md")
                files.push_back(e.path());
        }
    }
    std::sort(files.begin(), files.end());
    files.insert(files.end(), extra.begin(), extra.end());
    for (const fs::path &f : files)
        printGraphMemory(f);
    std::printf("type lists pooled by this process: %zu\n", cleave::TypeList::poolSize());
}

} // namespace

int main(int argc, char **argv)
{
    const int blocks = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5000;
    int bindings = 0;
    const std::string text = generate(blocks, bindings);
    const double mb = static_cast<double>(text.size()) / 1e6;

    std::size_t nodes = 0;
    const double importSeconds = secondsOf(
        [&] {
            const cleave::ImportResult r = cleave::importBytes(text, "generated.relay");
            if (!r.ok()) {
                std::fprintf(stderr, "import failed: %s\n", r.firstError().c_str());
                std::exit(2);
            }
            nodes = r.graph->nodeCount();
        },
        3);
    const cleave::ImportResult graph = cleave::importBytes(text, "generated.relay");
    std::string printed;
    const double printSeconds = secondsOf([&] { printed = cleave::printRelay(*graph.graph); }, 3);

    std::printf("generated ResNet-like module: %d bindings, %zu nodes, %.2f MB\n", bindings, nodes,
                mb);
    std::printf("  import: %.1f ms  →  %.1f MB/s, %.0f bindings/s\n", importSeconds * 1e3,
                mb / importSeconds, bindings / importSeconds);
    std::printf("  print:  %.1f ms  →  %.1f MB/s\n", printSeconds * 1e3,
                static_cast<double>(printed.size()) / 1e6 / printSeconds);
    const std::size_t generatedLists = cleave::TypeList::poolSize();
    std::printf("  distinct output-type lists: %zu\n", generatedLists);

    double rnntSeconds = -1;
    const std::string rnnt
        = std::string(CLEAVE_CORPUS_DIR) + "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt";
    std::ifstream in(rnnt, std::ios::binary);
    if (in) {
        std::stringstream buffer;
        buffer << in.rdbuf();
        const std::string rnntText = buffer.str();
        rnntSeconds = secondsOf([&] { (void)cleave::importBytes(rnntText, rnnt); }, 3);
        std::printf("rnnt corpus dump (23,931 bindings, %.2f MB): import %.1f ms → %.1f MB/s\n",
                    static_cast<double>(rnntText.size()) / 1e6, rnntSeconds * 1e3,
                    static_cast<double>(rnntText.size()) / 1e6 / rnntSeconds);
        std::printf("  distinct output-type lists it adds: %zu\n",
                    cleave::TypeList::poolSize() - generatedLists);
    }
    std::printf(
        "{\"bench\": \"relay_import\", \"bindings\": %d, \"bytes\": %zu, \"import_ms\": %.2f, "
        "\"mb_per_s\": %.2f, \"bindings_per_s\": %.0f, \"print_ms\": %.2f, \"rnnt_import_ms\": "
        "%.2f}\n",
        bindings, text.size(), importSeconds * 1e3, mb / importSeconds, bindings / importSeconds,
        printSeconds * 1e3, rnntSeconds * 1e3);
    printGraphMemory({ argv + std::min(argc, 2), argv + argc });
    return 0;
}
