// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// An edit that resolves a finding, which the editor offers as an action and the CLI prints as
/// advice. `action` is a stable id: `mark_params` (treat the global inputs named in
/// `arguments` as parameters, fed to each module through `param_connection`).
struct DiagnosticFix
{
    std::string action;
    std::string label; ///< What the action says ("Treat data as a parameter").
    std::vector<std::string> arguments;

    friend bool operator==(const DiagnosticFix &, const DiagnosticFix &) = default;
};

/// The fix a diagnostic offers, or nullopt. `pipeline.routed_input` and
/// `pipeline.shared_global_input` name the global input as their first node and offer
/// `mark_params` for it.
std::optional<DiagnosticFix> diagnosticFix(const Graph &graph, const Diagnostic &diagnostic);

} // namespace cleave
