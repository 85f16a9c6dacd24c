// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/support/SourceLocation.h"

#include <optional>
#include <string>
#include <vector>

namespace cleave {

enum class Severity { Info, Warning, Error };

/// One finding: a parse error, a validation rule violation, a warning. Codes are stable strings
/// such as `relay.syntax` or `partition.cycle` that tests and tools can match.
struct Diagnostic
{
    Severity severity = Severity::Error;
    std::string code;
    std::string message;
    std::vector<NodeId> nodes;
    std::optional<PartitionId> partition;
    SourceLocation where;

    /// `file:line:col: error: message [code]` as compilers print it.
    [[nodiscard]] std::string toString() const;

    /// A diagnostic without a source location (plan edits, validation, conversions).
    static Diagnostic make(Severity severity, std::string code, std::string message,
                           std::vector<NodeId> nodes = {},
                           std::optional<PartitionId> partition = std::nullopt)
    {
        Diagnostic d;
        d.severity = severity;
        d.code = std::move(code);
        d.message = std::move(message);
        d.nodes = std::move(nodes);
        d.partition = partition;
        return d;
    }
};

/// Name of a severity as printed: "error", "warning", "info".
const char *severityName(Severity s);

/// True if any diagnostic in the list is an error.
bool hasErrors(const std::vector<Diagnostic> &diagnostics);

} // namespace cleave
