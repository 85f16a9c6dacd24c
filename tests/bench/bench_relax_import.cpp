// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Relax import throughput and peak memory on a generated ResNet-like module (about 100 MB by
// default, some 790,000 bindings written as TVM prints them: R.Tensor annotations with every conv2d
// attribute, metadata constants, R.call_tir of PrimFuncs with out_sinfo, a split into an R.Tuple
// and its fields, a tuple literal, R.prim_value), compared with the Relay importer on the
// equivalent Relay module (same blocks, `ty=` comments, meta constants), the print speed of both,
// and the import of real dumps (SAM ViT-H from the corpus by default, measured first). Peak memory
// is the growth of the resident set's high-water mark during one import (reset through
// /proc/self/clear_refs), on top of the text already in memory. Prints figures and one JSON line
// per module; asserts nothing. Usage: bench_relax_import [BLOCKS] [FILE...]   (FILEs replace SAM)
// CLEAVE_BENCH_SAVE_DIR=DIR also writes the generated modules to DIR.
#include "ImportBench.h"
#include "core/export/relax/RelaxPrinter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
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

// Blocks for a module of about `bytes` of text, from the size of 1,000 blocks.
int blocksFor(double bytes, const std::function<std::size_t(int)> &sizeOf)
{
    const double perBlock = static_cast<double>(sizeOf(1000)) / 1000.0;
    return std::max(1, static_cast<int>(bytes / perBlock + 0.5));
}

} // namespace

int main(int argc, char **argv)
{
    using namespace cleave::bench;
    int ignored = 0;
    const int blocks = argc > 1 ? std::max(1, std::atoi(argv[1]))
                                : blocksFor(100e6, [&](int n) { return relax(n, ignored).size(); });
    std::vector<std::string> files;
    for (int i = 2; i < argc; ++i)
        files.emplace_back(argv[i]);
    if (argc <= 2) {
        const std::string sam
            = std::string(CLEAVE_CORPUS_DIR) + "/relax/sam-vit-h_pytorch_metadata_2023.relax.py";
        if (std::filesystem::exists(sam))
            files.push_back(sam);
    }

    // Two small modules first, so the importers' code is paged in before any peak is measured
    // (a one-time cost of some megabytes that says nothing about the text being read).
    {
        int ignored = 0;
        importOrExit(relax(2, ignored), "warm-up.relax.py");
        importOrExit(relay(2), "warm-up.relay");
    }
    // The files first, while the heap holds nothing else: a resident set's growth depends on
    // what earlier imports left free.
    std::vector<ImportFigures> fileFigures;
    for (const std::string &file : files)
        fileFigures.push_back(measureImport(readWholeFile(file), file, 5));

    const int runs = 3;
    int bindings = 0;
    ImportFigures relaxFigures;
    std::string printed;
    Timing print;
    {
        const std::string relaxText = relax(blocks, bindings);
        relaxFigures = measureImport(relaxText, "generated.relax.py", runs);
        const cleave::ImportResult relaxGraph = importOrExit(relaxText, "generated.relax.py");
        print = timingOf([&] { printed = cleave::printRelax(*relaxGraph.graph); }, 1);
    }
    const std::size_t printedBytes = printed.size();
    printed = {};
    ImportFigures relayFigures;
    {
        const std::string relayText = relay(blocks);
        relayFigures = measureImport(relayText, "generated.relay", runs);
    }

    std::printf("generated ResNet-like module: %d bindings (median of %d runs, range)\n", bindings,
                runs);
    printImport("relax import", relaxFigures, bindings);
    printImport("relay import", relayFigures, bindings);
    std::printf("  relax print:  %.1f ms  →  %.1f MB/s\n", print.median * 1e3,
                static_cast<double>(printedBytes) / 1e6 / print.median);
    printImportJson("relax_import", "generated.relax.py", relaxFigures);
    printImportJson("relax_import", "generated.relay", relayFigures);

    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string name = std::filesystem::path(files[i]).filename().string();
        std::printf("%s\n", name.c_str());
        printImport("import", fileFigures[i], 0);
        printImportJson("relax_import_file", name, fileFigures[i]);
    }
    return 0;
}
