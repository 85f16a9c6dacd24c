// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QGraphicsItem>
#include <QString>

#include <vector>

class QGraphicsScene;

namespace cleave::ui {

class BadgeItem;

/// Item type of BadgeCountItem, for qgraphicsitem_cast.
inline constexpr int badgeCountItemType = QGraphicsItem::UserType + 20;

/// Stands for boundary badges that would overlap on screen at the current zoom: a pill saying
/// how many tensors cross there ("5 tensors"), drawn at a fixed screen size. Hovering it
/// expands the group (the badges, stacked below it); leaving collapses it again.
class BadgeCountItem : public QGraphicsItem
{
public:
    enum { Type = badgeCountItemType };
    BadgeCountItem(std::vector<BadgeItem *> members, qreal zoom);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] const std::vector<BadgeItem *> &members() const { return m_members; }
    [[nodiscard]] QString text() const;
    [[nodiscard]] bool isExpanded() const { return m_expanded; }
    /// Shows the members stacked below the count (hover does the same).
    void setExpanded(bool on);
    [[nodiscard]] QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    std::vector<BadgeItem *> m_members;
    QRectF m_rect;
    qreal m_zoom;
    bool m_expanded = false;
};

/// Groups the badges whose screen rectangles overlap at `zoom` (badges keep a fixed screen
/// size, so only the zoom matters, not the scroll position): each group of two or more is
/// hidden behind one BadgeCountItem added to `scene`; single badges stay visible. Returns the
/// count items (the caller owns them through the scene and passes them back to ungroup).
std::vector<BadgeCountItem *>
groupOverlappingBadges(QGraphicsScene &scene, const std::vector<BadgeItem *> &badges, qreal zoom);
/// Deletes the count items and shows every badge again at its own anchor.
void ungroupBadges(std::vector<BadgeCountItem *> &counts);

} // namespace cleave::ui
