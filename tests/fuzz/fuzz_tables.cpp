// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: the JSON side files — latency tables (with profile.py's calibration and
// provenance), op-support lists, op patterns, pipeline run reports (run_pipeline.py --json).
// The first byte chooses the reader, the rest is the file.
#include "FuzzSupport.h"
#include "core/analysis/LatencyTable.h"
#include "core/analysis/OpPattern.h"
#include "core/formats/PipelineRunReport.h"
#include "core/validation/Validation.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);
    std::vector<cleave::Diagnostic> found;
    switch (data[0] % 4) {
    case 0:
        if (const auto table = cleave::LatencyTable::fromJson(text, "fuzz.latency.json", found)) {
            const cleave::Graph &g = cleave::fuzz::smallModel();
            for (std::size_t i = 0; i < g.nodeCount(); ++i)
                (void)table->latency(g, cleave::NodeId(i));
        }
        break;
    case 1:
        (void)cleave::parseOpSupport(std::string(text), "fuzz.ops.json", found);
        break;
    case 2: {
        cleave::OpPatternTable patterns = cleave::OpPatternTable::builtin();
        (void)patterns.loadJson(text, "fuzz.patterns.json", found);
        break;
    }
    default: {
        std::string error;
        (void)cleave::parsePipelineRunReport(text, "fuzz.bench.json", error);
        break;
    }
    }
    return 0;
}
