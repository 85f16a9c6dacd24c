// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"
#include "ui/canvas/view/CanvasTool.h"

#include <QPainterPath>
#include <QPointF>
#include <QPolygonF>

#include <functional>
#include <set>
#include <utility>
#include <vector>

class QGraphicsPathItem;

namespace cleave::ui {

/// What the cut tool asks of the drawing, answered from the layout (edge items exist only where
/// the view needs them).
struct CutTargets
{
    /// The drawn edges whose route the segment a-b crosses (scene coordinates).
    std::function<std::vector<EdgeRef>(const QPointF &a, const QPointF &b)> crossing;
    /// Shows `edge` as crossed by the stroke, or as normal again.
    std::function<void(const EdgeRef &edge, bool on)> light;
    /// The route of a drawn edge as a polyline (drawn over the far picture).
    std::function<QPolygonF(const EdgeRef &edge)> route;
};

/// Drag a stroke: it is drawn as a polyline, the edges it crosses light up while dragging, and
/// on release the view reports the crossed edges (CanvasView::cutStroke). Crossings are found
/// per stroke segment by the drawing (CutTargets: the edge tiles near the segment, and an exact
/// segment test against each candidate edge's flattened route), so a stroke costs
/// O(segments × nearby edges), about independent of the graph's size, with or without items.
class CutTool : public CanvasTool
{
public:
    using CanvasTool::CanvasTool;
    ~CutTool() override;
    void activate() override;
    void deactivate() override;
    bool mousePress(QMouseEvent *event) override;
    bool mouseMove(QMouseEvent *event) override;
    bool mouseRelease(QMouseEvent *event) override;

    /// The edges the stroke in progress crosses so far, sorted.
    [[nodiscard]] std::vector<EdgeRef> crossedEdges() const;
    /// Where crossings come from (without: none are found).
    void setTargets(CutTargets targets) { m_targets = std::move(targets); }
    void paintFarOverlay(QPainter &painter) const override;

private:
    void addSegment(const QPointF &a, const QPointF &b);
    void reset();

    QGraphicsPathItem *m_stroke = nullptr;
    QPointF m_last;
    QPainterPath m_path; ///< The stroke drawn so far (what m_stroke shows).
    std::set<EdgeRef> m_crossed;
    CutTargets m_targets;
};

} // namespace cleave::ui
