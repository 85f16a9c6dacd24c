// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportOptions.h"
#include "core/graph/Diagnostic.h"
#include "core/partition/BoundaryTensors.h"
#include "core/session/EngineSettings.h"
#include "core/validation/Validation.h"

#include <string>
#include <vector>

namespace cleave {

class Graph;
class PartitionPlan;

/// A plan as the pipeline checked it: its boundary tensors and every finding, those given before
/// validation (a plan file's, an edit's) first, then those of the validation rules.
struct CheckedPlan
{
    BoundaryTable boundary;
    std::vector<Diagnostic> diagnostics;

    /// True when no finding is an error: the plan may be exported.
    [[nodiscard]] bool valid() const { return !hasErrors(diagnostics); }
};

/// The one owner of "plan → validate → export" for a model and its engine settings. The editor's
/// Document and every cleave-cli verb that checks or exports a plan go through it, so that both
/// check with the same options (the settings plus the capabilities of the model's module writer,
/// applied here and nowhere else) and an invalid plan is refused in one place.
class PlanPipeline
{
public:
    /// A pipeline for plans of `graph` (which must outlive it) checked with `settings`.
    PlanPipeline(const Graph &graph, EngineSettings settings);

    [[nodiscard]] const Graph &graph() const { return *m_graph; }
    [[nodiscard]] const EngineSettings &settings() const { return m_settings; }
    /// What the validation rules check: the settings' options with the writer's capabilities
    /// (applyWriterCapabilities). Points into the settings' tables.
    [[nodiscard]] const ValidationOptions &validationOptions() const { return m_validation; }

    /// The boundary of `plan` and every finding: `earlier` first, then validateAll's.
    [[nodiscard]] CheckedPlan check(const PartitionPlan &plan,
                                    std::vector<Diagnostic> earlier = {}) const;

    /// Checks `plan` again and, when it is valid, exports it into `dir` (exportPartitions): the
    /// settings give the parameters and whether constants are lifted, and the check's findings
    /// go to the manifest after `options.diagnostics` (findings from before validation). An invalid
    /// plan is refused: nothing is written, and the result holds an `export.invalid_plan` error
    /// followed by the plan's errors.
    [[nodiscard]] ExportResult exportPlan(const PartitionPlan &plan, ExportOptions options,
                                          const std::string &dir) const;

private:
    const Graph *m_graph;
    EngineSettings m_settings;
    ValidationOptions m_validation;
};

} // namespace cleave
