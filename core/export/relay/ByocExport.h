// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportModel.h"

#include <string>

namespace cleave {

/// The whole model as BYOC passes leave it (docs/DESIGN.md §5.1; TVM's MergeComposite,
/// AnnotateTarget, MergeCompilerRegions and PartitionGraph): `byoc` is the PartitionGraph form
/// (each partition whose target is a BYOC compiler becomes the global
/// `@tvmgen_default_<compiler>_main_<i>` with Compiler=, Primitive=1, Inline=1,
/// global_symbol= and parameters `<compiler>_<i>_i<k>`, called from @main; the other
/// partitions stay inline); `annotated` is the same model with `annotation.compiler_begin` on
/// every value entering a BYOC partition and `annotation.compiler_end` on every value leaving
/// it. Each partition is its own region, so consecutive regions of one compiler stay apart.
/// Returns false (with `error`) when the modules cannot be wired.
bool byocModules(const ExportModel &model, std::string &byoc, std::string &annotated,
                 std::string &error);

/// True when some partition of the model targets a BYOC compiler.
bool hasByocPartition(const ExportModel &model);

} // namespace cleave
