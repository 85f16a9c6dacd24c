// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>

namespace cleave {

/// Gives the whole pages inside [`begin`, `begin + bytes`) back to the system, as the unused
/// room of a buffer reserved from an estimate: the memory stays allocated and valid, its
/// contents are lost (a page written again starts as zeros), and it no longer counts as
/// resident. Moving the used part into a fitting buffer instead would hold both copies at once.
/// The partial pages at either end are left alone (they may hold other data). Returns the bytes
/// released; 0 where the system cannot do this (only Linux's madvise is used).
std::size_t releasePages(void *begin, std::size_t bytes);

} // namespace cleave
