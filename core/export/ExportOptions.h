// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// Which files an export writes and how (docs/DESIGN.md §5.1). Every artefact is on by default.
struct ExportOptions
{
    bool modules = true; ///< One module file per partition (`mod<k>.relay`, `mod<k>.onnx`, ...).
    bool pipelineConfig = true; ///< `pipeline_config.json` (TVM pipeline executor schema).
    bool manifest = true; ///< `partitions.json` (Cleave's manifest; `verify` needs it).
    bool buildScript = true; ///< `build_pipeline.py` (TVM <= 0.18 build of the pipeline).
    bool byoc = true; ///< `byoc.relay` + `byoc_annotated.relay` when a partition has a BYOC target.
    /// Constants become trailing parameters of each module (in order of first use inside the
    /// partition, named `<module>_const_<i>`) instead of `meta[relay.Constant][i]` bodies.
    bool liftConstants = false;
    /// Names of global inputs that are parameters (weights) besides those detected as weight
    /// operands (weightInputs): they go to their modules through `param_connection`.
    std::vector<std::string> params;
    /// Overrides the partitions' targets, by position (empty entries keep the plan's target).
    std::vector<std::string> targets;
    /// Module format: "relay" (default) or any name listed by moduleExporters().
    std::string moduleFormat = "relay";
    /// Diagnostics of the plan at export time (validation findings), copied to the manifest.
    std::vector<Diagnostic> diagnostics;
    /// A cost model's predicted time of each partition (plan order) in microseconds: compute
    /// plus the stage's fixed run time, transfers apart. Written as partitions.json
    /// `predicted_us`, which run_pipeline.py --bench prints beside the measured times; empty
    /// when the plan did not come from a cost model.
    std::vector<double> predictedUs;
    /// What made predictedUs ("latency table (onnxruntime 1.30.0, ...)", "FLOPs"): the
    /// manifest's `cost_model`.
    std::string costModel;
    /// Export into a non-empty folder that is not a previous Cleave export (it has no
    /// `.cleave-export` list of owned files). Files Cleave did not write are kept either way.
    bool force = false;
    /// For tests: called with the name of each step of the folder swap (ExportFolder.h); when
    /// it returns false the export stops dead there, as if the process had been killed.
    std::function<bool(std::string_view step)> stepHook;
    /// For tests: swap folders by two renames (the fallback) instead of one
    /// renameat2(RENAME_EXCHANGE).
    bool noExchange = false;
};

/// What an export did: `ok` when every file was written and the folder swapped in place;
/// `files` lists the written file names (relative to the folder) in writing order.
struct ExportResult
{
    bool ok = false;
    std::vector<std::string> files;
    std::vector<Diagnostic> diagnostics;
};

} // namespace cleave
