// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <cstddef>
#include <vector>

namespace cleave {

class Graph;

/// What one inferTypes() run did.
struct InferenceReport
{
    /// Nodes whose output type was Unknown and is now known (a tensor, tuple, function or named
    /// type; a tensor may still have `?` dims).
    std::size_t inferred = 0;
    /// Nodes whose output type is still Unknown after the run (of any kind: an unannotated
    /// tensor constant counts as well as an operator without a rule).
    std::size_t unknown = 0;
    /// The nodes counted in `unknown`, in ascending id order.
    std::vector<NodeId> unresolved;
};

/// Fills the output type of every node whose type is Unknown from the types of its inputs, for
/// models whose source carries no `/* ty= */` annotations. Annotated types are never touched
/// (nor any type that is already known).
///
/// Every function is walked in topological order. Operator calls use the rule of their operator
/// (see OpShapeRules.h); tuples, projections and scalar constants are typed structurally; a call
/// of a function takes the callee's declared return type, else the type of its result after the
/// callee has been inferred, and an unannotated parameter of a function literal takes the type
/// of the corresponding call argument. `if` and `match` take the type of their first branch
/// whose result is known. Nodes whose inputs stay unknown, or whose operator has no rule, stay
/// Unknown and are listed in the report.
///
/// Works before or after Graph::finalize(); no edges change, so the consumer index stays valid.
/// Without `listUnknown`, the report's `unknown` and `unresolved` stay empty, which saves a pass
/// over every node (importers, which only want the types).
InferenceReport inferTypes(Graph &graph, bool listUnknown = true);

} // namespace cleave
