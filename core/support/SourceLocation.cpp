// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/SourceLocation.h"

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

} // namespace cleave
