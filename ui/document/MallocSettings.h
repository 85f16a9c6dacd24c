// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

namespace cleave::ui {

/// The size from which malloc gives a block pages of its own, kept fixed.
inline constexpr int mallocMmapThreshold = 1024 * 1024;
/// The trim threshold the editor gives malloc: free memory beyond this much at the top of a
/// heap goes back to the system.
inline constexpr int mallocTrimThreshold = 2 * 1024 * 1024;

/// Applies the editor's malloc settings, once at start, before a model is opened: fixed mmap
/// and trim thresholds (mallocMmapThreshold, mallocTrimThreshold). Left dynamic, glibc's mmap
/// threshold rises to the largest block freed (up to 32 MiB): once a model's big arrays are
/// freed, later ones come from the heaps, and their pages stay resident after they are freed
/// in turn. Fixed, a block of a megabyte or more has pages of its own, given back when it is
/// freed; smaller ones are served from the heaps' pages without faulting new ones in.
/// Returns true when applied (glibc only; elsewhere nothing is set).
bool applyMallocSettings();

} // namespace cleave::ui
