// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutCache.h"
#include "core/layout/LayoutGraph.h"
#include "ui/geometry/RegionGeometryStore.h"
#include "ui/support/WorkerThreads.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace cleave::ui {

/// Runs layouts on worker threads, one request at a time from the canvas' point of view: a new
/// start() supersedes the previous request, whose result is dropped when it arrives (Graphviz
/// cannot be interrupted; core serialises the runs). Results and progress arrive on the
/// runner's thread, tagged with the request's generation. The worker also makes the layout's
/// region geometry and puts it into regionGeometries() before the result arrives.
class LayoutRunner : public QObject
{
    Q_OBJECT
public:
    explicit LayoutRunner(QObject *parent = nullptr);
    /// Cancels everything and waits for running layouts to reach a phase boundary.
    ~LayoutRunner() override;

    /// The directory of the on-disk cache (empty: memory only). A new cache replaces the
    /// previous one.
    void setCacheDirectory(const QString &directory);
    /// The cache layouts are looked up in and stored to (shared with the workers; a layout
    /// prepared in the background into it is found by the next start() or findInMemory()).
    [[nodiscard]] std::shared_ptr<LayoutCache> cache() const { return m_cache; }
    /// Where the workers leave the region geometry of each layout they deliver (shared with
    /// the level preparation, which leaves the prepared level's there too).
    [[nodiscard]] std::shared_ptr<RegionGeometryStore> regionGeometries() const
    {
        return m_regions;
    }
    /// The layout start() would find in memory for the same arguments, looked up on the
    /// calling thread (no file is read, nothing is laid out), or nullptr.
    [[nodiscard]] std::shared_ptr<const Layout>
    findInMemory(const LayoutGraph &graph, const std::string &modelKey,
                 const LayoutSettings &settings = {}) const;
    /// Starts laying out `graph`; returns the request's generation.
    quint64 start(std::shared_ptr<const LayoutGraph> graph, std::string modelKey,
                  const LayoutSettings &settings = {});
    /// Cancels the current request: finished() is emitted at once with a Cancelled result.
    void cancel();
    /// Drops the current request without emitting anything.
    void discard();
    [[nodiscard]] bool isRunning() const { return m_running; }
    [[nodiscard]] quint64 generation() const { return m_generation; }

signals:
    void progress(quint64 generation, int percent);
    void finished(quint64 generation, const cleave::LayoutResult &result);

private:
    void deliver(quint64 generation, const LayoutResult &result);

    std::shared_ptr<LayoutCache> m_cache;
    std::shared_ptr<RegionGeometryStore> m_regions = std::make_shared<RegionGeometryStore>();
    WorkerThreads m_jobs;
    quint64 m_generation = 0;
    bool m_running = false;
};

} // namespace cleave::ui
