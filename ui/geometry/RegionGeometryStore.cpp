// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/geometry/RegionGeometryStore.h"

#include <algorithm>
#include <utility>

namespace cleave::ui {

void RegionGeometryStore::put(std::shared_ptr<const RegionGeometry> geometry)
{
    if (!geometry || geometry->isOrphaned())
        return;
    const Layout *layout = geometry->layout.get();
    // The old geometry is freed outside the lock (a large one takes milliseconds).
    std::deque<std::shared_ptr<const RegionGeometry>> dropped;
    {
        const std::lock_guard lock(m_mutex);
        const auto stale = std::stable_partition(
            m_held.begin(), m_held.end(), [&](const std::shared_ptr<const RegionGeometry> &g) {
                return !g->isOrphaned() && !g->isOf(layout);
            });
        std::move(stale, m_held.end(), std::back_inserter(dropped));
        m_held.erase(stale, m_held.end());
        m_held.push_back(std::move(geometry));
        while (m_held.size() > capacity) {
            dropped.push_back(std::move(m_held.front()));
            m_held.pop_front();
        }
    }
}

std::shared_ptr<const RegionGeometry> RegionGeometryStore::take(const Layout *layout)
{
    const std::lock_guard lock(m_mutex);
    const auto it = std::find_if(
        m_held.begin(), m_held.end(),
        [&](const std::shared_ptr<const RegionGeometry> &g) { return g->isOf(layout); });
    if (it == m_held.end())
        return nullptr;
    std::shared_ptr<const RegionGeometry> taken = std::move(*it);
    m_held.erase(it);
    return taken;
}

bool RegionGeometryStore::holds(const Layout *layout) const
{
    const std::lock_guard lock(m_mutex);
    return std::any_of(
        m_held.begin(), m_held.end(),
        [&](const std::shared_ptr<const RegionGeometry> &g) { return g->isOf(layout); });
}

std::size_t RegionGeometryStore::size() const
{
    const std::lock_guard lock(m_mutex);
    return m_held.size();
}

} // namespace cleave::ui
