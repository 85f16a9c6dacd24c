// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/Layout.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace cleave {

namespace {

constexpr int formatVersion = 1;

nlohmann::json rectToJson(const LayoutRect &r)
{
    return nlohmann::json::array({ r.x, r.y, r.width, r.height });
}

// Thrown by the readers below (and caught by layoutFromJson) on anything but a value
// layoutToJson writes: nlohmann::json's get<>() of a float as an integer, or of a number out of
// the target's range, is undefined behaviour, not an error, so each value is checked first.
struct BadLayoutJson
{ };

std::uint32_t idFromJson(const nlohmann::json &j)
{
    if (!j.is_number_unsigned() || j.get<std::uint64_t>() > UINT32_MAX)
        throw BadLayoutJson();
    return static_cast<std::uint32_t>(j.get<std::uint64_t>());
}

double coordinateFromJson(const nlohmann::json &j)
{
    // Beyond a float's range the conversion to a layout's coordinate is undefined.
    if (!j.is_number() || !std::isfinite(j.get<double>())
        || std::abs(j.get<double>()) > std::numeric_limits<float>::max())
        throw BadLayoutJson();
    return j.get<double>();
}

LayoutRect rectFromJson(const nlohmann::json &j)
{
    return { coordinateFromJson(j.at(0)), coordinateFromJson(j.at(1)), coordinateFromJson(j.at(2)),
             coordinateFromJson(j.at(3)) };
}

} // namespace

const LayoutRect *Layout::rect(NodeId node) const
{
    auto it = nodes.find(node);
    return it == nodes.end() ? nullptr : &it->second;
}

std::optional<LayoutSpline> Layout::spline(TensorRef tensor, NodeId consumer) const
{
    return edges.spline(EdgeRef { tensor, consumer });
}

std::string layoutToJson(const Layout &layout)
{
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto &[id, r] : layout.nodes)
        nodes.push_back({ id.value, r.x, r.y, r.width, r.height });
    nlohmann::json edges = nlohmann::json::array();
    for (const auto &[key, s] : layout.edges) {
        nlohmann::json pts = nlohmann::json::array();
        for (const LayoutPoint &p : s.points()) {
            pts.push_back(p.x);
            pts.push_back(p.y);
        }
        edges.push_back({ key.tensor.node.value, key.tensor.output, key.consumer.value, pts,
                          s.hasArrow(), s.arrowTip().x, s.arrowTip().y, s.stub() });
    }
    nlohmann::json doc { { "version", formatVersion },
                         { "engine", layout.engine },
                         { "bbox", rectToJson(layout.bbox) },
                         { "nodes", std::move(nodes) },
                         { "edges", std::move(edges) } };
    return doc.dump();
}

bool layoutFromJson(const std::string &text, Layout &out)
{
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        return false;
    try {
        const nlohmann::json &version = doc.at("version");
        if (!version.is_number_integer() || version.get<std::int64_t>() != formatVersion)
            return false;
        Layout layout;
        layout.engine = doc.at("engine").get<std::string>();
        layout.bbox = rectFromJson(doc.at("bbox"));
        const nlohmann::json &edgeList = doc.at("edges");
        std::size_t pointCount = 0;
        for (const auto &e : edgeList)
            pointCount += e.at(3).size() / 2;
        layout.edges.reserve(edgeList.size(), pointCount);
        for (const auto &n : doc.at("nodes")) {
            layout.nodes.emplace(
                NodeId(idFromJson(n.at(0))),
                LayoutRect { coordinateFromJson(n.at(1)), coordinateFromJson(n.at(2)),
                             coordinateFromJson(n.at(3)), coordinateFromJson(n.at(4)) });
        }
        for (const auto &e : edgeList) {
            EdgeRef key { TensorRef { NodeId(idFromJson(e.at(0))), idFromJson(e.at(1)) },
                          NodeId(idFromJson(e.at(2))) };
            const auto &pts = e.at(3);
            if (!pts.is_array() || pts.size() % 2 != 0)
                return false;
            // Written in key order: a key out of order is a corrupt file.
            if (!layout.edges.append(key, pts.size() / 2,
                                     { coordinateFromJson(e.at(5)), coordinateFromJson(e.at(6)) },
                                     e.at(4).get<bool>(), e.at(7).get<bool>()))
                return false;
            const std::span<LayoutPoint> points = layout.edges.points(layout.edges.size() - 1);
            for (std::size_t i = 0; i < points.size(); ++i)
                points[i] = { coordinateFromJson(pts[2 * i]), coordinateFromJson(pts[2 * i + 1]) };
        }
        out = std::move(layout);
        return true;
    } catch (const nlohmann::json::exception &) {
        return false;
    } catch (const BadLayoutJson &) {
        return false;
    }
}

} // namespace cleave
