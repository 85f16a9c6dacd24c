// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/Layout.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>

namespace cleave {

namespace {

constexpr char magic[4] = { 'C', 'L', 'V', 'L' };
// Also bumped when the layout engines draw differently, so caches of older drawings are laid
// out again: 2 = long edges threaded through their gaps in order (OrderedPlacement); 3 = 32-bit
// coordinates and the route points' total before the edges (the compact Layout).
constexpr std::uint32_t binaryVersion = 3;
constexpr std::size_t nodeBytes = 20; // id, 4 coordinates
constexpr std::size_t edgeBytes = 25; // 3 ids, flags, arrow tip (2 coordinates), point count
constexpr std::size_t pointBytes = 8; // 2 coordinates

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
    void f32(float v)
    {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        u32(bits);
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
    bool f32(float &v)
    {
        std::uint32_t bits = 0;
        if (!u32(bits))
            return false;
        std::memcpy(&v, &bits, sizeof v);
        // A coordinate is finite: NaN or infinity from a corrupt cache file would reach the
        // scene's index and the painter.
        return std::isfinite(v);
    }
    bool point(LayoutPoint &p) { return f32(p.x) && f32(p.y); }
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
    return r.f32(rect.x) && r.f32(rect.y) && r.f32(rect.width) && r.f32(rect.height);
}

void writeRect(Writer &w, const LayoutRect &rect)
{
    for (float v : { rect.x, rect.y, rect.width, rect.height })
        w.f32(v);
}

} // namespace

std::string layoutToBinary(const Layout &layout)
{
    std::string out;
    out.reserve(64 + layout.engine.size() + layout.nodes.size() * nodeBytes
                + layout.edges.size() * edgeBytes + layout.edges.pointCount() * pointBytes);
    Writer w(out);
    out.append(magic, sizeof magic);
    w.u32(binaryVersion);
    w.u32(static_cast<std::uint32_t>(layout.engine.size()));
    out += layout.engine;
    writeRect(w, layout.bbox);
    w.u32(static_cast<std::uint32_t>(layout.nodes.size()));
    for (const auto &[id, r] : layout.nodes) {
        w.u32(id.value);
        writeRect(w, r);
    }
    w.u32(static_cast<std::uint32_t>(layout.edges.size()));
    w.u32(static_cast<std::uint32_t>(layout.edges.pointCount()));
    for (const auto &[key, s] : layout.edges) {
        w.u32(key.tensor.node.value);
        w.u32(key.tensor.output);
        w.u32(key.consumer.value);
        w.u8(static_cast<std::uint8_t>((s.hasArrow() ? 1U : 0U) | (s.stub() ? 2U : 0U)));
        w.f32(s.arrowTip().x);
        w.f32(s.arrowTip().y);
        w.u32(static_cast<std::uint32_t>(s.points().size()));
        for (const LayoutPoint &p : s.points()) {
            w.f32(p.x);
            w.f32(p.y);
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
    if (!r.u32(nodeCount) || nodeCount > r.remaining() / nodeBytes)
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
    std::uint32_t pointTotal = 0;
    if (!r.u32(edgeCount) || !r.u32(pointTotal) || edgeCount > r.remaining() / edgeBytes
        || pointTotal > (r.remaining() - std::size_t(edgeCount) * edgeBytes) / pointBytes)
        return false;
    // Sized once from the total: the edges' points are then written in place.
    layout.edges.reserve(edgeCount, pointTotal);
    std::size_t pointsSoFar = 0;
    for (std::uint32_t i = 0; i < edgeCount; ++i) {
        std::uint32_t node = 0;
        std::uint32_t output = 0;
        std::uint32_t consumer = 0;
        std::uint8_t flags = 0;
        LayoutPoint tip;
        std::uint32_t pointCount = 0;
        if (!r.u32(node) || !r.u32(output) || !r.u32(consumer) || !r.u8(flags) || !r.f32(tip.x)
            || !r.f32(tip.y) || !r.u32(pointCount) || pointCount > pointTotal - pointsSoFar)
            return false;
        pointsSoFar += pointCount;
        const EdgeRef key { TensorRef { NodeId(node), output }, NodeId(consumer) };
        // Out of key order is corrupt (see the nodes).
        if (!layout.edges.append(key, pointCount, tip, (flags & 1U) != 0, (flags & 2U) != 0))
            return false;
        for (LayoutPoint &p : layout.edges.points(layout.edges.size() - 1))
            if (!r.point(p))
                return false;
    }
    if (pointsSoFar != pointTotal || r.remaining() != 0)
        return false;
    out = std::move(layout);
    return true;
}

} // namespace cleave
