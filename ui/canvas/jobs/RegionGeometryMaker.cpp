// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/jobs/RegionGeometryMaker.h"

#include <QThread>

#include <atomic>
#include <utility>

namespace cleave::ui {

RegionGeometryMaker::RegionGeometryMaker(QObject *parent)
    : QObject(parent)
    , m_workers(this)
{
}

RegionGeometryMaker::~RegionGeometryMaker()
{
    m_workers.cancelAndWait();
}

void RegionGeometryMaker::start(std::shared_ptr<const Layout> layout,
                                std::shared_ptr<RegionGeometryStore> store)
{
    m_workers.cancelAll();
    if (!layout || !store)
        return;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    // The worker holds the layout it reads and the store it fills; nothing reports back: the
    // canvas looks into the store.
    QThread *thread
        = QThread::create([cancel, layout = std::move(layout), store = std::move(store)] {
              std::shared_ptr<const RegionGeometry> made = makeRegionGeometry(layout);
              if (!cancel->load())
                  store->put(std::move(made));
          });
    m_workers.run(thread, cancel, QThread::LowPriority);
}

void RegionGeometryMaker::cancel()
{
    m_workers.cancelAll();
}

} // namespace cleave::ui
