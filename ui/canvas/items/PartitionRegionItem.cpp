// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/GraphItems.h"
#include "ui/support/CanvasFont.h"
#include "ui/support/CanvasTheme.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <span>

namespace cleave::ui {

namespace {

// Below this zoom the region is a thin band: square boxes, no antialiasing, stronger tint.
constexpr qreal farZoom = 0.2;

// Strokes the parts of `route` whose segments come near `clip` (each run of consecutive such
// segments as one polyline): a long edge's route crosses the whole drawing, and stroking it
// all with a wide pen for a viewport that shows a few of its segments is what made a frame
// cost a second on a 24k-node model. Returns the number of segments stroked.
std::size_t strokeNear(QPainter &painter, std::span<const LayoutPoint> route, const QRectF &clip,
                       QPolygonF &run)
{
    std::size_t stroked = 0;
    run.clear();
    // The polyline through the on-curve points: every third point of the spline.
    for (std::size_t i = 3; i < route.size(); i += 3) {
        const LayoutPoint &a = route[i - 3];
        const LayoutPoint &b = route[i];
        const bool near = std::max(a.x, b.x) >= clip.left() && std::min(a.x, b.x) <= clip.right()
            && std::max(a.y, b.y) >= clip.top() && std::min(a.y, b.y) <= clip.bottom();
        if (near) {
            if (run.isEmpty())
                run.append(QPointF(a.x, a.y));
            run.append(QPointF(b.x, b.y));
            ++stroked;
        } else if (!run.isEmpty()) {
            painter.drawPolyline(run);
            run.clear();
        }
    }
    if (run.size() > 1)
        painter.drawPolyline(run);
    else if (route.size() == 1 && clip.contains(QPointF(route.front().x, route.front().y)))
        painter.drawPoint(QPointF(route.front().x, route.front().y));
    return stroked;
}

const QFont &labelFont()
{
    static const QFont font = canvasFont(14, QFont::Bold);
    return font;
}

// The indices of the shapes whose entry in `membership` is `slot`; `count` of them.
std::vector<std::size_t> membersOf(const std::vector<std::int32_t> &membership, std::size_t shapes,
                                   std::int32_t slot, std::size_t count)
{
    std::vector<std::size_t> members;
    members.reserve(count);
    for (std::size_t i = 0; i < membership.size() && i < shapes; ++i)
        if (membership[i] == slot)
            members.push_back(i);
    return members;
}

} // namespace

RegionLabelItem::RegionLabelItem(PartitionId partition, QString text, QColor colour)
    : m_partition(partition)
    , m_colour(colour)
{
    setFlag(ItemIgnoresTransformations);
    setText(text);
}

void RegionLabelItem::setText(const QString &text)
{
    prepareGeometryChange();
    m_text = text;
    const QFontMetricsF fm(labelFont());
    // The text with a plate around it (3 px each side, 1 above and below).
    const qreal width = fm.horizontalAdvance(m_text) + 6;
    m_rect = QRectF(-width - 4, -fm.height() / 2 - 1, width, fm.height() + 2);
    update();
}

void RegionLabelItem::paint(QPainter *painter, const QStyleOptionGraphicsItem * /*option*/,
                            QWidget * /*widget*/)
{
    // On a plate of the badges' fill, edged in the partition's colour: above nodes, edges and
    // badges, the name is never hidden and reads on any tint.
    const CanvasColours &colours = canvasColours();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(m_colour, 1.25));
    painter->setBrush(colours.badgeFill);
    painter->drawRoundedRect(m_rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
    painter->setFont(labelFont());
    painter->setPen(colours.partitionText(m_colour));
    painter->drawText(m_rect.adjusted(3, 0, -3, 0), Qt::AlignRight | Qt::AlignVCenter, m_text);
}

PartitionRegionItem::PartitionRegionItem(PartitionId partition, QColor colour, QString name,
                                         std::shared_ptr<const RegionGeometry> geometry,
                                         RegionSlots membership, std::int32_t slot,
                                         const RegionExtent &extent, QPointF labelPos,
                                         QGraphicsItem *parent)
    : QGraphicsItem(parent)
    , m_partition(partition)
    , m_colour(colour)
    , m_name(std::move(name))
    , m_geometry(std::move(geometry))
    , m_membership(std::move(membership))
    , m_slot(slot)
    , m_boxCount(extent.boxCount)
    , m_routeCount(extent.routeCount)
    , m_labelPos(labelPos)
    , m_bounds(extent.bounds.adjusted(-2, -2, 2, 2))
{
    setFlag(ItemUsesExtendedStyleOption);
    setZValue(-10);
}

std::vector<QRectF> PartitionRegionItem::boxRects() const
{
    std::vector<QRectF> rects;
    for (std::size_t i : membersOf(*m_membership.nodes, m_geometry->boxCount(), m_slot, m_boxCount))
        rects.push_back(m_geometry->box(i));
    return rects;
}

std::vector<QPolygonF> PartitionRegionItem::routeLines() const
{
    std::vector<QPolygonF> lines;
    for (std::size_t i :
         membersOf(*m_membership.edges, m_geometry->routeCount(), m_slot, m_routeCount))
        lines.push_back(m_geometry->routePolygon(i));
    return lines;
}

QPainterPath PartitionRegionItem::boxes() const
{
    QPainterPath path;
    path.setFillRule(Qt::WindingFill);
    for (const QRectF &r : boxRects())
        path.addRoundedRect(r, 10, 10);
    return path;
}

QPainterPath PartitionRegionItem::routes() const
{
    QPainterPath path;
    for (const QPolygonF &route : routeLines()) {
        if (route.isEmpty())
            continue;
        path.moveTo(route.first());
        for (qsizetype i = 1; i < route.size(); ++i)
            path.lineTo(route[i]);
    }
    return path;
}

void PartitionRegionItem::setHighlighted(bool on)
{
    if (m_highlighted == on)
        return;
    m_highlighted = on;
    update();
}

void PartitionRegionItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
                                QWidget * /*widget*/)
{
    // Opaque tints (pre-blended with the white canvas): overlapping boxes and routes of one
    // partition then read as one region, with no darker seams where they overlap.
    const qreal lod
        = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    const bool far = lod < farZoom;
    const qreal amount
        = (m_highlighted ? regionTintHighlight : 0) + (lod < 0.5 ? regionTintFar : regionTintNear);
    const QColor fill = canvasColours().tint(m_colour, amount);
    const QRectF exposed = option->exposedRect.isValid() ? option->exposedRect : m_bounds;
    m_lastPainted = 0;
    m_lastStroked = 0;
    if (far)
        painter->setRenderHint(QPainter::Antialiasing, false);
    // The shared index answers for every partition: keep this one's routes and boxes.
    const std::vector<std::int32_t> &edgeSlots = *m_membership.edges;
    const std::vector<std::int32_t> &nodeSlots = *m_membership.nodes;
    auto keepOwn = [this](const std::vector<std::int32_t> &membership) {
        std::erase_if(m_visible, [&](std::uint32_t i) { return membership[i] != m_slot; });
    };
    m_geometry->routesMeeting(exposed, m_visible);
    keepOwn(edgeSlots);
    m_lastPainted += m_visible.size();
    if (!m_visible.empty()) {
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(fill, routeWidth, Qt::SolidLine, far ? Qt::FlatCap : Qt::RoundCap,
                             far ? Qt::MiterJoin : Qt::RoundJoin));
        const qreal half = routeWidth / 2;
        const QRectF clip = exposed.adjusted(-half, -half, half, half);
        QPolygonF run;
        // Without antialiasing: a wide antialiased stroke goes through the rasterizer's
        // coverage scan, which took 17 ms per paint of rnnt's lane bundle at zoom 0.45 (4 ms
        // without); a pale tint's band shows no steps worth that.
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, false);
        for (std::uint32_t i : m_visible)
            m_lastStroked += strokeNear(*painter, m_geometry->route(i), clip, run);
        painter->restore();
    }
    m_geometry->boxesMeeting(exposed, m_visible);
    keepOwn(nodeSlots);
    m_lastPainted += m_visible.size();
    painter->setPen(Qt::NoPen);
    painter->setBrush(fill);
    for (std::uint32_t i : m_visible) {
        if (far)
            painter->fillRect(m_geometry->box(i), fill);
        else
            painter->drawRoundedRect(m_geometry->box(i), 10, 10);
    }
}

} // namespace cleave::ui
