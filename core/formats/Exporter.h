// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportOptions.h"
#include "core/export/VerifyResult.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <string>

namespace cleave {

/// Exports a plan into the folder `dir` (docs/DESIGN.md §5): module files, pipeline_config.json,
/// partitions.json, build_pipeline.py and, for BYOC targets, byoc.relay and
/// byoc_annotated.relay, as `options` selects. Atomic: everything is written into a temporary
/// folder beside `dir` which then replaces it; on failure an existing `dir` is left as it was.
/// `boundary` must be computeBoundary(plan). Never throws.
ExportResult exportPartitions(const PartitionPlan &plan, const BoundaryTable &boundary,
                              const ExportOptions &options, const std::string &dir);

/// Re-imports the module files of an exported folder, wires them by pipeline_config.json and
/// compares the result with the source model named in partitions.json (docs/DESIGN.md §5.4
/// recomposition check). The module format is read from the manifest.
VerifyResult verifyExport(const std::string &dir);

} // namespace cleave
