// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cleave {

/// The value of `digits` when it is a canonical decimal of 1 to `maxDigits` digits (0-9 only: no
/// sign, no leading zero unless it is `0`), else none. Names numbered by a printer (`%12`, `lv3`,
/// `meta[relay.Constant][7]`) use it: `012` is another name than `12`, so it is not a number.
/// `maxDigits` is at most 9, so the value fits 32 bits.
inline std::optional<std::uint32_t> canonicalDecimal(std::string_view digits,
                                                     std::size_t maxDigits = 9)
{
    if (digits.empty() || digits.size() > maxDigits || digits.size() > 9
        || (digits[0] == '0' && digits.size() > 1))
        return std::nullopt;
    std::uint32_t value = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + static_cast<std::uint32_t>(c - '0');
    }
    return value;
}

} // namespace cleave
