// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/support/SourceLocation.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// Turns byte offsets of a JSON text into file:line:column locations, and finds where the
/// elements of a top-level array start. nlohmann::json keeps no positions, so the graph.json
/// importer uses this to point its diagnostics at the offending node.
class JsonLocator
{
public:
    /// Indexes the line starts of `text`; `file` is copied into every location.
    JsonLocator(std::string_view text, std::string file);

    /// The 1-based line and column (in bytes) of `offset`; offsets past the end map to the end.
    [[nodiscard]] SourceLocation at(std::size_t offset) const;

    /// Byte offsets of the elements of the array stored under `key` in the top-level object of
    /// `text` (`"nodes": [ {...}, {...} ]` → the offset of each `{`). Empty when there is no
    /// such array. The text is scanned, not parsed: it must already be valid JSON.
    [[nodiscard]] static std::vector<std::size_t> arrayElementOffsets(std::string_view text,
                                                                      std::string_view key);

private:
    std::vector<std::size_t> m_lineStarts;
    std::size_t m_size = 0;
    std::string m_file;
};

} // namespace cleave
