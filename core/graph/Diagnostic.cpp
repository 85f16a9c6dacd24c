// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/Diagnostic.h"

#include <algorithm>

namespace cleave {

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
