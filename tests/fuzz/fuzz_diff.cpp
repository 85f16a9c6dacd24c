// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: `cleave-cli diff` — two models imported from the input and compared node
// by node (core/graph/ModelDiff), both ways.
//
// Input: one flag byte, then model A, then optionally "\n%%\n" and model B; without B, A is
// compared with the small fixed model. Flag bits 0-1 and 2-3 choose the formats of A and B:
// Relay, Relax, TVM graph.json, ONNX (read from a folder that does not exist, so no external
// data).
#include "FuzzSupport.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/ModelDiff.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace {

std::unique_ptr<cleave::Graph> importAs(unsigned format, std::string_view bytes)
{
    static const char *const paths[]
        = { "/nonexistent-cleave-fuzz/a.relay", "/nonexistent-cleave-fuzz/a.relax.py",
            "/nonexistent-cleave-fuzz/a.graph.json", "/nonexistent-cleave-fuzz/a.onnx" };
    return cleave::importBytes(bytes, paths[format & 3]).graph;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const unsigned flags = data[0];
    std::string_view first(reinterpret_cast<const char *>(data) + 1, size - 1);
    std::string_view second;
    bool hasSecond = false;
    if (const auto cut = first.find("\n%%\n"); cut != std::string_view::npos) {
        second = first.substr(cut + 4);
        first = first.substr(0, cut);
        hasSecond = true;
    }
    const std::unique_ptr<cleave::Graph> a = importAs(flags, first);
    if (!a)
        return 0;
    std::unique_ptr<cleave::Graph> b;
    if (hasSecond) {
        b = importAs(flags >> 2, second);
        if (!b)
            return 0;
    }
    const cleave::Graph &other = b ? *b : cleave::fuzz::smallModel();
    const cleave::ModelDiff forward = cleave::diffModels(*a, other);
    const cleave::ModelDiff backward = cleave::diffModels(other, *a);
    // The same differences seen from the other side: as many nodes, added and removed swapped.
    if (forward.nodes.size() != backward.nodes.size()
        || forward.count(cleave::NodeDifference::Kind::Added)
            != backward.count(cleave::NodeDifference::Kind::Removed))
        __builtin_trap();
    (void)cleave::diffModels(*a, *a);
    return 0;
}
