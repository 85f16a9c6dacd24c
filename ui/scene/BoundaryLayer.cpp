// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/BoundaryLayer.h"

#include "ui/scene/BadgeClusters.h"
#include "ui/scene/GraphItems.h"

#include <QGraphicsScene>

namespace cleave::ui {

namespace {

void deleteBadges(const std::map<EdgeRef, BadgeItem *> &badges)
{
    for (const auto &[edge, badge] : badges)
        delete badge; // leaves its scene as it goes
}

} // namespace

void BoundaryLayer::show(const std::vector<BoundaryCrossing> &crossings, QGraphicsItem *badgeLayer,
                         QGraphicsScene &scene, qreal zoom)
{
    ungroupBadges(m_counts);
    m_lastMade = 0;
    m_lastRestyled = 0;

    std::map<EdgeRef, QColor> bold;
    std::map<EdgeRef, BadgeItem *> badges;
    for (const BoundaryCrossing &c : crossings) {
        bold.emplace(c.edge, c.colour);
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
        badge->setPos(c.badgePos);
        if (badgeLayer != nullptr)
            badge->setParentItem(badgeLayer);
        else
            scene.addItem(badge);
        badges.emplace(c.edge, badge);
        ++m_lastMade;
    }
    deleteBadges(m_badges); // the badges no longer shown
    m_badges = std::move(badges);

    // Restyle only the edges whose colour changed: the old ones going back to normal first.
    for (const auto &[edge, was] : m_bold) {
        const auto now = bold.find(edge);
        if (now != bold.end() && now->second == was)
            continue;
        restyle(edge, now != bold.end() ? now->second : QColor());
        ++m_lastRestyled;
    }
    for (const auto &[edge, now] : bold) {
        if (m_bold.contains(edge))
            continue;
        restyle(edge, now);
        ++m_lastRestyled;
    }
    m_bold = std::move(bold);

    m_badgeList.clear();
    m_badgeList.reserve(m_badges.size());
    for (const auto &[edge, badge] : m_badges)
        m_badgeList.push_back(badge);
    regroup(scene, zoom);
}

void BoundaryLayer::clear()
{
    ungroupBadges(m_counts);
    deleteBadges(m_badges);
    m_badges.clear();
    m_badgeList.clear();
    for (const auto &[edge, was] : m_bold)
        restyle(edge, {});
    m_bold.clear();
}

void BoundaryLayer::forget()
{
    m_counts.clear();
    m_badges.clear();
    m_badgeList.clear();
    m_bold.clear();
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
    out.reserve(m_bold.size());
    for (const auto &[edge, was] : m_bold)
        out.push_back(edge);
    return out;
}

} // namespace cleave::ui
