// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/LayoutGraph.h"

#include <cstddef>
#include <vector>

namespace cleave {

/// Graphviz keeps ranks in 16-bit fields: a graph deeper than 32,767 ranks crashes it (2.42/2.43
/// in process). Graphs whose longest path reaches this many ranks are never handed to it.
inline constexpr std::size_t graphvizRankLimit = 20000;

/// The number of ranks of a longest-path ranking of `graph` (stub edges ignored): the depth
/// Graphviz would need at least. Linear time.
std::size_t longestPathDepth(const LayoutGraph &graph);

/// The number of positions an ordering of `graph` has to arrange: its nodes plus one virtual
/// position per rank crossed by each long edge, under rankAndOrder()'s ranking (stub edges
/// ignored). Graphviz's crossing minimisation works on as many; it takes 20-30 s on 2.5e5-6e5
/// of them (a 24k-node unrolled LSTM and its fused blocks). Linear time.
std::size_t orderingPositions(const LayoutGraph &graph);

/// rankAndOrder() stops sweeping after this many sweeps in a row without fewer crossings.
inline constexpr int sweepPatience = 4;

/// Cleave's own ranking and ordering, in linear time per sweep, for graphs too deep or too
/// large for Graphviz: longest-path ranks (sources moved down next to their first consumer,
/// then balanced by network simplex's single-node moves, greedily: a node with at least as
/// many out- as in-edges moves down towards its first successor, one with more in- than
/// out-edges up towards its last predecessor; nodes with no drawn edge on a rank 0 of their
/// own), one virtual position per rank crossed by a long edge, an initial depth-first order
/// that keeps chains together, then barycentre sweeps, alternately down and up (ties broken
/// left, then right, every two sweeps), until `sweeps` of them or `sweepPatience` in a row
/// without fewer crossings; the ordering with the fewest crossings, counted exactly, is kept
/// and finished by adjacent swaps that each remove crossings. `rank[i]` and `order[i]` are
/// filled like Graphviz's `phase=2` output (positions not taken by a node are the virtual
/// positions of long edges), ready for placeOrderedLayout().
void rankAndOrder(const LayoutGraph &graph, std::vector<int> &rank, std::vector<int> &order,
                  int sweeps = 24);

} // namespace cleave
