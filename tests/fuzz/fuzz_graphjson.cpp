// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: the TVM graph.json importer.
#include "core/io/graphjson/GraphJsonImporter.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    const cleave::GraphJsonImporter importer;
    (void)importer.importBytes(bytes, "fuzz.graph.json");
    return 0;
}
