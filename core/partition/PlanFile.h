// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"
#include "core/partition/PartitionPlan.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// How strictly a plan file is matched against the model.
struct PlanLoadOptions
{
    bool force = false; ///< Accept a plan made for a model with another checksum (warning).
    /// When the plan is the object at `embeddedAt` (a JSON pointer such as "/plan") inside a
    /// larger file whose text is `enclosingText` (a project), diagnostics point into that file.
    std::string_view enclosingText;
    std::string embeddedAt;
};

/// A loaded plan and everything worth saying about the file. `plan` is set whenever the file
/// could be read, so that callers can show what it holds; `ok()` says whether it is usable.
struct PlanLoadResult
{
    std::optional<PartitionPlan> plan;
    std::vector<Diagnostic> diagnostics;
    /// Where each partition of `plan` (by index, the file's order) is in the file: the `{` of
    /// its entry in "partitions". Empty without a plan.
    std::vector<SourceLocation> partitionLocations;

    [[nodiscard]] bool ok() const { return plan.has_value() && !hasErrors(diagnostics); }
};

/// Points the findings about `plan` that carry no position (validation's, which know
/// partitions and nodes, not files) at the entry in the plan file of the partition they are
/// about: the diagnostic's partition, else the partition of its first node. `locations` are
/// PlanLoadResult::partitionLocations of the file `plan` was read from; findings about no
/// partition, and partitions made after the load (an index past `locations`), keep no position.
void locatePlanFindings(std::vector<Diagnostic> &diagnostics, const PartitionPlan &plan,
                        const std::vector<SourceLocation> &locations);

/// The plan file (JSON, version 1):
/// ```
/// {"cleave_plan": 1,
///  "model": {"path": "resnet18.relay", "checksum": "<sha-256 hex>"},
///  "function": "main",
///  "partitions": [{"name": "stage0", "target": "llvm", "nodes": ["%0", "%1", ...]}, ...],
///  "cut_edges": [{"producer": "%3", "output": 0, "consumer": "%4"}]}
/// ```
/// Nodes are named by their stable keys (Graph::key); partitions are listed in plan order;
/// `cut_edges` (optional) are the edges cut lines crossed, kept for the implied-edge warnings.
nlohmann::json planToJson(const PartitionPlan &plan);

/// Reads a plan for `graph` from JSON text. Diagnostics (codes `plan.*`) name `path`: invalid
/// JSON (with line and column), wrong version, unknown function, checksum mismatch (an error
/// unless forced), unknown node keys, nodes listed twice, nodes that cannot be assigned, and
/// operator nodes the file leaves out (warning; validation reports them as unassigned).
PlanLoadResult planFromJson(const Graph &graph, std::string_view text, const std::string &path,
                            const PlanLoadOptions &options = {});

/// Reads a plan file from disk (see planFromJson).
PlanLoadResult loadPlanFile(const Graph &graph, const std::string &path,
                            const PlanLoadOptions &options = {});

/// Writes the plan atomically (a temporary file renamed over `path`). Returns false and sets
/// `error` when the file cannot be written; an existing file is then left untouched.
bool savePlanFile(const PartitionPlan &plan, const std::string &path, std::string *error = nullptr);

} // namespace cleave
