// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"
#include "ui/tools/CanvasTool.h"

#include <QPainterPath>
#include <QPointF>

#include <set>
#include <vector>

class QGraphicsPathItem;

namespace cleave::ui {

class EdgeItem;

/// Drag a stroke: it is drawn as a polyline, the edges it crosses light up while dragging, and
/// on release the view reports the crossed edges (CanvasView::cutStroke). Crossings are found
/// per stroke segment from the scene (items in the segment's bounding box: the scene looks only
/// into the ItemTiles near it) and an exact segment test against each candidate edge's
/// flattened route, so a stroke costs O(segments × nearby edges), about independent of the
/// graph's size.
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

private:
    void addSegment(const QPointF &a, const QPointF &b);
    void reset();

    QGraphicsPathItem *m_stroke = nullptr;
    QPointF m_last;
    QPainterPath m_path; ///< The stroke drawn so far (what m_stroke shows).
    std::set<EdgeRef> m_crossed;
    std::vector<EdgeItem *> m_lit;
};

} // namespace cleave::ui
