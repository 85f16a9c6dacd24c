// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/geometry/RegionGeometry.h"

#include <deque>
#include <memory>
#include <mutex>

namespace cleave::ui {

/// Where the region geometry of a layout waits for the canvas that draws it: the worker that
/// lays out a graph (LayoutRunner), prepares the other level (LevelPrefetch) or makes the
/// geometry of a layout found in memory (RegionGeometryMaker) puts it here beside the layout,
/// so that the first plan on that layout finds its shapes made instead of building them on the
/// UI thread. The canvas takes it out (the store keeps nothing the canvas holds); at most the
/// last two put wait, and one whose layout nobody but the geometry holds any more (gone from the
/// canvas and the layout caches) is dropped. Thread-safe.
class RegionGeometryStore
{
public:
    /// How many geometries are held at most (the oldest goes first).
    static constexpr std::size_t capacity = 2;

    /// Keeps `geometry` (made from a live layout), replacing one of the same layout.
    void put(std::shared_ptr<const RegionGeometry> geometry);
    /// The geometry made from `layout`, or null; the store lets go of it.
    [[nodiscard]] std::shared_ptr<const RegionGeometry> take(const Layout *layout);
    /// True when a geometry made from `layout` waits here.
    [[nodiscard]] bool holds(const Layout *layout) const;
    /// How many geometries are held (those of layouts gone included, until the next put()).
    [[nodiscard]] std::size_t size() const;

private:
    mutable std::mutex m_mutex;
    std::deque<std::shared_ptr<const RegionGeometry>> m_held; // oldest first
};

} // namespace cleave::ui
