// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/DiagnosticFix.h"

#include "core/partition/BoundaryTensors.h"

namespace cleave {

std::optional<DiagnosticFix> diagnosticFix(const Graph &graph, const Diagnostic &diagnostic)
{
    if (diagnostic.code != "pipeline.routed_input"
        && diagnostic.code != "pipeline.shared_global_input")
        return std::nullopt;
    if (diagnostic.nodes.empty() || !diagnostic.nodes.front().isValid()
        || diagnostic.nodes.front().index() >= graph.nodeCount()
        || graph.node(diagnostic.nodes.front()).kind != NodeKind::Input)
        return std::nullopt;
    const std::string name = globalInputName(graph, diagnostic.nodes.front());
    return DiagnosticFix { "mark_params", "Treat " + name + " as a parameter", { name } };
}

} // namespace cleave
