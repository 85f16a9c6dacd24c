// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// What several benchmark programs share: their --cases lists, the process' resident set and
// live heap.
#pragma once

#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace cleave::bench {

/// The items of a comma-separated list ("rnnt,gen10000" → {"rnnt", "gen10000"}).
inline std::vector<std::string> commaList(const std::string &list)
{
    std::vector<std::string> items;
    for (std::size_t pos = 0; pos < list.size();) {
        const std::size_t comma = list.find(',', pos);
        items.push_back(list.substr(pos, comma - pos));
        pos = comma == std::string::npos ? list.size() : comma + 1;
    }
    return items;
}

/// The process' resident set now, in kilobytes (/proc/self/statm); 0 when unreadable.
inline double residentKb()
{
    std::FILE *statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr)
        return 0;
    unsigned long size = 0;
    unsigned long resident = 0;
    const int read = std::fscanf(statm, "%lu %lu", &size, &resident);
    std::fclose(statm);
    return read == 2
        ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1024.0
        : 0.0;
}

/// Live heap now, in MiB (malloc's own count: what is allocated, not what the process keeps):
/// the blocks in the arenas and those big enough to have pages of their own (mmapped, which
/// uordblks leaves out: how many are depends on malloc's threshold, not on what is held).
inline double heapMb()
{
    const struct mallinfo2 info = mallinfo2();
    return static_cast<double>(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
}

} // namespace cleave::bench
