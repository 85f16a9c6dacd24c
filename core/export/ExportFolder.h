// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportOptions.h"
#include "core/graph/Diagnostic.h"

#include <string>
#include <utility>
#include <vector>

namespace cleave {

/// Name of the list of files Cleave wrote, kept in every export folder: one file name a line
/// after the header line `cleave-export 1`. Only the files it lists are ever replaced or
/// removed by a later export; everything else in the folder is the user's and is kept.
inline constexpr const char *exportOwnedList = ".cleave-export";

/// Writes `files` (name, content) as the export folder `dir`, crash-safely:
///  0. an exclusive flock(2) on `.<dir>.lock` beside `dir` (the file stays) is held for the
///     whole export: a second export into the same folder meanwhile fails with `export.busy`
///     and writes nothing;
///  1. leftovers of an interrupted export beside `dir` (`.<dir>.tmp-N`, `.<dir>.old-N`) are
///     removed — or, when `dir` is missing and one `.old-N` exists, it is the previous export
///     the fallback swap had moved away, and it is put back first;
///  2. a non-empty `dir` without `.cleave-export` is refused unless `options.force`;
///  3. the files and `.cleave-export` are written into `.<dir>.tmp-N` beside `dir` and synced,
///     and the user's files of `dir` (those not listed in its `.cleave-export`) are linked or
///     copied in — FIFOs and sockets linked, never opened. A user's file named like one the
///     export writes is never replaced, even with `options.force`: the export is refused;
///  4. the new folder replaces `dir` in ONE step: renameat2(RENAME_EXCHANGE) on Linux, so that
///     at every instant `dir` is either the old folder or the new one, complete. Where the
///     file system cannot exchange (or with options.noExchange), the fallback is two renames:
///     `dir` → `.<dir>.old-N`, then the new folder → `dir`; a crash between them leaves the old
///     export in `.<dir>.old-N`, which step 1 of the next export restores;
///  5. the old folder (now at the temporary name) is removed.
/// Step names passed to options.stepHook: "cleaned", "created", "wrote <file>", "listed",
/// "carried", "moved-old" (fallback only), "swapped", "removed-old". On failure returns false
/// with an `export.io` diagnostic that says where the previous content is.
/// When the fallback swap was used, an info diagnostic `export.fallback_swap` says so and where
/// an interruption between its two renames would have left the previous export.
bool writeExportFolder(const std::vector<std::pair<std::string, std::string>> &files,
                       const std::string &dir, const ExportOptions &options,
                       std::vector<Diagnostic> &diagnostics);

/// The previous export an interrupted fallback swap left beside a missing `dir`
/// (`.<dir>.old-N`), or empty: `verify` and the next export say where it is.
std::string interruptedExportOf(const std::string &dir);

} // namespace cleave
