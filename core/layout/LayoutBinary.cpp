// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/Layout.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cleave {

namespace {

constexpr char magic[4] = { 'C', 'L', 'V', 'L' };
// Also bumped when the layout engines draw differently, so caches of older drawings are laid
// out again: 2 = long edges threaded through their gaps in order (OrderedPlacement).
constexpr std::uint32_t binaryVersion = 2;

class Writer
{
public:
    explicit Writer(std::string &out)
        : m_out(out)
    {
    }
    void u32(std::uint32_t v)
    {
        for (int i = 0; i < 4; ++i)
            m_out.push_back(static_cast<char>((v >> (8 * i)) & 0xffU));
    }
    void f64(double v)
    {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        u32(static_cast<std::uint32_t>(bits & 0xffffffffU));
        u32(static_cast<std::uint32_t>(bits >> 32U));
    }
    void u8(std::uint8_t v) { m_out.push_back(static_cast<char>(v)); }

private:
    std::string &m_out;
};

class Reader
{
public:
    explicit Reader(std::string_view data)
        : m_data(data)
    {
    }
    bool u32(std::uint32_t &v)
    {
        if (m_data.size() - m_pos < 4)
            return false;
        v = 0;
        for (int i = 0; i < 4; ++i)
            v |= static_cast<std::uint32_t>(static_cast<unsigned char>(m_data[m_pos + i]))
                << (8 * i);
        m_pos += 4;
        return true;
    }
    bool f64(double &v)
    {
        std::uint32_t low = 0;
        std::uint32_t high = 0;
        if (!u32(low) || !u32(high))
            return false;
        const std::uint64_t bits = (static_cast<std::uint64_t>(high) << 32U) | low;
        std::memcpy(&v, &bits, sizeof v);
        // A coordinate is finite: NaN or infinity from a corrupt cache file would reach the
        // scene's index and the painter.
        return std::isfinite(v);
    }
    bool u8(std::uint8_t &v)
    {
        if (m_pos >= m_data.size())
            return false;
        v = static_cast<std::uint8_t>(m_data[m_pos++]);
        return true;
    }
    bool bytes(std::size_t n, std::string &out)
    {
        if (m_data.size() - m_pos < n)
            return false;
        out.assign(m_data.substr(m_pos, n));
        m_pos += n;
        return true;
    }
    [[nodiscard]] std::size_t remaining() const { return m_data.size() - m_pos; }

private:
    std::string_view m_data;
    std::size_t m_pos = 0;
};

bool readRect(Reader &r, LayoutRect &rect)
{
    return r.f64(rect.x) && r.f64(rect.y) && r.f64(rect.width) && r.f64(rect.height);
}

} // namespace

std::string layoutToBinary(const Layout &layout)
{
    std::string out;
    std::size_t points = 0;
    for (const auto &[key, s] : layout.edges)
        points += s.points.size();
    out.reserve(64 + layout.engine.size() + layout.nodes.size() * 36 + layout.edges.size() * 45
                + points * 16);
    Writer w(out);
    out.append(magic, sizeof magic);
    w.u32(binaryVersion);
    w.u32(static_cast<std::uint32_t>(layout.engine.size()));
    out += layout.engine;
    for (double v : { layout.bbox.x, layout.bbox.y, layout.bbox.width, layout.bbox.height })
        w.f64(v);
    w.u32(static_cast<std::uint32_t>(layout.nodes.size()));
    for (const auto &[id, r] : layout.nodes) {
        w.u32(id.value);
        for (double v : { r.x, r.y, r.width, r.height })
            w.f64(v);
    }
    w.u32(static_cast<std::uint32_t>(layout.edges.size()));
    for (const auto &[key, s] : layout.edges) {
        w.u32(key.tensor.node.value);
        w.u32(key.tensor.output);
        w.u32(key.consumer.value);
        w.u8(static_cast<std::uint8_t>((s.hasArrow ? 1U : 0U) | (s.stub ? 2U : 0U)));
        w.f64(s.arrowTip.x);
        w.f64(s.arrowTip.y);
        w.u32(static_cast<std::uint32_t>(s.points.size()));
        for (const LayoutPoint &p : s.points) {
            w.f64(p.x);
            w.f64(p.y);
        }
    }
    return out;
}

bool layoutFromBinary(std::string_view data, Layout &out)
{
    if (data.size() < sizeof magic || std::memcmp(data.data(), magic, sizeof magic) != 0)
        return false;
    Reader r(data.substr(sizeof magic));
    std::uint32_t version = 0;
    std::uint32_t engineSize = 0;
    Layout layout;
    if (!r.u32(version) || version != binaryVersion || !r.u32(engineSize)
        || !r.bytes(engineSize, layout.engine) || !readRect(r, layout.bbox))
        return false;
    std::uint32_t nodeCount = 0;
    if (!r.u32(nodeCount) || nodeCount > r.remaining() / 36)
        return false;
    layout.nodes.reserve(nodeCount);
    for (std::uint32_t i = 0; i < nodeCount; ++i) {
        std::uint32_t id = 0;
        LayoutRect rect;
        // The writer writes in key order: a key that is not larger than the previous one is a
        // corrupt file (and would make every insertion move the entries after it).
        if (!r.u32(id) || !readRect(r, rect)
            || (!layout.nodes.empty() && !(layout.nodes.back().first < NodeId(id))))
            return false;
        layout.nodes.emplace(NodeId(id), rect); // appended
    }
    std::uint32_t edgeCount = 0;
    if (!r.u32(edgeCount) || edgeCount > r.remaining() / 45)
        return false;
    layout.edges.reserve(edgeCount);
    for (std::uint32_t i = 0; i < edgeCount; ++i) {
        std::uint32_t node = 0;
        std::uint32_t output = 0;
        std::uint32_t consumer = 0;
        std::uint8_t flags = 0;
        std::uint32_t pointCount = 0;
        LayoutSpline s;
        if (!r.u32(node) || !r.u32(output) || !r.u32(consumer) || !r.u8(flags)
            || !r.f64(s.arrowTip.x) || !r.f64(s.arrowTip.y) || !r.u32(pointCount)
            || pointCount > r.remaining() / 16)
            return false;
        s.hasArrow = (flags & 1U) != 0;
        s.stub = (flags & 2U) != 0;
        s.points.resize(pointCount);
        for (LayoutPoint &p : s.points)
            if (!r.f64(p.x) || !r.f64(p.y))
                return false;
        const EdgeRef key { TensorRef { NodeId(node), output }, NodeId(consumer) };
        if (!layout.edges.empty() && !(layout.edges.back().first < key))
            return false; // out of key order: corrupt (see the nodes)
        layout.edges.emplace(key, std::move(s));
    }
    if (r.remaining() != 0)
        return false;
    out = std::move(layout);
    return true;
}

} // namespace cleave
