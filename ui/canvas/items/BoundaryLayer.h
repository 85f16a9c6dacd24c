// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <functional>
#include <map>
#include <utility>
#include <vector>

class QGraphicsItem;
class QGraphicsScene;

namespace cleave::ui {

class BadgeCountItem;
class BadgeItem;

/// One drawn edge that crosses between partitions: drawn bold in `colour` (its producer
/// partition's), with a tensor badge saying `badge` at `badgePos` (the route's middle) when
/// that is not empty (one badge per tensor and consumer partition). An edge whose value the
/// consumer's partition computes again (a replicated weight-only value) moves nothing: it keeps
/// its normal stroke (`bold` false) and its badge says so, in the reader's colour.
struct BoundaryCrossing
{
    EdgeRef edge;
    QPointF badgePos;
    QColor colour;
    QString badge;
    bool bold = true;
};

/// What a plan shows of its boundary tensors on the canvas: the bold boundary edges, their
/// badges, and the counts that stand for badges overlapping on screen.
///
/// A plan change is applied as a difference with the plan shown before: only the edges whose
/// colour changed are restyled (each restyled edge is an item the scene repaints), and a badge
/// whose edge, text and colour are unchanged is kept rather than made again (measuring a
/// badge's text is most of its cost). The counts are made again, as on every zoom change.
class BoundaryLayer
{
public:
    /// How an edge is drawn bold in a colour, or normal again (an invalid colour): the canvas
    /// keeps it per edge, for the edge's item whenever that exists.
    void setRestyle(std::function<void(const EdgeRef &edge, const QColor &colour)> restyle)
    {
        m_restyle = std::move(restyle);
    }
    /// Shows `crossings` instead of what was shown, badges under `badgeLayer` (a
    /// PlanLayerItem; nullptr: top-level items of `scene`), grouped for `zoom`.
    ///
    /// When more than `badgesAtOnce` badges are to be made, only those anchored in `first`
    /// (the visible area) are made now; showMore() makes the others.
    void show(const std::vector<BoundaryCrossing> &crossings, QGraphicsItem *badgeLayer,
              QGraphicsScene &scene, qreal zoom, const QRectF &first = {});
    /// Makes badges left by show() for about `budgetMs` milliseconds (0: all), grouping them all
    /// again once the last is made; true when none is left.
    bool showMore(QGraphicsScene &scene, qreal zoom, int budgetMs);
    /// True while show() left badges to make.
    [[nodiscard]] bool hasPendingBadges() const { return !m_pending.empty(); }
    /// Above this many badges to make, show() makes those in view first.
    static constexpr std::size_t badgesAtOnce = 200;
    /// Shows nothing: every edge back to normal, every badge and count deleted.
    void clear();
    /// Forgets the edges, badges and counts without touching them: the scene deletes them all
    /// (a new layout).
    void forget();
    /// Groups the badges that overlap at `zoom` again (badges keep their screen size).
    void regroup(QGraphicsScene &scene, qreal zoom);

    /// The boundary edges shown, sorted.
    [[nodiscard]] std::vector<EdgeRef> edges() const;
    [[nodiscard]] const std::vector<BadgeItem *> &badges() const { return m_badgeList; }
    /// The zoom the badges were last grouped for.
    [[nodiscard]] qreal groupedZoom() const { return m_groupedZoom; }
    /// How many badges the last show() made (the others it kept), and how many edges it
    /// restyled.
    [[nodiscard]] std::size_t lastMadeBadges() const { return m_lastMade; }
    [[nodiscard]] std::size_t lastRestyledEdges() const { return m_lastRestyled; }

private:
    void restyle(const EdgeRef &edge, const QColor &colour) const
    {
        if (m_restyle)
            m_restyle(edge, colour);
    }
    struct PendingBadge
    {
        EdgeRef edge;
        QPointF pos;
        QString text;
        QColor colour;
    };
    /// Makes the badge `p` says under m_layer (or in `scene`).
    BadgeItem *makeBadge(QGraphicsScene &scene, const PendingBadge &p);

    std::function<void(const EdgeRef &, const QColor &)> m_restyle;
    std::map<EdgeRef, QColor> m_bold; // the bold edges shown
    std::map<EdgeRef, BadgeItem *> m_badges;
    std::vector<BadgeItem *> m_badgeList; // m_badges' items, in edge order
    std::vector<BadgeCountItem *> m_counts;
    std::vector<PendingBadge> m_pending; // badges show() left for showMore()
    QGraphicsItem *m_layer = nullptr; // where badges go (null: top-level in the scene)
    qreal m_groupedZoom = 0;
    std::size_t m_lastMade = 0;
    std::size_t m_lastRestyled = 0;
};

} // namespace cleave::ui
