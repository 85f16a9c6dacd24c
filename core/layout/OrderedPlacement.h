// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"

#include <vector>

namespace cleave {

/// Coordinates and edge routes for a graph that Graphviz has ranked and ordered (`phase=2`):
/// `rank[i]` and `order[i]` are node i's rank and position within its rank (positions not
/// taken by a node belong to dot's virtual nodes of long edges). Linear time: each rank is
/// placed by a few median sweeps with order-preserving overlap removal (the average of a
/// left- and a right-justified packing), long edges are routed through the gaps dot left for
/// them, and every edge is a chain of vertical-tangent Bézier segments.
void placeOrderedLayout(const LayoutGraph &graph, const std::vector<int> &rank,
                        const std::vector<int> &order, Layout &layout);

} // namespace cleave
