// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: the Relax TVMScript importer (lexer, parser, metadata header, lowering into
// the graph model, shape and type annotations).
#include "core/io/relax/RelaxImporter.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    const cleave::RelaxImporter importer;
    (void)importer.importBytes(bytes, "fuzz.relax.py");
    return 0;
}
