// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Relax import throughput and peak memory on a generated ResNet-like module (≥ 50,000
// bindings written as TVM prints them: R.Tensor annotations with every conv2d attribute,
// metadata constants, R.call_tir of PrimFuncs with out_sinfo, a split into an R.Tuple and its
// fields, a tuple literal, R.prim_value), compared with the Relay importer on the equivalent
// Relay module (same blocks, `ty=` comments, meta constants), the print speed of both, and the
// import of real dumps (SAM ViT-H from the corpus by default, measured first). Peak memory is the
// growth of the resident set's high-water mark during one import (reset through
// /proc/self/clear_refs), on top of the text already in memory. Prints figures and one JSON line
// per module; asserts nothing. Usage: bench_relax_import [BLOCKS] [FILE...]
#include "BenchSupport.h"
#include "core/export/relax/RelaxPrinter.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/FormatRegistry.h"

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string relaxTensor = "R.Tensor((1, 64, 56, 56), dtype=\"float32\")";
const std::string relaxHalf = "R.Tensor((1, 32, 56, 56), dtype=\"float32\")";
const std::string relayTensor = "Tensor[(1, 64, 56, 56), float32]";
const std::string relayHalf = "Tensor[(1, 32, 56, 56), float32]";

// The two PrimFuncs the call_tir bindings call, with a TIR body as FuseTIR leaves it.
std::string primFunc(const std::string &name, const std::string &body)
{
    return "    @T.prim_func(private=True)\n    def " + name
        + "(x: T.Buffer((T.int64(1), T.int64(64), T.int64(56), T.int64(56)), \"float32\"), "
          "y: T.Buffer((T.int64(64), T.int64(1), T.int64(1)), \"float32\"), "
          "out: T.Buffer((T.int64(1), T.int64(64), T.int64(56), T.int64(56)), \"float32\")):\n"
          "        T.func_attr({\"op_pattern\": 0, \"tir.noalias\": True})\n"
          "        # with T.block(\"root\"):\n"
          "        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(64), T.int64(56), "
          "T.int64(56)):\n"
          "            with T.block(\"compute\"):\n"
          "                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap(\"SSSS\", [ax0, ax1, ax2, "
          "ax3])\n"
          "                T.reads(x[v_ax0, v_ax1, v_ax2, v_ax3], y[v_ax1, T.int64(0), "
          "T.int64(0)])\n"
          "                T.writes(out[v_ax0, v_ax1, v_ax2, v_ax3])\n"
          "                out[v_ax0, v_ax1, v_ax2, v_ax3] = "
        + body + "\n\n";
}

// One residual block is 10 bindings: conv2d (a metadata weight, every attribute), a batch-norm
// scale (multiply), an unannotated call_tir of a fused PrimFunc, a split into a tuple, its two
// fields, relu, a concat of a tuple literal, the residual add and a clip of two prim values.
std::string relax(int blocks, int &bindings)
{
    const std::string &t = relaxTensor;
    const std::string &h = relaxHalf;
    std::string out = "# from tvm.script import ir as I\n# from tvm.script import tir as T\n"
                      "# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n";
    out += primFunc("fused_add_relu",
                    "T.max(x[v_ax0, v_ax1, v_ax2, v_ax3] + y[v_ax1, T.int64(0), "
                    "T.int64(0)], T.float32(0))");
    out += primFunc("fused_multiply",
                    "x[v_ax0, v_ax1, v_ax2, v_ax3] * y[v_ax1, T.int64(0), "
                    "T.int64(0)]");
    out += "    @R.function\n    def main(data: " + t + ") -> " + t
        + ":\n        cls = Module\n        with R.dataflow():\n";
    int n = 0;
    int meta = 0;
    std::string prev = "data";
    auto name = [&](int k) { return "lv" + std::to_string(k); };
    auto constant
        = [&] { return "metadata[\"relax.expr.Constant\"][" + std::to_string(meta++) + "]"; };
    auto bind = [&](const std::string &type, const std::string &value) {
        out += "            " + name(n) + (type.empty() ? "" : ": " + type) + " = " + value + "\n";
        return name(n++);
    };
    for (int b = 0; b < blocks; ++b) {
        const std::string skip = prev;
        std::string x = bind(t,
                             "R.nn.conv2d(" + prev + ", " + constant()
                                 + ", strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], "
                                   "groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", "
                                   "out_layout=\"NCHW\", out_dtype=\"void\")");
        x = bind(t, "R.multiply(" + x + ", " + constant() + ")");
        x = bind("",
                 "R.call_tir(cls.fused_add_relu, (" + x + ", " + constant() + "), out_sinfo=" + t
                     + ")");
        const std::string parts = bind("R.Tuple(" + h + ", " + h + ")",
                                       "R.split(" + x + ", indices_or_sections=2, axis=1)");
        const std::string left = bind(h, parts + "[0]");
        const std::string right = bind(h, parts + "[1]");
        x = bind(h, "R.nn.relu(" + left + ")");
        x = bind(t, "R.concat((" + x + ", " + right + "), axis=1)");
        x = bind(t, "R.add(" + x + ", " + skip + ")");
        prev = bind(t, "R.clip(" + x + ", R.prim_value(0), R.prim_value(6))");
    }
    out += "            R.output(" + prev + ")\n        return " + prev + "\n";
    bindings = n;
    return out;
}

// The same blocks in Relay: the call_tir is an add, the tuple a split's result.
std::string relay(int blocks)
{
    const std::string &t = relayTensor;
    const std::string &h = relayHalf;
    std::string out = "#[version = \"0.0.5\"]\ndef @main(%data: " + t + ") -> " + t + " {\n";
    int n = 0;
    int meta = 0;
    std::string prev = "%data";
    auto constant = [&](const std::string &type) {
        return "meta[relay.Constant][" + std::to_string(meta++) + "] /* ty=" + type + " */";
    };
    auto bind = [&](const std::string &type, const std::string &value) {
        const std::string name = "%" + std::to_string(n++);
        out += "  " + name + " = " + value + " /* ty=" + type + " */;\n";
        return name;
    };
    const std::string w = "Tensor[(64, 64, 3, 3), float32]";
    const std::string s = "Tensor[(64, 1, 1), float32]";
    for (int b = 0; b < blocks; ++b) {
        const std::string skip = prev;
        std::string x = bind(t,
                             "nn.conv2d(" + prev + ", " + constant(w)
                                 + ", padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3])");
        x = bind(t, "multiply(" + x + ", " + constant(s) + ")");
        x = bind(t, "add(" + x + ", " + constant(s) + ")");
        const std::string parts
            = bind("(" + h + ", " + h + ")", "split(" + x + ", indices_or_sections=2, axis=1)");
        const std::string left = bind(h, parts + ".0");
        const std::string right = bind(h, parts + ".1");
        x = bind(h, "nn.relu(" + left + ")");
        x = bind(t, "concatenate((" + x + ", " + right + "), axis=1)");
        x = bind(t, "add(" + x + ", " + skip + ")");
        prev = bind(t, "clip(" + x + ", a_min=0f, a_max=6f)");
    }
    return out + "  " + prev + "\n}\n";
}

// Median, fastest and slowest of `runs` timings of `work`, in seconds, and the median CPU time of
// the thread (on a shared machine the wall time also counts the time other processes ran).
struct Timing
{
    double median = 0;
    double fastest = 0;
    double slowest = 0;
    double cpu = 0;
};

double threadCpuSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

Timing timingOf(const std::function<void()> &work, int runs)
{
    std::vector<double> times;
    std::vector<double> cpu;
    for (int i = 0; i < runs; ++i) {
        const double cpuStart = threadCpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        work();
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        cpu.push_back(threadCpuSeconds() - cpuStart);
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    return { times[times.size() / 2], times.front(), times.back(), cpu[cpu.size() / 2] };
}

// The resident set's high-water mark (VmHWM), in kilobytes; 0 when unreadable.
double peakKb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0)
            return std::atof(line.c_str() + 6);
    }
    return 0;
}

// Starts a new high-water mark at the current resident set (Linux: "5" to clear_refs).
void resetPeak()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
}

cleave::ImportResult importOrExit(const std::string &text, const std::string &path)
{
    cleave::ImportResult r = cleave::importBytes(text, path);
    if (!r.ok()) {
        std::fprintf(stderr, "import of %s failed: %s\n", path.c_str(), r.firstError().c_str());
        std::exit(2);
    }
    return r;
}

struct ImportFigures
{
    Timing seconds;
    std::size_t nodes = 0;
    double peakGrowthMb = 0; ///< High-water mark growth during one import.
};

// Memory first (one import on a trimmed heap), then the timed runs.
ImportFigures measureImport(const std::string &text, const std::string &path, int runs)
{
    ImportFigures f;
    malloc_trim(0);
    resetPeak();
    const double before = cleave::bench::residentKb();
    {
        const cleave::ImportResult r = importOrExit(text, path);
        f.nodes = r.graph->nodeCount();
    }
    f.peakGrowthMb = (peakKb() - before) / 1024.0;
    f.seconds = timingOf([&] { importOrExit(text, path); }, runs);
    return f;
}

void printImport(const char *label, std::size_t bytes, const ImportFigures &f, double bindings)
{
    const double mb = static_cast<double>(bytes) / 1e6;
    std::printf("  %s: %.2f MB, %zu nodes, %.1f ms (%.1f–%.1f)  →  %.1f MB/s (%.1f–%.1f)", label,
                mb, f.nodes, f.seconds.median * 1e3, f.seconds.fastest * 1e3,
                f.seconds.slowest * 1e3, mb / f.seconds.median, mb / f.seconds.slowest,
                mb / f.seconds.fastest);
    std::printf(", CPU %.1f MB/s", mb / f.seconds.cpu);
    if (bindings > 0)
        std::printf(", %.0f bindings/s", bindings / f.seconds.median);
    std::printf("; peak RSS +%.1f MiB (%.2f× the text)\n", f.peakGrowthMb,
                f.peakGrowthMb * 1024.0 * 1024.0 / static_cast<double>(bytes));
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

int main(int argc, char **argv)
{
    const int blocks = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5000;
    const int runs = 5;
    std::vector<std::string> files;
    for (int i = 2; i < argc; ++i)
        files.emplace_back(argv[i]);
    if (argc <= 2) {
        const std::string sam
            = std::string(CLEAVE_CORPUS_DIR) + "/relax/sam-vit-h_pytorch_metadata_2023.relax.py";
        if (std::filesystem::exists(sam))
            files.push_back(sam);
    }

    // The files first, while the heap holds nothing else: a resident set's growth depends on
    // what earlier imports left free.
    std::vector<std::pair<std::size_t, ImportFigures>> fileFigures;
    for (const std::string &file : files) {
        const std::string text = readFile(file);
        fileFigures.emplace_back(text.size(), measureImport(text, file, runs));
    }

    int bindings = 0;
    const std::string relaxText = relax(blocks, bindings);
    const ImportFigures relaxFigures = measureImport(relaxText, "generated.relax.py", runs);
    const std::string relayText = relay(blocks);
    const ImportFigures relayFigures = measureImport(relayText, "generated.relay", runs);
    const cleave::ImportResult relaxGraph = importOrExit(relaxText, "generated.relax.py");
    std::string printed;
    const Timing print = timingOf([&] { printed = cleave::printRelax(*relaxGraph.graph); }, 3);

    std::printf("generated ResNet-like module: %d bindings (median of %d runs, range)\n", bindings,
                runs);
    printImport("relax import", relaxText.size(), relaxFigures, bindings);
    printImport("relay import", relayText.size(), relayFigures, bindings);
    std::printf("  relax print:  %.1f ms  →  %.1f MB/s\n", print.median * 1e3,
                static_cast<double>(printed.size()) / 1e6 / print.median);
    std::printf(
        "{\"bench\": \"relax_import\", \"bindings\": %d, \"relax_bytes\": %zu, "
        "\"relax_import_ms\": %.2f, \"relax_mb_per_s\": %.2f, \"relax_cpu_mb_per_s\": %.2f, "
        "\"relax_peak_mib\": %.1f, "
        "\"relay_bytes\": %zu, \"relay_import_ms\": %.2f, \"relay_mb_per_s\": %.2f, "
        "\"relax_print_ms\": %.2f}\n",
        bindings, relaxText.size(), relaxFigures.seconds.median * 1e3,
        static_cast<double>(relaxText.size()) / 1e6 / relaxFigures.seconds.median,
        static_cast<double>(relaxText.size()) / 1e6 / relaxFigures.seconds.cpu,
        relaxFigures.peakGrowthMb, relayText.size(), relayFigures.seconds.median * 1e3,
        static_cast<double>(relayText.size()) / 1e6 / relayFigures.seconds.median,
        print.median * 1e3);

    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string &file = files[i];
        const auto &[bytes, f] = fileFigures[i];
        std::printf("%s\n", std::filesystem::path(file).filename().c_str());
        printImport("import", bytes, f, 0);
        std::printf("{\"bench\": \"relax_import_file\", \"file\": \"%s\", \"bytes\": %zu, "
                    "\"import_ms\": %.2f, \"mb_per_s\": %.2f, \"cpu_mb_per_s\": %.2f, "
                    "\"peak_mib\": %.1f}\n",
                    std::filesystem::path(file).filename().c_str(), bytes, f.seconds.median * 1e3,
                    static_cast<double>(bytes) / 1e6 / f.seconds.median,
                    static_cast<double>(bytes) / 1e6 / f.seconds.cpu, f.peakGrowthMb);
    }
    return 0;
}
