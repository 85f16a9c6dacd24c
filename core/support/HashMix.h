// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <concepts>
#include <type_traits>

namespace cleave {

/// Mixes `value` into `seed` (boost's hash_combine with the 64-bit golden-ratio constant), for
/// hashes made of several fields; `value` converts to the seed's type. The result is the same on
/// every run: layout cache keys are built with it.
template <std::unsigned_integral T>
constexpr void hashMix(T &seed, std::type_identity_t<T> value)
{
    seed ^= value + static_cast<T>(0x9e3779b97f4a7c15ULL) + (seed << 6U) + (seed >> 2U);
}

} // namespace cleave
