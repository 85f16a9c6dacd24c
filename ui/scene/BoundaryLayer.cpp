// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/BoundaryLayer.h"

#include "ui/scene/BadgeClusters.h"
#include "ui/scene/GraphItems.h"

#include <QGraphicsScene>

namespace cleave::ui {

BoundaryLayer::BoundaryLayer(const std::map<EdgeRef, EdgeItem *> &edgeItems)
    : m_edgeItems(edgeItems)
{
}

void BoundaryLayer::show(const std::vector<BoundaryCrossing> &crossings, QGraphicsItem *badgeLayer,
                         QGraphicsScene &scene, qreal zoom)
{
    ungroupBadges(m_counts);
    m_lastMade = 0;
    m_lastRestyled = 0;

    std::map<EdgeRef, QColor> colours;
    std::map<EdgeRef, BadgeItem *> badges;
    for (const BoundaryCrossing &c : crossings) {
        const auto item = m_edgeItems.find(c.edge);
        if (item == m_edgeItems.end())
            continue;
        colours.emplace(c.edge, c.colour);
        if (c.badge.isEmpty() || badges.contains(c.edge))
            continue;
        const auto kept = m_badges.find(c.edge);
        if (kept != m_badges.end() && kept->second->text() == c.badge
            && kept->second->colour() == c.colour) {
            badges.emplace(c.edge, kept->second);
            m_badges.erase(kept);
            continue;
        }
        auto *badge = new BadgeItem(c.edge, c.badge, c.colour);
        badge->setPos(item->second->midPoint());
        if (badgeLayer != nullptr)
            badge->setParentItem(badgeLayer);
        else
            scene.addItem(badge);
        badges.emplace(c.edge, badge);
        ++m_lastMade;
    }
    // The badges no longer shown (children of a layer: not in the scene's index).
    for (const auto &[edge, badge] : m_badges) {
        if (QGraphicsScene *in = badge->scene())
            in->removeItem(badge);
        delete badge;
    }
    m_badges = std::move(badges);

    // Restyle only the edges whose colour changed: the old ones going back to normal first.
    for (const auto &[edge, colour] : m_colours) {
        const auto now = colours.find(edge);
        if (now != colours.end() && now->second == colour)
            continue;
        if (const auto item = m_edgeItems.find(edge); item != m_edgeItems.end()) {
            item->second->setBoundaryColour(now != colours.end() ? now->second : QColor());
            ++m_lastRestyled;
        }
    }
    for (const auto &[edge, colour] : colours) {
        if (m_colours.contains(edge))
            continue;
        m_edgeItems.at(edge)->setBoundaryColour(colour);
        ++m_lastRestyled;
    }
    m_colours = std::move(colours);

    m_badgeList.clear();
    m_badgeList.reserve(m_badges.size());
    for (const auto &[edge, badge] : m_badges)
        m_badgeList.push_back(badge);
    regroup(scene, zoom);
}

void BoundaryLayer::clear()
{
    ungroupBadges(m_counts);
    for (const auto &[edge, badge] : m_badges) {
        if (QGraphicsScene *in = badge->scene())
            in->removeItem(badge);
        delete badge;
    }
    m_badges.clear();
    m_badgeList.clear();
    for (const auto &[edge, colour] : m_colours)
        if (const auto item = m_edgeItems.find(edge); item != m_edgeItems.end())
            item->second->setBoundaryColour({});
    m_colours.clear();
}

void BoundaryLayer::forget()
{
    m_counts.clear();
    m_badges.clear();
    m_badgeList.clear();
    m_colours.clear();
    m_groupedZoom = 0;
}

void BoundaryLayer::regroup(QGraphicsScene &scene, qreal zoom)
{
    ungroupBadges(m_counts);
    m_groupedZoom = zoom;
    m_counts = groupOverlappingBadges(scene, m_badgeList, zoom);
}

std::vector<EdgeRef> BoundaryLayer::edges() const
{
    std::vector<EdgeRef> out;
    out.reserve(m_colours.size());
    for (const auto &[edge, colour] : m_colours)
        out.push_back(edge);
    return out;
}

} // namespace cleave::ui
