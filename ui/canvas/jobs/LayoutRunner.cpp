// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/jobs/LayoutRunner.h"

#include <QPointer>
#include <QThread>

namespace cleave::ui {

LayoutRunner::LayoutRunner(QObject *parent)
    : QObject(parent)
    , m_cache(std::make_shared<LayoutCache>())
    , m_jobs(this)
{
}

LayoutRunner::~LayoutRunner()
{
    m_jobs.cancelAndWait();
}

void LayoutRunner::setCacheDirectory(const QString &directory)
{
    m_cache = std::make_shared<LayoutCache>(directory.toStdString());
}

std::shared_ptr<const Layout> LayoutRunner::findInMemory(const LayoutGraph &graph,
                                                         const std::string &modelKey,
                                                         const LayoutSettings &settings) const
{
    // The full key costs a pass over the graph (a few milliseconds at 24k nodes): only worth it
    // when a layout of this model and size is held at all (not on a first open).
    if (modelKey.empty() || !m_cache->holdsInMemory(LayoutCache::keyPrefixFor(modelKey, graph)))
        return nullptr;
    return m_cache->findInMemory(layoutCacheKey(modelKey, graph, settings));
}

quint64 LayoutRunner::start(std::shared_ptr<const LayoutGraph> graph, std::string modelKey,
                            const LayoutSettings &settings)
{
    m_jobs.cancelAll();
    const quint64 generation = ++m_generation;
    m_running = true;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<LayoutCache> cache = m_cache;
    std::shared_ptr<RegionGeometryStore> regions = m_regions;
    // The worker only touches its own copies (graph snapshot, cache, store, flag); it reports back
    // through queued calls, which Qt drops if the runner is gone by then (the destructor
    // waits for the thread anyway).
    QThread *thread
        = QThread::create([this, generation, cancel, cache, regions, graph = std::move(graph),
                           modelKey = std::move(modelKey), settings] {
              int lastPercent = -1;
              LayoutControl control;
              control.cancel = cancel.get();
              control.progress = [&](int percent, const std::string &) {
                  if (percent == lastPercent)
                      return;
                  lastPercent = percent;
                  QMetaObject::invokeMethod(
                      this,
                      [this, generation, percent] {
                          if (generation == m_generation && m_running)
                              emit progress(generation, percent);
                      },
                      Qt::QueuedConnection);
              };
              LayoutResult result;
              try {
                  result = computeLayoutCached(cache.get(), modelKey, *graph, settings, control);
                  // The shapes of the regions come from the layout alone: made here, not by the
                  // first plan on the UI thread (tens of milliseconds at 100k nodes).
                  if (result.isOk() && !cancel->load())
                      regions->put(makeRegionGeometry(result.layout));
              } catch (const std::exception &e) {
                  result.status = LayoutResult::Status::Failed;
                  result.message = std::string("layout failed: ") + e.what();
              }
              QMetaObject::invokeMethod(
                  this, [this, generation, result] { deliver(generation, result); },
                  Qt::QueuedConnection);
          });
    m_jobs.run(thread, cancel, QThread::LowPriority);
    return generation;
}

void LayoutRunner::cancel()
{
    if (!m_running)
        return;
    m_jobs.cancelAll();
    const quint64 generation = m_generation;
    ++m_generation; // whatever the running job still delivers is stale now
    m_running = false;
    LayoutResult result;
    result.status = LayoutResult::Status::Cancelled;
    result.message = "layout cancelled";
    emit finished(generation, result);
}

void LayoutRunner::discard()
{
    m_jobs.cancelAll();
    ++m_generation;
    m_running = false;
}

void LayoutRunner::deliver(quint64 generation, const LayoutResult &result)
{
    if (generation != m_generation || !m_running)
        return;
    m_running = false;
    emit finished(generation, result);
}

} // namespace cleave::ui
