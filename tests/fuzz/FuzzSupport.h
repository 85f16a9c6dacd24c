// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Shared by the libFuzzer harnesses: the small model the plan and project readers are fuzzed
// against.
#pragma once

#include "core/formats/FormatRegistry.h"
#include "core/graph/Graph.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace cleave::fuzz {

/// A two-branch Relay model (six operators) whose node keys %0..%5 the seed plans name.
inline const Graph &smallModel()
{
    static const std::unique_ptr<Graph> graph = [] {
        ImportResult r
            = importBytes("#[version = \"0.0.5\"]\n"
                          "def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(8, 8), float32]) {\n"
                          "  %0 = nn.dense(%x, %w, units=None);\n"
                          "  %1 = nn.relu(%0);\n"
                          "  %2 = add(%1, %0);\n"
                          "  %3 = (%2, %1);\n"
                          "  %4 = %3.0;\n"
                          "  %5 = multiply(%4, %3.1);\n"
                          "  nn.softmax(%5)\n"
                          "}\n",
                          "fuzz.relay");
        if (!r.graph)
            std::abort(); // the harness itself is broken
        return std::move(r.graph);
    }();
    return *graph;
}

/// The sections of a harness input, separated by "\n%%\n": at most `most`, the last one taking
/// the rest of the input (separators and all).
inline std::vector<std::string_view> sections(std::string_view text, std::size_t most)
{
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < most) {
        const std::size_t cut = text.find("\n%%\n");
        if (cut == std::string_view::npos)
            break;
        parts.push_back(text.substr(0, cut));
        text.remove_prefix(cut + 4);
    }
    parts.push_back(text);
    return parts;
}

/// A harness input made of a flag byte and then sections (see sections()); nullopt when empty.
struct FlaggedInput
{
    unsigned flags = 0;
    std::vector<std::string_view> parts;

    /// The section `i`, or an empty one when the input has fewer.
    [[nodiscard]] std::string_view part(std::size_t i) const
    {
        return i < parts.size() ? parts[i] : std::string_view();
    }
};

inline std::optional<FlaggedInput> flaggedInput(const std::uint8_t *data, std::size_t size,
                                                std::size_t most)
{
    if (size == 0)
        return std::nullopt;
    return FlaggedInput { data[0],
                          sections({ reinterpret_cast<const char *>(data) + 1, size - 1 }, most) };
}

} // namespace cleave::fuzz
