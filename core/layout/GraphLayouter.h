// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace cleave {

/// How a layout is computed.
///
/// Engines: up to `fullDotLimit` drawn nodes Graphviz `dot` does the whole layout (ranks,
/// order, coordinates, splines): the best drawing, 0.03-0.2 s at 1k nodes (ResNet-50: 30 ms),
/// but 1-2 s for some 1.1k-1.5k-node models of the corpus (transformers, training graphs).
/// Above it `dot` only ranks and orders the nodes (`phase=2`, 0.04-0.2 s at 3k-10k nodes) and
/// Cleave assigns coordinates and routes the edges itself in linear time: a full `dot` takes
/// 20-45 s at 10k nodes because 75-80% of its time goes to network-simplex x-positioning
/// (measured with tests/bench/bench_layout).
///
/// Settings and why: `newrank=true` skips a quadratic clean-up of the old ranking (identical
/// output, 1.2-1.3x faster); from `tuneLimit` nodes on, `nslimit` = `nslimit1` = 0.01 and
/// `mclimit` = 0.5 bound network simplex and crossing minimisation (3.6x on transformer-shaped,
/// 23x on Inception-shaped graphs at 10k nodes; the shared-mask transformer: 80 s -> 0.85 s at
/// 1k nodes), and `mclimit` = 0.05 past 10k nodes (a 24k-node unrolled LSTM: 15 s -> 5.7 s);
/// `splines=spline`: curved and routed around nodes (`ortho` is several times slower and
/// ignores ports, `polyline` is no faster). Values read by more than
/// LayoutGraphOptions::stubFanout ops become local stubs.
///
/// Graphs deeper than graphvizRankLimit ranks (Graphviz crashes past 32,767), with more than
/// `graphvizNodeLimit` drawn nodes or with more than `graphvizOrderingLimit` positions to order
/// (nodes plus the virtual positions of long edges, orderingPositions()) are never handed to
/// Graphviz: Cleave ranks and orders them itself in linear time per sweep (rankAndOrder(),
/// engine "cleave-order") and places them like "dot-order". The last bound is what decides
/// on real recurrent models: a 24k-node unrolled LSTM (6.1e5 positions) and its 6.9k fused
/// blocks (2.5e5) take 20-30 s in dot's crossing minimisation, Cleave's ordering 0.1-0.3 s.
/// Below the bound dot's ordering costs at most about 0.6 s (10k-node ResNet-, transformer-
/// and Inception-shaped graphs hold 1.2e4-1.8e4 positions: 0.2-0.5 s) and is kept for its
/// fewer crossings; a 30k-node ResNet's 20k fused blocks (3.7e4) took 0.9 s in dot.
struct LayoutSettings
{
    std::size_t fullDotLimit = 1000;
    std::size_t tuneLimit = 400;
    std::size_t graphvizNodeLimit = 60000;
    std::size_t graphvizOrderingLimit = 30000;
    /// Force one engine: "dot", "dot-order", "cleave-order", or empty for the automatic choice
    /// above. A graph too deep for Graphviz gets "cleave-order" whatever is forced.
    std::string engine;
};

/// Cancellation and progress for one layout. Graphviz itself cannot be interrupted: the cancel
/// flag is checked between the phases (building the graph, laying out, reading back), so a
/// cancelled layout stops at the end of the phase it is in. Run layouts on a worker thread.
struct LayoutControl
{
    const std::atomic<bool> *cancel = nullptr;
    /// Called with a percentage (0-100) and the phase's name; may be called from the thread
    /// running the layout.
    std::function<void(int percent, const std::string &phase)> progress;

    [[nodiscard]] bool isCancelled() const { return cancel != nullptr && cancel->load(); }
    void report(int percent, const std::string &phase) const
    {
        if (progress)
            progress(percent, phase);
    }
};

/// The outcome of a layout.
struct LayoutResult
{
    enum class Status { Ok, Cancelled, Failed };
    Status status = Status::Failed;
    std::shared_ptr<const Layout> layout; ///< Set when Ok.
    std::string message; ///< Why it failed or was cancelled.
    bool fromCache = false;
    double milliseconds = 0; ///< Wall time of the computation (0 for cache hits).

    [[nodiscard]] bool isOk() const { return status == Status::Ok; }
};

/// Lays out a drawn graph (top to bottom) with Graphviz, in process through libgvc/cgraph.
/// Thread-safe: cgraph is not, so calls are serialised by one process-wide mutex (one layout at
/// a time; a second caller waits). Never throws.
LayoutResult computeLayout(const LayoutGraph &graph, const LayoutSettings &settings = {},
                           const LayoutControl &control = {});

/// The engine computeLayout() picks for `graph`: "dot", "dot-order" or "cleave-order".
std::string chooseEngine(const LayoutGraph &graph, const LayoutSettings &settings);

/// The DOT text computeLayout() hands to Graphviz for `graph` with `engine` (benchmarks run
/// `dot -Tjson` on it for comparison).
std::string layoutGraphToDot(const LayoutGraph &graph, const std::string &engine,
                             const LayoutSettings &settings = {});

class LayoutCache;

/// The key computeLayoutCached() stores the layout of `graph` under.
std::string layoutCacheKey(const std::string &modelKey, const LayoutGraph &graph,
                           const LayoutSettings &settings = {});

/// The editor's path: the layout of `graph` from `cache` (memory, then disk) when present,
/// else computeLayout() and store it. `cache` may be nullptr; `modelKey` identifies the model
/// (its checksum).
LayoutResult computeLayoutCached(LayoutCache *cache, const std::string &modelKey,
                                 const LayoutGraph &graph, const LayoutSettings &settings = {},
                                 const LayoutControl &control = {});

} // namespace cleave
