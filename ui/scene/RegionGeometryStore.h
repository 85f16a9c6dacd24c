// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/scene/RegionGeometry.h"

#include <deque>
#include <memory>
#include <mutex>

namespace cleave::ui {

/// Where the region geometry of a layout waits for the canvas that draws it: the worker that
/// lays out a graph (LayoutRunner) or prepares the other level (LevelPrefetch) makes the
/// geometry beside the layout and puts it here, so that the first plan on that layout finds
/// its shapes made instead of building them on the UI thread. Holds the last few geometries
/// put (the shown level's and the prepared one's: a switch back finds its own again); one
/// whose layout is gone is dropped. Thread-safe.
class RegionGeometryStore
{
public:
    /// How many geometries are held at most (the oldest goes first).
    static constexpr std::size_t capacity = 2;

    /// Keeps `geometry` (made from a live layout), replacing one of the same layout.
    void put(std::shared_ptr<const RegionGeometry> geometry);
    /// The geometry made from `layout`, or null.
    [[nodiscard]] std::shared_ptr<const RegionGeometry> find(const Layout *layout) const;
    /// How many geometries are held (those of layouts gone included, until the next put()).
    [[nodiscard]] std::size_t size() const;

private:
    mutable std::mutex m_mutex;
    std::deque<std::shared_ptr<const RegionGeometry>> m_held; // oldest first
};

} // namespace cleave::ui
