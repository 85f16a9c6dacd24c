// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/Layout.h"

#include <nlohmann/json.hpp>

namespace cleave {

namespace {

constexpr int formatVersion = 1;

nlohmann::json rectToJson(const LayoutRect &r)
{
    return nlohmann::json::array({ r.x, r.y, r.width, r.height });
}

LayoutRect rectFromJson(const nlohmann::json &j)
{
    return { j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>(),
             j.at(3).get<double>() };
}

} // namespace

const LayoutRect *Layout::rect(NodeId node) const
{
    auto it = nodes.find(node);
    return it == nodes.end() ? nullptr : &it->second;
}

const LayoutSpline *Layout::spline(TensorRef tensor, NodeId consumer) const
{
    auto it = edges.find(EdgeRef { tensor, consumer });
    return it == edges.end() ? nullptr : &it->second;
}

std::string layoutToJson(const Layout &layout)
{
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto &[id, r] : layout.nodes)
        nodes.push_back({ id.value, r.x, r.y, r.width, r.height });
    nlohmann::json edges = nlohmann::json::array();
    for (const auto &[key, s] : layout.edges) {
        nlohmann::json pts = nlohmann::json::array();
        for (const LayoutPoint &p : s.points) {
            pts.push_back(p.x);
            pts.push_back(p.y);
        }
        edges.push_back({ key.tensor.node.value, key.tensor.output, key.consumer.value, pts,
                          s.hasArrow, s.arrowTip.x, s.arrowTip.y, s.stub });
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
        if (doc.at("version").get<int>() != formatVersion)
            return false;
        Layout layout;
        layout.engine = doc.at("engine").get<std::string>();
        layout.bbox = rectFromJson(doc.at("bbox"));
        for (const auto &n : doc.at("nodes")) {
            layout.nodes.emplace(NodeId(n.at(0).get<std::uint32_t>()),
                                 LayoutRect { n.at(1).get<double>(), n.at(2).get<double>(),
                                              n.at(3).get<double>(), n.at(4).get<double>() });
        }
        for (const auto &e : doc.at("edges")) {
            EdgeRef key { TensorRef { NodeId(e.at(0).get<std::uint32_t>()),
                                      e.at(1).get<std::uint32_t>() },
                          NodeId(e.at(2).get<std::uint32_t>()) };
            LayoutSpline s;
            const auto &pts = e.at(3);
            if (pts.size() % 2 != 0)
                return false;
            for (std::size_t i = 0; i + 1 < pts.size(); i += 2)
                s.points.push_back({ pts[i].get<double>(), pts[i + 1].get<double>() });
            s.hasArrow = e.at(4).get<bool>();
            s.arrowTip = { e.at(5).get<double>(), e.at(6).get<double>() };
            s.stub = e.at(7).get<bool>();
            layout.edges.emplace(key, std::move(s));
        }
        out = std::move(layout);
        return true;
    } catch (const nlohmann::json::exception &) {
        return false;
    }
}

} // namespace cleave
