// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Shared by the libFuzzer harnesses: the small model the plan and project readers are fuzzed
// against.
#pragma once

#include "core/formats/FormatRegistry.h"
#include "core/graph/Graph.h"

#include <cstdlib>
#include <memory>

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

} // namespace cleave::fuzz
