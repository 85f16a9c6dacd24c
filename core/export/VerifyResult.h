// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"

#include <string>
#include <vector>

namespace cleave {

/// Result of the recomposition check of an exported folder.
struct VerifyResult
{
    bool ok = false; ///< The recomposed graph is isomorphic to the source model.
    bool badInput = false; ///< The folder could not be read (missing / malformed files).
    std::string firstDifference; ///< When not ok: the first difference, or the input problem.
    std::vector<Diagnostic> diagnostics;
};

} // namespace cleave
