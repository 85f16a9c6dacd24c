// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/geometry/RegionGeometryStore.h"
#include "ui/support/WorkerThreads.h"

#include <QObject>

#include <memory>

namespace cleave::ui {

/// Makes the region geometry of a layout on a worker thread and leaves it in a
/// RegionGeometryStore: for a layout drawn from memory whose geometry no worker made (the level
/// switched back to), while the new drawing is being completed. One request at a time: a new
/// start() tells the running worker to stop; the destructor waits for it.
class RegionGeometryMaker : public QObject
{
    Q_OBJECT
public:
    explicit RegionGeometryMaker(QObject *parent = nullptr);
    ~RegionGeometryMaker() override;
    RegionGeometryMaker(const RegionGeometryMaker &) = delete;
    RegionGeometryMaker &operator=(const RegionGeometryMaker &) = delete;

    /// Starts making the geometry of `layout` into `store`.
    void start(std::shared_ptr<const Layout> layout, std::shared_ptr<RegionGeometryStore> store);
    /// Tells the running worker to stop (what it made is not put into the store).
    void cancel();
    /// True while a worker of the last start() runs.
    [[nodiscard]] bool isRunning() const { return !m_workers.isEmpty(); }

private:
    WorkerThreads m_workers;
};

} // namespace cleave::ui
