// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/graph/FunctionView.h"
#include "core/graph/Graph.h"
#include "core/partition/BlockGraph.h"
#include "ui/support/WorkerThreads.h"

#include <QObject>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace cleave {
class LayoutCache;
struct LayoutGraph;
} // namespace cleave

namespace cleave::ui {

class RegionGeometryStore;

/// The Fused Blocks level of a graph, made off the UI thread: the collapsed block graph, its
/// drawn graph and function view, and whether its layout went into the cache it was prepared
/// for.
struct PreparedLevel
{
    std::string key; ///< The layout key of the level (LevelView::layoutKey() at that level).
    std::shared_ptr<const cleave::Graph> source; ///< The graph the blocks were collapsed from.
    std::shared_ptr<const cleave::BlockGraph> blocks;
    std::shared_ptr<const cleave::LayoutGraph> drawn; ///< blocks->graph as the canvas draws it.
    /// The main function of blocks->graph viewed, for the conversion of plans to this level.
    std::shared_ptr<const cleave::FunctionView> view;
    bool laidOut = false; ///< The layout is in the cache (memory, and disk when it has one).
    double cpuMs = 0; ///< The worker's CPU time (collapse, drawn graph, layout, regions).
};

/// Collapses the blocks of `function` of `graph` (`expanded` ones left open) into `level`: its
/// block graph, drawn graph and function view. What the worker prepares, and what the switch
/// makes itself when nothing was prepared. False, with `level` part-filled, when `cancel` (may
/// be null) is raised between the steps.
bool collapseLevel(PreparedLevel &level, const cleave::Graph &graph, cleave::FunctionId function,
                   const std::vector<cleave::FusedBlock> &blocks,
                   const std::vector<std::size_t> &expanded,
                   const std::atomic<bool> *cancel = nullptr);

/// Prepares the Fused Blocks level in the background once a model is shown (LevelView asks for
/// it): a worker thread collapses the blocks (collapseBlocks), builds their drawn graph and lays
/// it out into the canvas' layout cache, so that the level switch only takes what is ready.
///
/// One request at a time: start() supersedes the running one, discard() drops the running one
/// and what was prepared (a new model, other blocks). A superseded or discarded worker stops at
/// the next phase boundary (Graphviz itself cannot be interrupted) and its result is dropped.
/// The worker holds the graph it reads (shared), so the document may move on meanwhile. The
/// destructor waits for running workers.
class LevelPrefetch : public QObject
{
    Q_OBJECT

public:
    explicit LevelPrefetch(QObject *parent = nullptr);
    ~LevelPrefetch() override;
    LevelPrefetch(const LevelPrefetch &) = delete;
    LevelPrefetch &operator=(const LevelPrefetch &) = delete;

    /// Prepares the blocks of `function` of `graph` (none expanded; `blocks` are read where they
    /// are, shared with the document, not copied) under `key`, laid out into
    /// `cache` (null: not laid out), the layout's region geometry made and left in `regions`
    /// (null: not made). Does nothing when that key is prepared or being prepared.
    void start(const std::string &key, std::shared_ptr<const cleave::Graph> graph,
               cleave::FunctionId function,
               std::shared_ptr<const std::vector<cleave::FusedBlock>> blocks,
               std::shared_ptr<cleave::LayoutCache> cache,
               std::shared_ptr<RegionGeometryStore> regions = nullptr);
    /// Drops the running request and what was prepared.
    void discard();
    /// Stops the running request (whatever it delivers is dropped) and keeps what was prepared:
    /// the switch makes the level itself, and the worker frees what it holds at its next phase
    /// boundary instead of laying out a level nobody will take.
    void cancelRunning();
    /// Keeps a level made on the UI thread (the switch came before the worker), to be reused.
    void adopt(PreparedLevel level);

    /// What was prepared under `key` from `graph`, or null.
    [[nodiscard]] const PreparedLevel *prepared(const std::string &key,
                                                const cleave::Graph *graph) const;
    /// True while a worker prepares the current request.
    [[nodiscard]] bool isRunning() const { return m_running; }
    /// The key being prepared (while running) or prepared (after), else empty.
    [[nodiscard]] const std::string &key() const { return m_key; }

signals:
    /// A level was prepared (prepared() has it).
    void ready();

private:
    void deliver(quint64 generation, const std::shared_ptr<PreparedLevel> &level);
    void stopWorkers();

    WorkerThreads m_workers;
    quint64 m_generation = 0;
    bool m_running = false;
    std::string m_key;
    std::shared_ptr<const PreparedLevel> m_prepared;
};

} // namespace cleave::ui
