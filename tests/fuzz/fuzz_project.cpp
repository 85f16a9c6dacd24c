// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: the project (.cleave, also recovery files) reader and its plan.
#include "FuzzSupport.h"
#include "core/project/ProjectFile.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const cleave::ProjectLoadResult r = cleave::projectFromJson(text, "/fuzz/p.cleave");
    if (r.project) {
        (void)cleave::resolveModelPath(*r.project, "/fuzz/p.cleave");
        (void)cleave::projectPlan(*r.project, cleave::fuzz::smallModel(), "/fuzz/p.cleave", true);
    }
    return 0;
}
