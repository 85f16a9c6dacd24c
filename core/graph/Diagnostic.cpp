// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/Diagnostic.h"

#include <algorithm>

namespace cleave {

std::string SourceLocation::toString() const
{
    std::string out = file;
    if (line > 0) {
        if (!out.empty())
            out += ':';
        out += std::to_string(line);
        if (column > 0)
            out += ':' + std::to_string(column);
    }
    return out;
}

const char *severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "error";
}

std::string Diagnostic::toString() const
{
    std::string out = where.toString();
    if (!out.empty())
        out += ": ";
    out += severityName(severity);
    out += ": ";
    out += message;
    if (!code.empty())
        out += " [" + code + "]";
    return out;
}

bool hasErrors(const std::vector<Diagnostic> &diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic &d) { return d.severity == Severity::Error; });
}

} // namespace cleave
