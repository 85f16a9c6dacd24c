// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/BadgeClusters.h"

#include "ui/canvas/items/GraphItems.h"
#include "ui/support/CanvasFont.h"
#include "ui/support/CanvasTheme.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QPainter>

#include <algorithm>
#include <unordered_map>

namespace cleave::ui {

namespace {

const QFont &countFont()
{
    static const QFont font = canvasFont(11, QFont::DemiBold);
    return font;
}

// A badge's rectangle in device pixels when the view scales the scene by `zoom`.
QRectF screenRect(const BadgeItem *badge, qreal zoom)
{
    return badge->boundingRect().translated(badge->pos() * zoom);
}

} // namespace

BadgeCountItem::BadgeCountItem(std::vector<BadgeItem *> members, qreal zoom)
    : m_members(std::move(members))
    , m_zoom(zoom)
{
    // Measured once per count of tensors (a plan change on a large model makes hundreds).
    static const qreal h = QFontMetricsF(countFont()).height() + 6;
    static std::unordered_map<std::size_t, qreal> widths;
    auto width = widths.find(m_members.size());
    if (width == widths.end())
        width
            = widths.emplace(m_members.size(), QFontMetricsF(countFont()).horizontalAdvance(text()))
                  .first;
    m_rect = QRectF(8, -h / 2, width->second + 16, h);
    setFlag(ItemIgnoresTransformations);
    setAcceptHoverEvents(true);
    setZValue(5.5);
    QStringList lines;
    for (const BadgeItem *b : m_members)
        lines << b->text();
    setToolTip(lines.join(QLatin1Char('\n')));
}

QString BadgeCountItem::text() const
{
    return QStringLiteral("%1 tensors").arg(m_members.size());
}

QRectF BadgeCountItem::boundingRect() const
{
    if (!m_expanded)
        return m_rect;
    QRectF r = m_rect;
    for (const BadgeItem *b : m_members)
        r = r.united(b->boundingRect().translated(0, r.bottom() - b->boundingRect().top()));
    return r;
}

void BadgeCountItem::setExpanded(bool on)
{
    if (m_expanded == on)
        return;
    prepareGeometryChange();
    m_expanded = on;
    // Stacked below the count, one badge height apart in screen pixels.
    qreal offset = m_rect.bottom();
    for (BadgeItem *b : m_members) {
        if (on) {
            b->setPos(pos() + QPointF(0, (offset - b->boundingRect().top()) / m_zoom));
            b->setZValue(6);
            offset += b->boundingRect().height();
        } else {
            b->setPos(b->data(0).toPointF());
            b->setZValue(5);
        }
        b->setVisible(on);
    }
    update();
}

void BadgeCountItem::paint(QPainter *painter, const QStyleOptionGraphicsItem * /*option*/,
                           QWidget * /*widget*/)
{
    const QColor colour = m_members.empty() ? QColor(Qt::gray) : m_members.front()->colour();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(colour, 1.5));
    const CanvasColours &colours = canvasColours();
    painter->setBrush(m_expanded ? colours.tint(colour, 0.25) : colours.badgeFill);
    painter->drawRoundedRect(m_rect.adjusted(0.75, 0.75, -0.75, -0.75), m_rect.height() / 2,
                             m_rect.height() / 2);
    painter->setFont(countFont());
    painter->setPen(colours.dark ? colour.lighter(160) : colour.darker(140));
    painter->drawText(m_rect, Qt::AlignCenter, text());
}

void BadgeCountItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    setExpanded(true);
    QGraphicsItem::hoverEnterEvent(event);
}

void BadgeCountItem::hoverLeaveEvent(QGraphicsSceneHoverEvent *event)
{
    setExpanded(false);
    QGraphicsItem::hoverLeaveEvent(event);
}

std::vector<BadgeCountItem *>
groupOverlappingBadges(QGraphicsScene &scene, const std::vector<BadgeItem *> &badges, qreal zoom)
{
    std::vector<BadgeCountItem *> counts;
    if (zoom <= 0)
        return counts;
    std::vector<BadgeItem *> order = badges;
    for (BadgeItem *b : order)
        b->setData(0, b->pos()); // the anchor, restored when a group collapses
    std::sort(order.begin(), order.end(), [](const BadgeItem *a, const BadgeItem *b) {
        return a->pos().y() < b->pos().y()
            || (a->pos().y() == b->pos().y() && a->pos().x() < b->pos().x());
    });
    // Greedy, top to bottom: a badge joins the first open group whose extent it overlaps.
    struct Group
    {
        QRectF extent;
        std::vector<BadgeItem *> members;
    };
    std::vector<Group> groups;
    std::size_t firstOpen = 0;
    for (BadgeItem *b : order) {
        const QRectF r = screenRect(b, zoom);
        while (firstOpen < groups.size() && groups[firstOpen].extent.bottom() < r.top())
            ++firstOpen;
        bool joined = false;
        for (std::size_t g = firstOpen; g < groups.size() && !joined; ++g) {
            if (groups[g].extent.intersects(r)) {
                groups[g].extent = groups[g].extent.united(r);
                groups[g].members.push_back(b);
                joined = true;
            }
        }
        if (!joined)
            groups.push_back({ r, { b } });
    }
    for (Group &g : groups) {
        if (g.members.size() < 2)
            continue;
        for (BadgeItem *b : g.members)
            b->setVisible(false);
        auto *count = new BadgeCountItem(g.members, zoom);
        count->setPos(g.members.front()->pos());
        // Beside its badges: under their layer when they have one (PlanLayerItem).
        if (QGraphicsItem *layer = g.members.front()->parentItem())
            count->setParentItem(layer);
        else
            scene.addItem(count);
        counts.push_back(count);
    }
    return counts;
}

void ungroupBadges(std::vector<BadgeCountItem *> &counts)
{
    for (BadgeCountItem *count : counts) {
        for (BadgeItem *b : count->members()) {
            b->setPos(b->data(0).toPointF());
            b->setZValue(5);
            b->setVisible(true);
        }
        delete count; // leaves its scene as it goes
    }
    counts.clear();
}

} // namespace cleave::ui
