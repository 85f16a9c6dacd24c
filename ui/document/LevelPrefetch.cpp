// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/LevelPrefetch.h"

#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutCache.h"
#include "core/layout/LayoutGraph.h"
#include "ui/geometry/RegionGeometryStore.h"
#include "ui/support/ThreadClock.h"

#include <QThread>

#include <exception>
#include <utility>

namespace cleave::ui {

bool collapseLevel(PreparedLevel &level, const cleave::Graph &graph, cleave::FunctionId function,
                   const std::vector<cleave::FusedBlock> &blocks,
                   const std::vector<std::size_t> &expanded, const std::atomic<bool> *cancel)
{
    auto collapsed = std::make_shared<const cleave::BlockGraph>(
        cleave::collapseBlocks(graph, function, blocks, expanded));
    if (cancel != nullptr && cancel->load())
        return false;
    // The level's view of the blocks' function serves the drawn graph too.
    level.view = std::make_shared<const cleave::FunctionView>(collapsed->graph,
                                                              collapsed->graph.mainFunction());
    level.drawn
        = std::make_shared<const cleave::LayoutGraph>(cleave::buildLayoutGraph(*level.view));
    level.blocks = std::move(collapsed);
    return true;
}

LevelPrefetch::LevelPrefetch(QObject *parent)
    : QObject(parent)
    , m_workers(this)
{
}

LevelPrefetch::~LevelPrefetch()
{
    m_workers.cancelAndWait();
}

void LevelPrefetch::start(const std::string &key, std::shared_ptr<const cleave::Graph> graph,
                          cleave::FunctionId function,
                          std::shared_ptr<const std::vector<cleave::FusedBlock>> blocks,
                          std::shared_ptr<cleave::LayoutCache> cache,
                          std::shared_ptr<RegionGeometryStore> regions)
{
    if (!graph || !blocks || key.empty())
        return;
    if (key == m_key && (m_running || (m_prepared && m_prepared->source == graph)))
        return;
    stopWorkers();
    m_prepared.reset();
    m_key = key;
    m_running = true;
    const quint64 generation = ++m_generation;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    // The worker shares what it reads (the graph and the blocks, which are never modified, only
    // replaced) or owns a copy of it;
    // it reports back through a queued call, which Qt drops once the prefetch is gone (the
    // destructor waits for the thread anyway).
    QThread *thread = QThread::create([this, generation, cancel, key, graph = std::move(graph),
                                       function, blocks = std::move(blocks),
                                       cache = std::move(cache), regions = std::move(regions)] {
        const double started = threadCpuMs();
        auto fail = [this, generation] {
            QMetaObject::invokeMethod(
                this, [this, generation] { deliver(generation, nullptr); }, Qt::QueuedConnection);
        };
        auto level = std::make_shared<PreparedLevel>();
        level->key = key;
        level->source = graph;
        try {
            if (!collapseLevel(*level, *graph, function, *blocks, {}, cancel.get())
                || cancel->load())
                return;
            if (cache) {
                cleave::LayoutControl control;
                control.cancel = cancel.get();
                const cleave::LayoutResult result
                    = cleave::computeLayoutCached(cache.get(), key, *level->drawn, {}, control);
                if (result.status == cleave::LayoutResult::Status::Cancelled)
                    return;
                level->laidOut = result.isOk();
                // The shapes of its partition regions, which the switch would otherwise make
                // on the UI thread with its first plan.
                if (level->laidOut && regions && !cancel->load())
                    regions->put(makeRegionGeometry(result.layout));
            }
        } catch (const std::exception &) {
            // Nothing prepared: the switch makes the level itself (and reports what fails).
            fail();
            return;
        }
        level->cpuMs = threadCpuMs() - started;
        QMetaObject::invokeMethod(
            this, [this, generation, level] { deliver(generation, level); }, Qt::QueuedConnection);
    });
    m_workers.run(thread, cancel, QThread::LowPriority);
}

void LevelPrefetch::discard()
{
    stopWorkers();
    m_prepared.reset();
    m_key.clear();
}

void LevelPrefetch::cancelRunning()
{
    stopWorkers();
}

void LevelPrefetch::adopt(PreparedLevel level)
{
    stopWorkers();
    m_key = level.key;
    m_prepared = std::make_shared<const PreparedLevel>(std::move(level));
}

const PreparedLevel *LevelPrefetch::prepared(const std::string &key,
                                             const cleave::Graph *graph) const
{
    if (!m_prepared || m_prepared->key != key || m_prepared->source.get() != graph)
        return nullptr;
    return m_prepared.get();
}

void LevelPrefetch::stopWorkers()
{
    m_workers.cancelAll();
    ++m_generation; // whatever a worker still delivers is stale now
    m_running = false;
}

void LevelPrefetch::deliver(quint64 generation, const std::shared_ptr<PreparedLevel> &level)
{
    if (generation != m_generation || !m_running)
        return;
    m_running = false;
    m_prepared = level;
    if (level)
        emit ready();
}

} // namespace cleave::ui
