// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace cleave {

/// A point of a layout, in points (1/72 inch), y growing downwards. Kept in 32-bit floats: a
/// layout's coordinates stay below a few 1e6 points (a 100k-node drawing), where a float is
/// exact to well under 1/10 point, and a large model's routes hold hundreds of thousands of
/// points. Made from doubles (rounded to the nearest float).
struct LayoutPoint
{
    float x = 0;
    float y = 0;

    LayoutPoint() = default;
    constexpr LayoutPoint(double px, double py)
        : x(static_cast<float>(px))
        , y(static_cast<float>(py))
    {
    }
    friend bool operator==(const LayoutPoint &, const LayoutPoint &) = default;
};

/// The drawn route of an edge, as a light view into the Layout that owns it (valid as long as
/// that Layout lives and is not changed): a piecewise cubic Bézier (`points()[0]` is the start,
/// then three points per segment: two control points and the segment's end, so its size is
/// 3k + 1), and the arrowhead from the route's end to `arrowTip()` (on the consumer's border).
class LayoutSpline
{
public:
    LayoutSpline() = default;
    /// A view of `points` (kept by the caller) with the given arrowhead and stub flag.
    LayoutSpline(std::span<const LayoutPoint> points, LayoutPoint arrowTip, bool hasArrow,
                 bool stub)
        : m_points(points.data())
        , m_count(static_cast<std::uint32_t>(points.size()))
        , m_arrowTip(arrowTip)
        , m_hasArrow(hasArrow)
        , m_stub(stub)
    {
    }

    [[nodiscard]] std::span<const LayoutPoint> points() const { return { m_points, m_count }; }
    [[nodiscard]] LayoutPoint arrowTip() const { return m_arrowTip; }
    [[nodiscard]] bool hasArrow() const { return m_hasArrow; }
    /// True when the edge starts at a local stub beside its consumer instead of at its producer
    /// (widely shared inputs are drawn so, to keep hundreds of long edges out of the layout).
    [[nodiscard]] bool stub() const { return m_stub; }

private:
    const LayoutPoint *m_points = nullptr;
    std::uint32_t m_count = 0;
    LayoutPoint m_arrowTip;
    bool m_hasArrow = false;
    bool m_stub = false;
};

/// The routes of a layout's drawn edges, in edge id order: every route's points in one flat
/// array, and per edge its id, where its points start, its arrow tip and flags (28 bytes an
/// edge and 8 a point, with no heap block per route). Built by appending edges in increasing id
/// order, each with its point count, then writing the points in place (points()); read through
/// LayoutSpline views.
class LayoutRoutes
{
public:
    /// What find() returns for an edge that is not drawn.
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    /// Iterates over (edge, spline) pairs in edge id order (`for (const auto &[edge, spline] :
    /// layout.edges)`); the pairs are made on the fly.
    class Iterator
    {
    public:
        // The standard iterator traits, in the standard's spelling.
        // NOLINTBEGIN(readability-identifier-naming)
        using iterator_category = std::forward_iterator_tag;
        using value_type = std::pair<EdgeRef, LayoutSpline>;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = value_type;
        // NOLINTEND(readability-identifier-naming)

        Iterator() = default;
        Iterator(const LayoutRoutes *routes, std::size_t index)
            : m_routes(routes)
            , m_index(index)
        {
        }
        [[nodiscard]] value_type operator*() const
        {
            return { m_routes->key(m_index), m_routes->spline(m_index) };
        }
        Iterator &operator++()
        {
            ++m_index;
            return *this;
        }
        Iterator operator++(int)
        {
            Iterator before = *this;
            ++m_index;
            return before;
        }
        friend bool operator==(const Iterator &a, const Iterator &b)
        {
            return a.m_index == b.m_index;
        }

    private:
        const LayoutRoutes *m_routes = nullptr;
        std::size_t m_index = 0;
    };

    [[nodiscard]] Iterator begin() const { return { this, 0 }; }
    [[nodiscard]] Iterator end() const { return { this, m_entries.size() }; }
    /// How many edges are drawn.
    [[nodiscard]] std::size_t size() const { return m_entries.size(); }
    [[nodiscard]] bool empty() const { return m_entries.empty(); }
    /// How many route points all edges hold together.
    [[nodiscard]] std::size_t pointCount() const { return m_points.size(); }

    /// The id of the `index`-th edge (in id order).
    [[nodiscard]] EdgeRef key(std::size_t index) const { return m_entries[index].key; }
    /// The route of the `index`-th edge.
    [[nodiscard]] LayoutSpline spline(std::size_t index) const;
    /// The index of `edge`, or npos when it is not drawn (binary search).
    [[nodiscard]] std::size_t find(const EdgeRef &edge) const;
    /// The route of `edge`, or nothing when it is not drawn.
    [[nodiscard]] std::optional<LayoutSpline> spline(const EdgeRef &edge) const;

    /// Makes room for `edges` edges and `points` points in all (so that append() does not
    /// reallocate: the spans of points() stay valid while the routes are written).
    void reserve(std::size_t edges, std::size_t points);
    /// Adds `edge` with `pointCount` points (zero until written through points()); false, and
    /// nothing added, unless `edge` is larger than every edge added before.
    bool append(const EdgeRef &edge, std::size_t pointCount, LayoutPoint arrowTip, bool hasArrow,
                bool stub);
    /// Adds `edge` with a copy of `points` (as append() above).
    bool append(const EdgeRef &edge, std::span<const LayoutPoint> points, LayoutPoint arrowTip,
                bool hasArrow, bool stub);
    /// The points of the `index`-th edge, to write its route in place.
    [[nodiscard]] std::span<LayoutPoint> points(std::size_t index);
    void clear();

    friend bool operator==(const LayoutRoutes &, const LayoutRoutes &) = default;

private:
    struct Entry
    {
        EdgeRef key;
        std::uint32_t first = 0; // its points are [first, the next entry's first)
        LayoutPoint arrowTip;
        std::uint8_t flags = 0; // hasArrowFlag | stubFlag
        friend bool operator==(const Entry &, const Entry &) = default;
    };
    static constexpr std::uint8_t hasArrowFlag = 1;
    static constexpr std::uint8_t stubFlag = 2;
    [[nodiscard]] std::size_t endOf(std::size_t index) const
    {
        return index + 1 < m_entries.size() ? m_entries[index + 1].first : m_points.size();
    }

    std::vector<Entry> m_entries;
    std::vector<LayoutPoint> m_points;
};

} // namespace cleave
