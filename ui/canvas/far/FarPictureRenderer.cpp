// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/far/FarPictureRenderer.h"

#include "ui/canvas/far/FarStrips.h"
#include "ui/canvas/far/PaletteImageBuilder.h"

#include <QPainter>
#include <QPen>

#include <algorithm>
#include <utility>

namespace cleave::ui {

namespace {

// A strip's drawn image is about this size (32 bits a pixel): a few hundred rows of a large
// model's picture.
constexpr qsizetype stripBytes = qsizetype { 512 } * 1024;
// How many times taller than the base's the picture's strips are.
constexpr int composeStripFactor = 4;
// Rows beyond a shape's own that its pixels may reach (a line a pixel or two wide).
constexpr qreal lineReach = 2;
// Segments of ordinary edges handed to one drawLines() call.
constexpr std::size_t lineBatch = 4096;

// The base layer's groups of strip operations, in drawing order.
constexpr std::int32_t baseRoute = 0;
constexpr std::int32_t baseNode = 1;
constexpr std::int32_t baseBox = 2;

QRectF atLeastPixel(const QRectF &r, qreal pixel)
{
    return { r.x(), r.y(), std::max(pixel, r.width()), std::max(pixel, r.height()) };
}

// The 32-bit image strips are drawn in, reused from strip to strip: image() is a view of its
// first rows, transparent, exactly as tall as the strip's drawn rows (a line is clipped at the
// image's edge, as it would be at the picture's).
class StripImage
{
public:
    StripImage(int width, int rows)
        : m_buffer(width, std::max(1, rows), QImage::Format_ARGB32_Premultiplied)
    {
    }
    [[nodiscard]] QImage image(int rows)
    {
        QImage view(m_buffer.bits(), m_buffer.width(), rows, m_buffer.bytesPerLine(),
                    QImage::Format_ARGB32_Premultiplied);
        view.fill(Qt::transparent);
        return view;
    }

private:
    QImage m_buffer;
};

// A painter over strip `s`'s image in scene coordinates, flat (no antialiasing: boxes and
// lines a pixel or two wide gain nothing from it).
void beginStrip(QPainter &painter, const FarGeometry &geometry, qreal scale,
                const FarStrips &strips, int s)
{
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.translate(0, -strips.drawTop(s));
    painter.scale(scale, scale);
    painter.translate(-geometry.bounds.topLeft());
}

// Hands strip `s`'s own rows of `image` to `out`.
void keepRows(const QImage &image, const FarStrips &strips, int s, PaletteImageBuilder &out)
{
    for (int y = strips.ownTop(s); y < strips.ownBottom(s); ++y)
        out.setRow(y, reinterpret_cast<const QRgb *>(image.constScanLine(y - strips.drawTop(s))));
}

int stripRowsFor(QSize size, int asked)
{
    if (asked > 0)
        return asked;
    return static_cast<int>(
        std::max<qsizetype>(16, stripBytes / (qsizetype { 4 } * std::max(1, size.width()))));
}

// The base layer: ordinary edges, then node boxes by category, then the style's boxes, a
// strip at a time, into `reuse`'s pixels when it can lend them.
QImage drawBase(const FarGeometry &geometry, const FarStyle &style, qreal scale, QSize size,
                int rows, QImage reuse)
{
    FarStrips strips(size, rows, geometry.bounds.top(), scale);
    const qreal pixel = 1 / scale;
    const Layout *layout = geometry.layout.get();
    if (layout != nullptr) {
        std::uint32_t at = 0;
        for (const auto &[edge, route] : layout->edges) {
            if (!route.points().empty())
                strips.addRoute(route, pixel / 2, lineReach, at, baseRoute);
            ++at;
        }
        at = 0;
        for (const auto &[id, r] : layout->nodes)
            strips.addBox(atLeastPixel(toRectF(r), pixel), lineReach, at++, baseNode);
    }
    for (std::size_t i = 0; i < style.boxes.size(); ++i)
        strips.addBox(atLeastPixel(style.boxes[i].first, pixel), lineReach,
                      static_cast<std::uint32_t>(i), baseBox);

    PaletteImageBuilder out(size, std::move(reuse));
    StripImage canvas(size.width(), strips.maxDrawRows());
    // Ordinary edges are a pixel or two long here: drawLines() calls of many segments.
    std::vector<QLineF> segments;
    segments.reserve(lineBatch);
    QPen pen(QColor::fromRgba(style.edge), 0);
    pen.setCosmetic(true);
    for (int s = 0; s < strips.count(); ++s) {
        QImage image = canvas.image(strips.drawBottom(s) - strips.drawTop(s));
        QPainter painter(&image);
        beginStrip(painter, geometry, scale, strips, s);
        painter.setPen(pen);
        auto flush = [&] {
            painter.drawLines(segments.data(), static_cast<int>(segments.size()));
            segments.clear();
        };
        for (const StripOp &op : strips.ops(s)) {
            if (op.group == baseRoute) {
                const LayoutSpline route = layout->edges.spline(op.item);
                QPointF from;
                bool started = false;
                forKeptPoints(route, pixel / 2, op.first, op.last,
                              [&](std::size_t /*index*/, const QPointF &point) {
                                  if (started)
                                      segments.emplace_back(from, point);
                                  from = point;
                                  started = true;
                              });
                if (segments.size() >= lineBatch)
                    flush();
                continue;
            }
            if (!segments.empty())
                flush();
            if (op.group == baseNode) {
                const std::uint8_t category
                    = op.item < geometry.categories.size() ? geometry.categories[op.item] : 0;
                const QRgb colour
                    = category < style.categories.size() ? style.categories[category] : 0;
                painter.fillRect(
                    atLeastPixel(toRectF((layout->nodes.begin() + op.item)->second), pixel),
                    QColor::fromRgba(colour));
            } else {
                const auto &[rect, colour] = style.boxes[op.item];
                painter.fillRect(atLeastPixel(rect, pixel), QColor::fromRgba(colour));
            }
        }
        if (!segments.empty())
            flush();
        painter.end();
        keepRows(image, strips, s, out);
    }
    return out.take();
}

// Files the partition tints, one partition after the other in plan order (a later region
// covers an earlier one where they overlap, as the regions' items do): the routes inside it,
// then its padded node boxes. The group of each is its partition.
void fileTints(FarStrips &strips, const FarGeometry &geometry, const FarPlan &plan, qreal scale)
{
    const Layout *layout = geometry.layout.get();
    if (layout == nullptr || !plan.nodeSlots || plan.tints.empty())
        return;
    const std::size_t count = plan.tints.size();
    std::vector<std::vector<std::uint32_t>> nodes(count);
    std::vector<std::vector<std::uint32_t>> routes(count);
    const std::vector<std::int32_t> &nodeSlots = *plan.nodeSlots;
    for (std::size_t i = 0; i < nodeSlots.size() && i < layout->nodes.size(); ++i)
        if (nodeSlots[i] >= 0 && static_cast<std::size_t>(nodeSlots[i]) < count)
            nodes[static_cast<std::size_t>(nodeSlots[i])].push_back(static_cast<std::uint32_t>(i));
    if (plan.edgeSlots) {
        // The slots follow the edges that have a route; a route is filed by its position
        // among all the layout's edges.
        const std::vector<std::int32_t> &edgeSlots = *plan.edgeSlots;
        std::size_t routed = 0;
        std::uint32_t at = 0;
        for (const auto &[edge, route] : layout->edges) {
            if (!route.points().empty() && routed < edgeSlots.size()) {
                const std::int32_t slot = edgeSlots[routed++];
                if (slot >= 0 && static_cast<std::size_t>(slot) < count)
                    routes[static_cast<std::size_t>(slot)].push_back(at);
            }
            ++at;
        }
    }
    const qreal pixel = 1 / scale;
    const qreal width = geometry.routeWidth * scale;
    const qreal routeReach = std::max<qreal>(width / 2, 0) + lineReach;
    for (std::size_t slot = 0; slot < count; ++slot) {
        const auto group = static_cast<std::int32_t>(slot);
        for (std::uint32_t at : routes[slot])
            strips.addRoute(layout->edges.spline(at), pixel / 2, routeReach, at, group);
        // A node's box is filed with the index of the node, past the routes' indices.
        for (std::uint32_t n : nodes[slot]) {
            strips.addBox(atLeastPixel(geometry.regionBox(n), pixel), lineReach,
                          static_cast<std::uint32_t>(layout->edges.size()) + n, group);
        }
    }
}

// Draws strip `s`'s tints (filed by fileTints): a route is a pixel or two wide here, a
// cosmetic pen of that width draws the same band without running the wide-pen stroker over
// every route.
void drawTints(QPainter &painter, const FarGeometry &geometry, const FarPlan &plan, qreal scale,
               const std::vector<StripOp> &ops)
{
    const Layout *layout = geometry.layout.get();
    const qreal pixel = 1 / scale;
    const qreal width = geometry.routeWidth * scale;
    const auto routeCount
        = static_cast<std::uint32_t>(layout != nullptr ? layout->edges.size() : 0);
    std::int32_t group = -1;
    QColor tint;
    QPolygonF line;
    painter.setBrush(Qt::NoBrush);
    for (const StripOp &op : ops) {
        if (op.group != group) {
            group = op.group;
            tint = QColor::fromRgba(plan.tints[static_cast<std::size_t>(group)]);
            QPen pen = width < 1.5 ? QPen(tint, 0) : QPen(tint, width);
            pen.setCosmetic(true);
            pen.setCapStyle(Qt::FlatCap);
            painter.setPen(pen);
        }
        if (op.item < routeCount) {
            line.clear();
            forKeptPoints(layout->edges.spline(op.item), pixel / 2, op.first, op.last,
                          [&](std::size_t /*index*/, const QPointF &point) { line.append(point); });
            painter.drawPolyline(line);
        } else {
            painter.fillRect(atLeastPixel(geometry.regionBox(op.item - routeCount), pixel), tint);
        }
    }
}

// Blends `base`'s rows `top` .. `bottom` over the painter's device at row `at`, one to one.
void drawBaseRows(QPainter &painter, const QImage &base, int top, int bottom, int at)
{
    QImage band(base.constScanLine(top), base.width(), bottom - top, base.bytesPerLine(),
                base.format());
    if (base.format() == QImage::Format_Indexed8)
        band.setColorTable(base.colorTable());
    painter.drawImage(0, at, band);
}

// The picture: the tints below the base, the boundary edges over it, a strip at a time.
QImage compose(const FarGeometry &geometry, const FarPlan &plan, const QImage &base, qreal scale,
               QSize size, int rows)
{
    FarStrips strips(size, rows, geometry.bounds.top(), scale);
    fileTints(strips, geometry, plan, scale);
    // The boundary lines are few: each is drawn whole in the strips its rows meet.
    std::vector<std::pair<int, int>> boundaryStrips;
    if (plan.boundary) {
        boundaryStrips.reserve(plan.boundary->size());
        for (const auto &[line, colour] : *plan.boundary) {
            const QRectF box = line.boundingRect();
            boundaryStrips.push_back(strips.meeting(strips.rowOf(box.top()) - lineReach,
                                                    strips.rowOf(box.bottom()) + lineReach));
        }
    }
    PaletteImageBuilder out(size, {});
    StripImage canvas(size.width(), strips.maxDrawRows());
    for (int s = 0; s < strips.count(); ++s) {
        QImage image = canvas.image(strips.drawBottom(s) - strips.drawTop(s));
        QPainter painter(&image);
        beginStrip(painter, geometry, scale, strips, s);
        drawTints(painter, geometry, plan, scale, strips.ops(s));
        // The base in device pixels, one to one: a plain blend, no scaling.
        painter.save();
        painter.resetTransform();
        drawBaseRows(painter, base, strips.ownTop(s), strips.ownBottom(s),
                     strips.ownTop(s) - strips.drawTop(s));
        painter.restore();
        if (plan.boundary) {
            painter.setBrush(Qt::NoBrush);
            for (std::size_t i = 0; i < plan.boundary->size(); ++i) {
                if (boundaryStrips[i].first > s || boundaryStrips[i].second < s)
                    continue;
                const auto &[line, colour] = (*plan.boundary)[i];
                QPen pen(QColor::fromRgba(colour), 2);
                pen.setCosmetic(true);
                painter.setPen(pen);
                painter.drawPolyline(line);
            }
        }
        painter.end();
        keepRows(image, strips, s, out);
    }
    return out.take();
}

} // namespace

QImage FarPictureRenderer::render(const std::shared_ptr<const FarGeometry> &geometry,
                                  const FarState &state, qreal scale, QSize size,
                                  const CancelFunction &cancelled)
{
    if (!geometry || size.isEmpty() || scale <= 0)
        return {};
    const int rows = stripRowsFor(size, m_stripRows);
    m_reusedBase = m_geometry == geometry && m_scale == scale && m_style == state.style
        && m_base.size() == size;
    if (!m_reusedBase) {
        // Redrawn in the old base's pixels when it has the size: a new selection or highlight
        // changes the boxes only.
        m_base = drawBase(*geometry, state.style, scale, size, rows, std::exchange(m_base, {}));
        m_geometry = geometry;
        m_scale = scale;
        m_style = state.style;
    }
    if (cancelled && cancelled())
        return {};
    // Composed in strips 4 times as tall (~2 MB of 32-bit pixels): every plan change composes
    // the picture again, and each strip costs a painter and its share of the tints' runs (on
    // rnnt, 12 strips took ~16 ms more a cut than one whole drawing, 3 strips about as much).
    return compose(*geometry, state.plan, m_base, scale, size, composeStripFactor * rows);
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
