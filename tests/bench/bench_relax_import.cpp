// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Relax import throughput on a generated ResNet-like module (≥ 50,000 bindings with their
// R.Tensor annotations and metadata constants, as TVM prints them), compared with the Relay
// importer on the equivalent Relay module (same blocks, `ty=` comments, meta constants), and
// the print speed of both. Prints figures and one JSON line; asserts nothing.
#include "core/export/relax/RelaxPrinter.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/formats/FormatRegistry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

// One residual block is 10 bindings: conv, bn multiply/add, relu, conv, bn multiply/add, add,
// relu, clip. `bind` writes one binding of an expression built from the previous value.
struct Block
{
    std::string op;
    std::string attrs;
    bool constant = false;
};

const std::vector<Block> &blockOps()
{
    static const std::vector<Block> ops = {
        { "nn.conv2d", "padding=[1, 1, 1, 1]", true },
        { "multiply", "", true },
        { "add", "", true },
        { "nn.relu", "", false },
        { "nn.conv2d", "padding=[1, 1, 1, 1]", true },
        { "multiply", "", true },
        { "add", "", true },
        { "add", "", false },
        { "nn.relu", "", false },
        { "clip", "", false },
    };
    return ops;
}

std::string relax(int blocks, int &bindings)
{
    const std::string t = "R.Tensor((1, 64, 56, 56), dtype=\"float32\")";
    std::string out = "# from tvm.script import ir as I\n# from tvm.script import tir as T\n"
                      "# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
                      "    @R.function\n    def main(data: "
        + t + ") -> " + t
        + ":\n"
          "        with R.dataflow():\n";
    int n = 0;
    int meta = 0;
    std::string prev = "data";
    for (int b = 0; b < blocks; ++b) {
        const std::string skip = prev;
        for (std::size_t i = 0; i < blockOps().size(); ++i) {
            const Block &op = blockOps()[i];
            std::string args = prev;
            if (op.constant)
                args += ", metadata[\"relax.expr.Constant\"][" + std::to_string(meta++) + "]";
            if (i == 7)
                args += ", " + skip;
            if (op.op == "clip")
                args += ", R.prim_value(0), R.prim_value(6)";
            if (!op.attrs.empty())
                args += ", " + op.attrs;
            const std::string name = "lv" + std::to_string(n++);
            out += "            " + name + ": " + t + " = R." + op.op + "(" + args + ")\n";
            prev = name;
        }
    }
    out += "            R.output(" + prev + ")\n        return " + prev + "\n";
    bindings = n;
    return out;
}

std::string relay(int blocks)
{
    const std::string t = "Tensor[(1, 64, 56, 56), float32]";
    std::string out = "#[version = \"0.0.5\"]\ndef @main(%data: " + t + ") -> " + t + " {\n";
    int n = 0;
    int meta = 0;
    std::string prev = "%data";
    for (int b = 0; b < blocks; ++b) {
        const std::string skip = prev;
        for (std::size_t i = 0; i < blockOps().size(); ++i) {
            const Block &op = blockOps()[i];
            std::string args = prev;
            if (op.constant)
                args += ", meta[relay.Constant][" + std::to_string(meta++) + "] /* ty=" + t + " */";
            if (i == 7)
                args += ", " + skip;
            if (op.op == "clip")
                args += ", a_min=0f, a_max=6f";
            if (!op.attrs.empty())
                args += ", " + op.attrs;
            const std::string name = "%" + std::to_string(n++);
            out += "  " + name + " = " + op.op + "(" + args + ") /* ty=" + t + " */;\n";
            prev = name;
        }
    }
    return out + "  " + prev + "\n}\n";
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

double importSeconds(const std::string &text, const char *path, std::size_t &nodes)
{
    return secondsOf(
        [&] {
            const cleave::ImportResult r = cleave::importBytes(text, path);
            if (!r.ok()) {
                std::fprintf(stderr, "import of %s failed: %s\n", path, r.firstError().c_str());
                std::exit(2);
            }
            nodes = r.graph->nodeCount();
        },
        3);
}

} // namespace

int main(int argc, char **argv)
{
    const int blocks = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5000;
    int bindings = 0;
    const std::string relaxText = relax(blocks, bindings);
    const std::string relayText = relay(blocks);
    std::size_t relaxNodes = 0;
    std::size_t relayNodes = 0;
    const double relaxSeconds = importSeconds(relaxText, "generated.relax.py", relaxNodes);
    const double relaySeconds = importSeconds(relayText, "generated.relay", relayNodes);
    const cleave::ImportResult relaxGraph = cleave::importBytes(relaxText, "generated.relax.py");
    std::string printed;
    const double printSeconds
        = secondsOf([&] { printed = cleave::printRelax(*relaxGraph.graph); }, 3);

    const double relaxMb = static_cast<double>(relaxText.size()) / 1e6;
    const double relayMb = static_cast<double>(relayText.size()) / 1e6;
    std::printf("generated ResNet-like module: %d bindings\n", bindings);
    std::printf("  relax import: %.2f MB, %zu nodes, %.1f ms  →  %.1f MB/s, %.0f bindings/s\n",
                relaxMb, relaxNodes, relaxSeconds * 1e3, relaxMb / relaxSeconds,
                bindings / relaxSeconds);
    std::printf("  relay import: %.2f MB, %zu nodes, %.1f ms  →  %.1f MB/s, %.0f bindings/s\n",
                relayMb, relayNodes, relaySeconds * 1e3, relayMb / relaySeconds,
                bindings / relaySeconds);
    std::printf("  relax print:  %.1f ms  →  %.1f MB/s\n", printSeconds * 1e3,
                static_cast<double>(printed.size()) / 1e6 / printSeconds);
    std::printf("{\"bench\": \"relax_import\", \"bindings\": %d, \"relax_bytes\": %zu, "
                "\"relax_import_ms\": %.2f, "
                "\"relax_mb_per_s\": %.2f, \"relay_bytes\": %zu, \"relay_import_ms\": %.2f, "
                "\"relay_mb_per_s\": %.2f, \"relax_print_ms\": %.2f}\n",
                bindings, relaxText.size(), relaxSeconds * 1e3, relaxMb / relaxSeconds,
                relayText.size(), relaySeconds * 1e3, relayMb / relaySeconds, printSeconds * 1e3);
    return 0;
}
