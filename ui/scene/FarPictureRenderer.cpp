// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/FarPictureRenderer.h"

#include <QPainter>
#include <QPen>

#include <algorithm>
#include <unordered_map>

namespace cleave::ui {

namespace {

// A painter in scene coordinates over `image`, flat (no antialiasing: boxes and lines a pixel
// or two wide gain nothing from it).
void beginScene(QPainter &painter, const FarGeometry &geometry, qreal scale)
{
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.scale(scale, scale);
    painter.translate(-geometry.bounds.topLeft());
}

// The route's on-curve points (the spline's start and each cubic segment's end), without the
// points closer than `step` to the last one kept: a route's detail below a pixel is invisible
// and its long edges hold thousands of points.
void routePoints(const LayoutSpline &spline, qreal step, QPolygonF &out)
{
    out.clear();
    const std::vector<LayoutPoint> &p = spline.points;
    for (std::size_t i = 0; i < p.size(); i += 3) {
        const QPointF point(p[i].x, p[i].y);
        const bool last = i + 3 >= p.size();
        if (!out.isEmpty() && !last) {
            const QPointF d = point - out.back();
            if (std::abs(d.x()) < step && std::abs(d.y()) < step)
                continue;
        }
        out.append(point);
    }
}

QRectF atLeastPixel(const QRectF &r, qreal pixel)
{
    return { r.x(), r.y(), std::max(pixel, r.width()), std::max(pixel, r.height()) };
}

void drawBase(QImage &image, const FarGeometry &geometry, const FarStyle &style, qreal scale)
{
    QPainter painter(&image);
    beginScene(painter, geometry, scale);
    const qreal pixel = 1 / scale;
    // Ordinary edges are a pixel or two long here: one drawLines() call for all their segments.
    std::vector<QLineF> segments;
    QPolygonF line;
    for (const LayoutSpline *spline : geometry.edges) {
        routePoints(*spline, pixel / 2, line);
        for (qsizetype i = 1; i < line.size(); ++i)
            segments.emplace_back(line[i - 1], line[i]);
    }
    QPen pen(QColor::fromRgba(style.edge), 0);
    pen.setCosmetic(true);
    painter.setPen(pen);
    painter.drawLines(segments.data(), static_cast<int>(segments.size()));
    for (std::size_t i = 0; i < geometry.nodes.size(); ++i) {
        const std::uint8_t category = i < geometry.categories.size() ? geometry.categories[i] : 0;
        const QRgb colour = category < style.categories.size() ? style.categories[category] : 0;
        painter.fillRect(atLeastPixel(geometry.nodes[i], pixel), QColor::fromRgba(colour));
    }
    for (const auto &[rect, colour] : style.boxes)
        painter.fillRect(atLeastPixel(rect, pixel), QColor::fromRgba(colour));
}

// Partition tints, one partition after the other in plan order (a later region covers an
// earlier one where they overlap, as the regions' items do): the routes inside it with a pen
// as wide as the region's, then its padded node boxes.
void drawTints(QPainter &painter, const FarGeometry &geometry, const FarPlan &plan, qreal scale)
{
    if (!plan.nodeSlots || plan.tints.empty())
        return;
    const std::size_t count = plan.tints.size();
    std::vector<std::vector<std::uint32_t>> nodes(count);
    std::vector<std::vector<std::uint32_t>> edges(count);
    const std::vector<std::int32_t> &nodeSlots = *plan.nodeSlots;
    for (std::size_t i = 0; i < nodeSlots.size() && i < geometry.nodes.size(); ++i)
        if (nodeSlots[i] >= 0 && static_cast<std::size_t>(nodeSlots[i]) < count)
            nodes[static_cast<std::size_t>(nodeSlots[i])].push_back(static_cast<std::uint32_t>(i));
    if (plan.edgeSlots) {
        const std::vector<std::int32_t> &edgeSlots = *plan.edgeSlots;
        for (std::size_t i = 0; i < edgeSlots.size() && i < geometry.edges.size(); ++i)
            if (edgeSlots[i] >= 0 && static_cast<std::size_t>(edgeSlots[i]) < count)
                edges[static_cast<std::size_t>(edgeSlots[i])].push_back(
                    static_cast<std::uint32_t>(i));
    }
    const qreal pixel = 1 / scale;
    // A route is a pixel or two wide here: a cosmetic pen of that width draws the same band
    // without running the wide-pen stroker over every route.
    const qreal width = geometry.routeWidth * scale;
    QPolygonF line;
    for (std::size_t slot = 0; slot < count; ++slot) {
        const QColor tint = QColor::fromRgba(plan.tints[slot]);
        QPen pen = width < 1.5 ? QPen(tint, 0) : QPen(tint, width);
        pen.setCosmetic(true);
        pen.setCapStyle(Qt::FlatCap);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        for (std::uint32_t e : edges[slot]) {
            routePoints(*geometry.edges[e], pixel / 2, line);
            painter.drawPolyline(line);
        }
        for (std::uint32_t n : nodes[slot]) {
            const QRectF r = geometry.nodes[n].adjusted(-geometry.regionPadX, -geometry.regionPadY,
                                                        geometry.regionPadX, geometry.regionPadY);
            painter.fillRect(atLeastPixel(r, pixel), tint);
        }
    }
}

// The drawn base in 8 bits a pixel, into `indexed` (its pixels reused when it has the size).
// Drawn without antialiasing in a few flat colours, the base has few distinct pixels (the edge
// colour, the box colours, a translucent colour's blends with itself, transparent): kept as
// indices into a table of them it takes a quarter of the memory, with the same pixels. False
// (`indexed` then holds nothing of use) when it has more colours than a table holds.
bool toIndexed(const QImage &drawn, QImage &indexed)
{
    if (indexed.size() != drawn.size() || indexed.format() != QImage::Format_Indexed8) {
        indexed = {};
        indexed = QImage(drawn.size(), QImage::Format_Indexed8);
    }
    QList<QRgb> table;
    std::unordered_map<QRgb, uchar> indexOf;
    QRgb last = 0;
    uchar lastSlot = 0;
    bool any = false;
    for (int y = 0; y < drawn.height(); ++y) {
        const auto *in = reinterpret_cast<const QRgb *>(drawn.constScanLine(y));
        uchar *out = indexed.scanLine(y);
        for (int x = 0; x < drawn.width(); ++x) {
            if (!any || in[x] != last) {
                auto [it, added] = indexOf.try_emplace(in[x], static_cast<uchar>(table.size()));
                if (added) {
                    if (table.size() == 256)
                        return false;
                    // The table holds plain ARGB; the drawing's pixels are premultiplied.
                    table.push_back(qUnpremultiply(in[x]));
                }
                last = in[x];
                lastSlot = it->second;
                any = true;
            }
            out[x] = lastSlot;
        }
    }
    indexed.setColorTable(table);
    return true;
}

// Blends `base` over the painter's device at its origin, one to one. An 8-bit base is drawn in
// bands of rows: the painter makes a 32-bit copy of what it draws, a band at a time.
void drawBaseOver(QPainter &painter, const QImage &base)
{
    if (base.format() != QImage::Format_Indexed8) {
        painter.drawImage(0, 0, base);
        return;
    }
    constexpr int bandRows = 64;
    const QList<QRgb> table = base.colorTable();
    for (int y = 0; y < base.height(); y += bandRows) {
        QImage band(base.constScanLine(y), base.width(), std::min(bandRows, base.height() - y),
                    base.bytesPerLine(), QImage::Format_Indexed8);
        band.setColorTable(table);
        painter.drawImage(0, y, band);
    }
}

} // namespace

QImage FarPictureRenderer::render(const std::shared_ptr<const FarGeometry> &geometry,
                                  const FarState &state, qreal scale, QSize size,
                                  const CancelFunction &cancelled)
{
    if (!geometry || size.isEmpty() || scale <= 0)
        return {};
    m_reusedBase = m_geometry == geometry && m_scale == scale && m_style == state.style
        && m_base.size() == size;
    if (!m_reusedBase) {
        // Drawn in 32 bits, then kept in 8 (in the old base's pixels when it has the size: a
        // new selection or highlight changes the boxes only): the drawing is the one 32-bit
        // copy, and goes before the picture is composed.
        QImage drawn(size, QImage::Format_ARGB32_Premultiplied);
        drawn.fill(Qt::transparent);
        drawBase(drawn, *geometry, state.style, scale);
        if (!toIndexed(drawn, m_base))
            m_base = std::move(drawn);
        m_geometry = geometry;
        m_scale = scale;
        m_style = state.style;
    }
    if (cancelled && cancelled())
        return {};
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    beginScene(painter, *geometry, scale);
    drawTints(painter, *geometry, state.plan, scale);
    // The base in device pixels, one to one: a plain blend, no scaling.
    painter.save();
    painter.resetTransform();
    drawBaseOver(painter, m_base);
    painter.restore();
    if (state.plan.boundary) {
        painter.setBrush(Qt::NoBrush);
        for (const auto &[line, colour] : *state.plan.boundary) {
            QPen pen(QColor::fromRgba(colour), 2);
            pen.setCosmetic(true);
            painter.setPen(pen);
            painter.drawPolyline(line);
        }
    }
    painter.end();
    return image;
}

void FarPictureRenderer::reset()
{
    m_geometry.reset();
    m_style = {};
    m_scale = 0;
    m_base = {};
    m_reusedBase = false;
}

} // namespace cleave::ui
