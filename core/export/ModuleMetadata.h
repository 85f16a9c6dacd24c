// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The constants and metadata of a module written from a TVM source (Relay, Relax): the steps
// their module writers share.
#pragma once

#include "core/export/ModuleExporter.h"
#include "core/export/PartitionModule.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// A source reference's index in the source's constant table (`meta[relay.Constant][3]` → 3).
using ConstantIndexFn = std::function<std::optional<std::size_t>(const std::string &)>;
/// The source's metadata cut down to the constants listed (source indices, in module order);
/// nullopt when the source's metadata cannot be read.
using MetadataSubsetFn = std::function<std::optional<std::string>(
    const std::string &, const std::vector<std::size_t> &)>;

/// Lists every constant of `module` in `summary` and returns the source table index (read by
/// `index`) of each one the module still references, in module order: the constants its
/// metadata must keep.
std::vector<std::size_t> summarizeConstants(const Graph &source, const PartitionModule &module,
                                            const ConstantIndexFn &index, ModuleSummary &summary);

/// Gives `module` the source's metadata cut down to the `kept` constants. When `subset` cannot
/// read it, the module carries the source's metadata unchanged and an `export.metadata` warning
/// says so (`what` names the metadata, `#[metadata] section`; `file` the module's file).
void keepMetadataSubset(const Graph &source, const std::vector<std::size_t> &kept,
                        const MetadataSubsetFn &subset, const std::string &what,
                        const std::string &file, Graph &module,
                        std::vector<Diagnostic> &diagnostics);

} // namespace cleave
