// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cleave {

/// A position in a source file. Lines and columns are 1-based; 0 means "unknown".
struct SourceLocation
{
    std::string file;
    int line = 0;
    int column = 0;

    [[nodiscard]] bool isValid() const { return line > 0; }
    /// `file:line:column` (parts that are unknown are left out).
    [[nodiscard]] std::string toString() const;

    friend bool operator==(const SourceLocation &a, const SourceLocation &b) = default;
};

/// The 1-based line and byte column of byte `offset` in `text`, in `file`: for errors found
/// by offset (counted from the text only when one is reported).
SourceLocation locationAt(std::string_view text, std::size_t offset, std::string file = {});

} // namespace cleave
