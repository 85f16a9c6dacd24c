// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/MallocSettings.h"

#include <cstdlib> // defines __GLIBC__ with glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cleave::ui {

// Measured on rnnt (bench_editor, max RSS / level_warm / level_back): 176 -> ~165 MB, the
// level switch unchanged. Other settings tried: a 128 KiB mmap threshold saves ~15 MB but
// every block from 128 KiB up then faults fresh pages in, which slows the UI thread's level
// switch at times (level_back up to +25 ms); one arena (M_ARENA_MAX 1) saves ~20 MB but slows
// the level switch by a third (the UI thread's allocations wait for the workers'); two arenas
// save nothing; malloc_trim(0) after each worker job saves ~24 MB but also releases the UI
// thread's free pages, which its next level switch faults in again (+10 to +40 ms).
bool applyMallocSettings()
{
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, mallocMmapThreshold) == 1
        && mallopt(M_TRIM_THRESHOLD, mallocTrimThreshold) == 1;
#else
    return false;
#endif
}

} // namespace cleave::ui
