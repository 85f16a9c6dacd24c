// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/CanvasTheme.h"
#include "ui/scene/GraphItems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace cleave::ui {

namespace {

constexpr qreal routeWidth = 40;
// Below this zoom the region is a thin band: square boxes, no antialiasing, stronger tint.
constexpr qreal farZoom = 0.2;

const QFont &labelFont()
{
    static const QFont font = [] {
        QFont f;
        f.setPixelSize(14);
        f.setWeight(QFont::Bold);
        return f;
    }();
    return font;
}

} // namespace

RegionLabelItem::RegionLabelItem(PartitionId partition, QString text, QColor colour)
    : m_partition(partition)
    , m_colour(std::move(colour))
{
    setFlag(ItemIgnoresTransformations);
    setZValue(-5); // above every region, below edges and nodes
    setText(text);
}

void RegionLabelItem::setText(const QString &text)
{
    prepareGeometryChange();
    m_text = text;
    const QFontMetricsF fm(labelFont());
    m_rect = QRectF(-fm.horizontalAdvance(m_text) - 4, -fm.ascent() + fm.height() / 2 - fm.height(),
                    fm.horizontalAdvance(m_text) + 4, fm.height());
    update();
}

void RegionLabelItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setFont(labelFont());
    painter->setPen(canvasColours().partitionText(m_colour));
    painter->drawText(m_rect, Qt::AlignRight | Qt::AlignVCenter, m_text);
}

PartitionRegionItem::PartitionRegionItem(PartitionId partition, QColor colour, QString name,
                                         std::vector<QRectF> boxes, std::vector<QPolygonF> routes,
                                         QPointF labelPos)
    : m_partition(partition)
    , m_colour(std::move(colour))
    , m_name(std::move(name))
    , m_boxes(std::move(boxes))
    , m_routes(std::move(routes))
    , m_labelPos(labelPos)
{
    m_boxIndex.build(m_boxes);
    std::vector<QRectF> routeBounds;
    routeBounds.reserve(m_routes.size());
    const qreal half = routeWidth / 2;
    for (const QPolygonF &route : m_routes)
        routeBounds.push_back(route.boundingRect().adjusted(-half, -half, half, half));
    m_routeIndex.build(routeBounds);
    for (const QRectF &r : m_boxes)
        m_bounds = m_bounds.united(r);
    for (const QRectF &r : routeBounds)
        m_bounds = m_bounds.united(r);
    m_bounds.adjust(-2, -2, 2, 2);
    setFlag(ItemUsesExtendedStyleOption);
    setZValue(-10);
}

QPainterPath PartitionRegionItem::boxes() const
{
    QPainterPath path;
    path.setFillRule(Qt::WindingFill);
    for (const QRectF &r : m_boxes)
        path.addRoundedRect(r, 10, 10);
    return path;
}

QPainterPath PartitionRegionItem::routes() const
{
    QPainterPath path;
    for (const QPolygonF &route : m_routes) {
        if (route.isEmpty())
            continue;
        path.moveTo(route.first());
        for (qsizetype i = 1; i < route.size(); ++i)
            path.lineTo(route[i]);
    }
    return path;
}

void PartitionRegionItem::paintFar(QPainter &painter, qreal scale) const
{
    const QColor fill = canvasColours().tint(m_colour, (m_highlighted ? 0.14 : 0) + 0.32);
    painter.setPen(QPen(fill, routeWidth, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
    painter.setBrush(Qt::NoBrush);
    for (const QPolygonF &route : m_routes)
        painter.drawPolyline(route);
    const qreal pixel = 1 / scale;
    for (const QRectF &r : m_boxes)
        painter.fillRect(
            QRectF(r.x(), r.y(), std::max(pixel, r.width()), std::max(pixel, r.height())), fill);
}

void PartitionRegionItem::setHighlighted(bool on)
{
    if (m_highlighted == on)
        return;
    m_highlighted = on;
    update();
}

void PartitionRegionItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
                                QWidget *)
{
    // Opaque tints (pre-blended with the white canvas): overlapping boxes and routes of one
    // partition then read as one region, with no darker seams where they overlap.
    const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const bool far = lod < farZoom;
    const qreal amount = (m_highlighted ? 0.14 : 0) + (lod < 0.5 ? 0.32 : 0.16);
    const QColor fill = canvasColours().tint(m_colour, amount);
    const QRectF exposed = option->exposedRect.isValid() ? option->exposedRect : m_bounds;
    m_lastPainted = 0;
    if (far)
        painter->setRenderHint(QPainter::Antialiasing, false);
    m_routeIndex.query(exposed, m_visible);
    m_lastPainted += m_visible.size();
    if (!m_visible.empty()) {
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(fill, routeWidth, Qt::SolidLine, far ? Qt::FlatCap : Qt::RoundCap,
                             far ? Qt::MiterJoin : Qt::RoundJoin));
        for (std::uint32_t i : m_visible)
            painter->drawPolyline(m_routes[i]);
    }
    m_boxIndex.query(exposed, m_visible);
    m_lastPainted += m_visible.size();
    painter->setPen(Qt::NoPen);
    painter->setBrush(fill);
    for (std::uint32_t i : m_visible) {
        if (far)
            painter->fillRect(m_boxes[i], fill);
        else
            painter->drawRoundedRect(m_boxes[i], 10, 10);
    }
}

} // namespace cleave::ui
