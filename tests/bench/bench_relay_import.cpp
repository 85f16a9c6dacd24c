// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Relay import throughput and peak memory on a generated ResNet-like module (about 100 MB by
// default, some 820,000 bindings: residual skip connections, `ty=` comments and meta constants
// as TVM prints them), and on the 24k-binding rnnt corpus dump when it is present (measured
// first). Peak memory is the growth of the resident set's high-water mark during one import, on
// top of the text already in memory (ImportBench.h). Then the Graph's own memory: the live heap an
// imported model holds (mallinfo2 bytes in use: uordblks + hblkhd, after minus before) per node,
// for rnnt and every corpus model, and the sizes of the node and type structs. Prints figures and
// JSON lines; asserts nothing. Also how many distinct output-type lists each import adds to the
// process-wide pool (TypeList: entries are never freed).
// Usage: bench_relay_import [BLOCKS] [FILE...]   (FILEs are measured after the corpus models)
// CLEAVE_BENCH_SAVE_DIR=DIR also writes the generated module to DIR/generated.relay.
#include "ImportBench.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/Graph.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

std::size_t liveHeap()
{
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd; // bytes in use: heap chunks plus mmapped blocks
}

// The heap an imported model keeps alive (the source text is read before the first sample).
void printGraphMemory(const std::filesystem::path &path)
{
    const std::string text = cleave::bench::readWholeFile(path.string());
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
    using namespace cleave::bench;
    int bindings = 0;
    const double perBlock = static_cast<double>(generate(1000, bindings).size()) / 1000.0;
    const int blocks
        = argc > 1 ? std::max(1, std::atoi(argv[1])) : static_cast<int>(100e6 / perBlock + 0.5);

    // One small module first, so the import's code is paged in before any peak is measured (a
    // one-time cost of some megabytes that says nothing about the text being read; it adds
    // only three output-type lists to the process-wide pool).
    {
        int ignored = 0;
        importOrExit(generate(2, ignored), "warm-up.relay");
    }
    // rnnt next, while the heap holds nothing else.
    const std::string rnnt
        = std::string(CLEAVE_CORPUS_DIR) + "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt";
    ImportFigures rnntFigures;
    const bool haveRnnt = std::filesystem::exists(rnnt);
    if (haveRnnt)
        rnntFigures = measureImport(readWholeFile(rnnt), rnnt, 5);
    const std::size_t rnntLists = cleave::TypeList::poolSize();

    ImportFigures generated;
    std::size_t printedBytes = 0;
    Timing print;
    {
        const std::string text = generate(blocks, bindings);
        generated = measureImport(text, "generated.relay", 3);
        const cleave::ImportResult graph = importOrExit(text, "generated.relay");
        std::string printed;
        print = timingOf([&] { printed = cleave::printRelay(*graph.graph); }, 1);
        printedBytes = printed.size();
    }

    std::printf("generated ResNet-like module: %d bindings (median of 3 runs, range)\n", bindings);
    printImport("import", generated, bindings);
    std::printf("  print:  %.1f ms  →  %.1f MB/s\n", print.median * 1e3,
                static_cast<double>(printedBytes) / 1e6 / print.median);
    std::printf("  distinct output-type lists: %zu\n", cleave::TypeList::poolSize() - rnntLists);
    printImportJson("relay_import", "generated.relay", generated);
    if (haveRnnt) {
        std::printf("rnnt corpus dump (23,931 bindings; median of 5 runs, range)\n");
        printImport("import", rnntFigures, 23931);
        std::printf("  distinct output-type lists it adds: %zu\n", rnntLists);
        printImportJson("relay_import", "rnnt", rnntFigures);
    }
    printGraphMemory({ argv + std::min(argc, 2), argv + argc });
    return 0;
}
