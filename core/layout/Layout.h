// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/layout/FlatMap.h"

#include <compare>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// A point of a layout, in points (1/72 inch), y growing downwards.
struct LayoutPoint
{
    double x = 0;
    double y = 0;
    friend bool operator==(const LayoutPoint &, const LayoutPoint &) = default;
};

/// An axis-aligned rectangle of a layout: top-left corner and size, in points, y down.
struct LayoutRect
{
    double x = 0;
    double y = 0;
    double width = 0;
    double height = 0;

    [[nodiscard]] double centerX() const { return x + width / 2; }
    [[nodiscard]] double centerY() const { return y + height / 2; }
    [[nodiscard]] double bottom() const { return y + height; }
    [[nodiscard]] double right() const { return x + width; }
    friend bool operator==(const LayoutRect &, const LayoutRect &) = default;
};

/// The drawn route of an edge: a piecewise cubic Bézier (`points[0]` is the start, then three
/// points per segment: two control points and the segment's end, so size() == 3k + 1), and the
/// arrowhead from the spline's end to `arrowTip` (on the consumer's border).
struct LayoutSpline
{
    std::vector<LayoutPoint> points;
    LayoutPoint arrowTip;
    bool hasArrow = false;
    /// True when the edge starts at a local stub beside its consumer instead of at its producer
    /// (widely shared inputs are drawn so, to keep hundreds of long edges out of the layout).
    bool stub = false;
    friend bool operator==(const LayoutSpline &, const LayoutSpline &) = default;
};

/// The geometry of one laid-out function: a rectangle per drawn node, a spline per drawn edge,
/// and the bounding box of the drawing. Plain data, no Graphviz and no Qt types, so that it can
/// be cached, compared and handed across threads.
/// The rectangles and splines are kept in sorted vectors (FlatMap: iteration in id order, as a
/// std::map would, at half its memory); the points of a spline in one exactly sized vector.
struct Layout
{
    FlatMap<NodeId, LayoutRect> nodes;
    FlatMap<EdgeRef, LayoutSpline> edges;
    LayoutRect bbox;
    /// Which engine produced it: "dot" (full Graphviz layout) or "dot-order" (Graphviz ranking
    /// and ordering with Cleave's own coordinates and routing, for very large graphs).
    std::string engine;

    /// The rectangle of a node, or nullptr when the node is not drawn.
    [[nodiscard]] const LayoutRect *rect(NodeId node) const;
    /// The spline of an edge, or nullptr when the edge is not drawn.
    [[nodiscard]] const LayoutSpline *spline(TensorRef tensor, NodeId consumer) const;

    friend bool operator==(const Layout &, const Layout &) = default;
};

/// Serialises a layout in Cleave's compact binary form (the on-disk cache format): a magic and
/// version, then little-endian 32-bit ids and counts and 64-bit IEEE coordinates (exact round
/// trip); 36 bytes per node and 16 per route point, read without parsing text.
std::string layoutToBinary(const Layout &layout);
/// Parses layoutToBinary() output; false (leaving `out` unspecified) on a truncated,
/// corrupt or other-version buffer. Never reads past `data`.
bool layoutFromBinary(std::string_view data, Layout &out);

/// Serialises a layout as compact JSON (readable; for tools and tests).
std::string layoutToJson(const Layout &layout);
/// Parses layoutToJson() output; returns false (leaving `out` unspecified) on malformed text.
bool layoutFromJson(const std::string &text, Layout &out);

} // namespace cleave
