// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Loading what the commands work on (the model, a plan, op-support lists, latencies, op
// patterns), in one place: each loader prints its diagnostics to the error stream and tells
// the command whether it can go on.
#pragma once

#include "app/cli/CliArguments.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/LatencyTable.h"
#include "core/analysis/OpPattern.h"
#include "core/graph/Graph.h"
#include "core/partition/PartitionPlan.h"
#include "core/session/EngineSettings.h"
#include "core/validation/Validation.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cleave::cli {

/// Imports the model; prints its diagnostics to `err`. Null when it cannot be used.
std::unique_ptr<Graph> importModel(const std::string &path, std::ostream &err);

/// The function `--function NAME` names (a Relax module has several), or an invalid id for the
/// model's main function when the flag is absent. False, with the reason printed, when the
/// model has no dataflow function of that name.
bool chooseFunction(const Graph &graph, const Arguments &args, const std::string &model,
                    FunctionId &function, std::ostream &err);

/// Loads the plan file named by `--plan` (honouring `--force`); prints what went wrong. Load
/// warnings are kept in `notes` to be reported with the validation findings; `locations`, when
/// given, gets where each partition is in the file (for locatePlanFindings).
std::optional<PartitionPlan> loadPlan(const Graph &graph, const Arguments &args,
                                      std::vector<Diagnostic> &notes, std::ostream &err,
                                      std::vector<SourceLocation> *locations = nullptr);

/// The engine settings the flags give, as the editor's Cost & Targets dialog sets them: op-support
/// lists (`--op-support`), the latency table (`--latency`), the op patterns (`--op-patterns`),
/// the fusion flags (`--fold-batch-norm`, `--transparent-stop-fusion`), `--lift-constants`, and,
/// when `plan` is given, the parameter names (`--params`, each an input of the plan's function,
/// and the plan file's "params"). Nullopt, with the problems printed to `err`, when a file cannot
/// be used. A PlanPipeline made from them checks and exports as the editor does.
std::optional<EngineSettings> loadEngineSettings(const Arguments &args, const PartitionPlan *plan,
                                                 std::ostream &err);

/// JSON as the commands print it (`--json`): indented by 2; bytes that are not UTF-8 (names from
/// a hostile model) are replaced, never a reason to abort.
std::string jsonText(const nlohmann::json &value);

} // namespace cleave::cli
