// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cleave {

/// The indices 0..n-1 sorted by `less` (which compares two indices): an order to read or write
/// parallel arrays in without sorting a copy of their elements.
template <typename Less>
std::vector<std::uint32_t> sortedIndices(std::size_t n, Less less)
{
    std::vector<std::uint32_t> indices(n);
    for (std::size_t i = 0; i < n; ++i)
        indices[i] = static_cast<std::uint32_t>(i);
    std::sort(indices.begin(), indices.end(), less);
    return indices;
}

} // namespace cleave
