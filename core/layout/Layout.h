// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/layout/FlatMap.h"
#include "core/layout/LayoutRoutes.h"

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace cleave {

/// An axis-aligned rectangle of a layout: top-left corner and size, in points, y down. Kept in
/// 32-bit floats as LayoutPoint is (and made from doubles).
struct LayoutRect
{
    float x = 0;
    float y = 0;
    float width = 0;
    float height = 0;

    LayoutRect() = default;
    constexpr LayoutRect(double left, double top, double w, double h)
        : x(static_cast<float>(left))
        , y(static_cast<float>(top))
        , width(static_cast<float>(w))
        , height(static_cast<float>(h))
    {
    }
    [[nodiscard]] double centerX() const { return double(x) + double(width) / 2; }
    [[nodiscard]] double centerY() const { return double(y) + double(height) / 2; }
    [[nodiscard]] double bottom() const { return double(y) + double(height); }
    [[nodiscard]] double right() const { return double(x) + double(width); }
    friend bool operator==(const LayoutRect &, const LayoutRect &) = default;
};

/// The geometry of one laid-out function: a rectangle per drawn node, a route per drawn edge,
/// and the bounding box of the drawing. Plain data, no Graphviz and no Qt types, so that it can
/// be cached, compared and handed across threads.
/// The rectangles are kept in a sorted vector (FlatMap: iteration in id order, as a std::map
/// would, at half its memory); the routes in LayoutRoutes (all points in one array).
struct Layout
{
    FlatMap<NodeId, LayoutRect> nodes;
    LayoutRoutes edges;
    LayoutRect bbox;
    /// Which engine produced it: "dot" (full Graphviz layout) or "dot-order" (Graphviz ranking
    /// and ordering with Cleave's own coordinates and routing, for very large graphs).
    std::string engine;

    /// The rectangle of a node, or nullptr when the node is not drawn.
    [[nodiscard]] const LayoutRect *rect(NodeId node) const;
    /// The route of an edge, or nothing when the edge is not drawn.
    [[nodiscard]] std::optional<LayoutSpline> spline(TensorRef tensor, NodeId consumer) const;

    friend bool operator==(const Layout &, const Layout &) = default;
};

/// Serialises a layout in Cleave's compact binary form (the on-disk cache format): a magic and
/// version, then little-endian 32-bit ids and counts and 32-bit IEEE coordinates (exact round
/// trip of the layout's floats); 20 bytes per node, 25 per edge and 8 per route point, read
/// without parsing text.
std::string layoutToBinary(const Layout &layout);
/// Parses layoutToBinary() output; false (leaving `out` unspecified) on a truncated,
/// corrupt or other-version buffer. Never reads past `data`.
bool layoutFromBinary(std::string_view data, Layout &out);

/// Serialises a layout as compact JSON (readable; for tools and tests).
std::string layoutToJson(const Layout &layout);
/// Parses layoutToJson() output; returns false (leaving `out` unspecified) on malformed text.
bool layoutFromJson(const std::string &text, Layout &out);

} // namespace cleave
