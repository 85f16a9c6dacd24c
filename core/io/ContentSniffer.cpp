// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/ContentSniffer.h"

#include <array>

namespace cleave {

namespace {

struct Signature
{
    std::string_view magic;
    std::size_t offset;
    const char *what;
};

// Magic numbers of files people pick by mistake (pictures, documents, archives, other
// frameworks' model formats). None of them can start Relay text, a graph.json or an ONNX
// protobuf (whose first byte is a field tag such as 0x08).
constexpr std::array<Signature, 12> signatures { {
    { std::string_view("\x89PNG\r\n\x1a\n", 8), 0, "this is a PNG image" },
    { std::string_view("\xff\xd8\xff", 3), 0, "this is a JPEG image" },
    { "GIF87a", 0, "this is a GIF image" },
    { "GIF89a", 0, "this is a GIF image" },
    { "%PDF-", 0, "this is a PDF document" },
    { std::string_view("PK\x03\x04", 4), 0,
      "this is a ZIP archive (unpack it, or export the model to ONNX first)" },
    { std::string_view("\x1f\x8b", 2), 0, "this is a gzip-compressed file (decompress it first)" },
    { std::string_view("\x7f"
                       "ELF",
                       4),
      0, "this is an executable program" },
    { std::string_view("\x89HDF\r\n\x1a\n", 8), 0,
      "this is an HDF5 file (a Keras model?); export it to ONNX first" },
    { std::string_view("\x93NUMPY", 6), 0, "this is a NumPy array, not a model" },
    { "TFL3", 4, "this is a TensorFlow Lite model; export it to ONNX first" },
    { "SQLite format 3", 0, "this is an SQLite database" },
} };

} // namespace

std::optional<std::string> foreignContent(std::string_view content)
{
    if (content.empty())
        return std::string("the file is empty");
    if (content.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos)
        return std::string("the file holds only white space");
    const std::string_view head = content.substr(0, 64);
    for (const Signature &s : signatures) {
        if (head.size() >= s.offset + s.magic.size()
            && head.substr(s.offset, s.magic.size()) == s.magic)
            return std::string(s.what)
                + ", not a model Cleave can read (Relay text, TVM graph.json "
                  "or ONNX)";
    }
    return std::nullopt;
}

} // namespace cleave
