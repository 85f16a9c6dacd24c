// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/session/PlanPipeline.h"

#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/PartitionPlan.h"

namespace cleave {

PlanPipeline::PlanPipeline(const Graph &graph, EngineSettings settings)
    : m_graph(&graph)
    , m_settings(std::move(settings))
    , m_validation(m_settings.validationOptions())
{
    applyWriterCapabilities(graph, m_validation);
}

CheckedPlan PlanPipeline::check(const PartitionPlan &plan, std::vector<Diagnostic> earlier) const
{
    CheckedPlan checked;
    checked.boundary = computeBoundary(plan);
    checked.diagnostics = std::move(earlier);
    for (Diagnostic &d : validateAll(plan, checked.boundary, m_validation))
        checked.diagnostics.push_back(std::move(d));
    return checked;
}

ExportResult PlanPipeline::exportPlan(const PartitionPlan &plan, ExportOptions options,
                                      const std::string &dir) const
{
    CheckedPlan checked = check(plan, std::move(options.diagnostics));
    if (!checked.valid()) {
        ExportResult refused;
        std::size_t errors = 0;
        for (const Diagnostic &d : checked.diagnostics)
            errors += d.severity == Severity::Error ? 1 : 0;
        refused.diagnostics.push_back(Diagnostic::make(
            Severity::Error, "export.invalid_plan",
            "the plan is invalid (" + std::to_string(errors) + (errors == 1 ? " error" : " errors")
                + "), so nothing was exported; " + dir + " was left as it was"));
        for (Diagnostic &d : checked.diagnostics) {
            if (d.severity == Severity::Error)
                refused.diagnostics.push_back(std::move(d));
        }
        return refused;
    }
    options.params = m_settings.params;
    options.liftConstants = m_settings.liftConstants;
    options.diagnostics = std::move(checked.diagnostics);
    return exportPartitions(plan, checked.boundary, options, dir);
}

} // namespace cleave
