// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <optional>
#include <string>

namespace cleave {

/// Structural equality of two graphs, as import → print → import and the export recomposition
/// check need it: the same global functions (by name), each with the same parameters (names and
/// types), attributes and return type, and bodies that match node for node when walked from the
/// results and parameters — same kinds, ops, attributes, constants, types and edges (input order
/// and output index). Binding names of inner nodes, spans and source locations are ignored.
/// Returns nullopt when equal, else a sentence describing the first difference found.
std::optional<std::string> firstDifference(const Graph &a, const Graph &b);

} // namespace cleave
