// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: the ONNX importer (protobuf parsing, attribute guards, libonnx shape
// inference, graph building). The model "lives" in a folder that does not exist, so external
// data can never be read.
#include "core/io/onnx/OnnxImporter.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    const cleave::OnnxImporter importer;
    (void)importer.importBytes(bytes, "/nonexistent-cleave-fuzz/model.onnx");
    return 0;
}
