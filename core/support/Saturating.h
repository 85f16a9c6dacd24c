// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstdint>
#include <limits>

namespace cleave {

/// Largest count Cleave computes; element counts, bytes and FLOPs of absurd shapes such as
/// (99999999999, 99999999999) stop here instead of wrapping to 0 or negative values.
inline constexpr std::int64_t saturatedCount = std::numeric_limits<std::int64_t>::max();

/// a * b for non-negative counts, saturating at saturatedCount (negative inputs count as 0).
[[nodiscard]] inline std::int64_t satMul(std::int64_t a, std::int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? saturatedCount : r;
}

/// a + b for non-negative counts, saturating at saturatedCount (negative inputs count as 0).
[[nodiscard]] inline std::int64_t satAdd(std::int64_t a, std::int64_t b)
{
    a = a < 0 ? 0 : a;
    b = b < 0 ? 0 : b;
    std::int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? saturatedCount : r;
}

/// Takes back `b` from a running total `a` that satAdd built (b was added to it before): a total
/// that saturated stays saturated, since what it held is no longer known.
[[nodiscard]] inline std::int64_t satRelease(std::int64_t a, std::int64_t b)
{
    if (a == saturatedCount || b <= 0)
        return a;
    return a > b ? a - b : 0;
}

} // namespace cleave
