// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/SourceLocation.h"

#include <algorithm>
#include <utility>

namespace cleave {

std::string SourceLocation::toString() const
{
    std::string out = file;
    if (line > 0) {
        if (!out.empty())
            out += ':';
        out += std::to_string(line);
        if (column > 0)
            out += ':' + std::to_string(column);
    }
    return out;
}

SourceLocation locationAt(std::string_view text, std::size_t offset, std::string file)
{
    const std::string_view before = text.substr(0, offset);
    const auto line = std::count(before.begin(), before.end(), '\n');
    const std::size_t lineStart = before.rfind('\n');
    const std::size_t column
        = lineStart == std::string_view::npos ? before.size() : before.size() - lineStart - 1;
    return SourceLocation { std::move(file), static_cast<int>(line) + 1,
                            static_cast<int>(column) + 1 };
}

} // namespace cleave
