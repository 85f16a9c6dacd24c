// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: the plan file reader, then validation of what it loaded.
#include "FuzzSupport.h"
#include "core/partition/PlanFile.h"
#include "core/validation/Validation.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    cleave::PlanLoadOptions options;
    options.force = true;
    const cleave::PlanLoadResult r
        = cleave::planFromJson(cleave::fuzz::smallModel(), text, "fuzz.plan.json", options);
    if (r.plan)
        (void)cleave::validateAll(*r.plan, cleave::ValidationOptions {});
    return 0;
}
