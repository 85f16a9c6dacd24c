// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"

#include <vector>

namespace cleave::relay {

/// Resolves `meta[...]` references against the graph's `#[metadata]` JSON (TVM's node-graph
/// format): types of `relay.Constant` nodes that have no `ty=` annotation, and the attributes
/// behind whole-attrs references (`meta[relay.attrs.BatchMatmulAttrs][0]`). A malformed section
/// only gives a warning: the text itself was readable.
/// Reads the #[metadata] section kept in `graph` (TVM's JSON object graph): the types of
/// `meta[relay.Constant][i]` constants and attributes stored by reference. Never trusts the
/// section's structure; problems are warnings at `where` (the section's header).
void applyMetadata(Graph &graph, const SourceLocation &where, std::vector<Diagnostic> &diagnostics);

} // namespace cleave::relay
