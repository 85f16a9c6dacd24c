// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: the Relay text importer (lexer, parser, metadata, shape inference).
#include "core/io/relay/RelayImporter.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    const cleave::RelayImporter importer;
    (void)importer.importBytes(bytes, "fuzz.relay");
    return 0;
}
