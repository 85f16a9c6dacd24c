// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/BoundaryLayer.h"

#include "ui/canvas/items/BadgeClusters.h"
#include "ui/canvas/items/GraphItems.h"

#include <QElapsedTimer>
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
                         QGraphicsScene &scene, qreal zoom, const QRectF &first)
{
    ungroupBadges(m_counts);
    m_lastMade = 0;
    m_lastRestyled = 0;
    m_pending.clear();
    m_layer = badgeLayer;

    std::map<EdgeRef, QColor> bold;
    std::map<EdgeRef, BadgeItem *> badges;
    std::vector<PendingBadge> made; // new badges, in crossing order
    for (const BoundaryCrossing &c : crossings) {
        if (c.bold)
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
        badges.emplace(c.edge, nullptr); // one badge per edge
        made.push_back({ c.edge, c.badgePos, c.badge, c.colour });
    }
    // Measuring a badge's text is most of its cost: hundreds of them (a cut across a large
    // model) are made in view first, the rest on the next turns (showMore()).
    const bool sliced = made.size() > badgesAtOnce && first.isValid();
    for (PendingBadge &p : made) {
        if (sliced && !first.contains(p.pos)) {
            badges.erase(p.edge);
            m_pending.push_back(std::move(p));
            continue;
        }
        badges[p.edge] = makeBadge(scene, p);
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

BadgeItem *BoundaryLayer::makeBadge(QGraphicsScene &scene, const PendingBadge &p)
{
    auto *badge = new BadgeItem(p.edge, p.text, p.colour);
    badge->setPos(p.pos);
    if (m_layer != nullptr)
        badge->setParentItem(m_layer);
    else
        scene.addItem(badge);
    ++m_lastMade;
    return badge;
}

bool BoundaryLayer::showMore(QGraphicsScene &scene, qreal zoom, int budgetMs)
{
    if (m_pending.empty())
        return true;
    QElapsedTimer clock;
    clock.start();
    std::size_t done = 0;
    while (done < m_pending.size()
           && (budgetMs <= 0 || done % 16 != 15 || clock.elapsed() < budgetMs)) {
        const PendingBadge &p = m_pending[m_pending.size() - 1 - done];
        m_badges.emplace(p.edge, makeBadge(scene, p));
        ++done;
    }
    m_pending.resize(m_pending.size() - done);
    if (!m_pending.empty())
        return false;
    m_badgeList.clear();
    m_badgeList.reserve(m_badges.size());
    for (const auto &[edge, badge] : m_badges)
        m_badgeList.push_back(badge);
    regroup(scene, zoom);
    return true;
}

void BoundaryLayer::clear()
{
    m_pending.clear();
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
    m_pending.clear();
    m_layer = nullptr;
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
