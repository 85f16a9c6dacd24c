// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/MemoryPages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace cleave {

std::size_t releasePages(void *begin, std::size_t bytes)
{
#if defined(__linux__)
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (begin == nullptr || pageSize <= 0)
        return 0;
    const auto page = static_cast<std::uintptr_t>(pageSize);
    const auto start = reinterpret_cast<std::uintptr_t>(begin);
    const std::uintptr_t first = (start + page - 1) / page * page;
    const std::uintptr_t last = (start + bytes) / page * page;
    if (last <= first)
        return 0;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the address of memory the caller owns
    void *const from = reinterpret_cast<void *>(first);
    if (madvise(from, last - first, MADV_DONTNEED) != 0)
        return 0;
    return last - first;
#else
    (void)begin;
    (void)bytes;
    return 0;
#endif
}

} // namespace cleave
