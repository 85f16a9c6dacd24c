// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"
#include "core/partition/PartitionPlan.h"
#include "ui/geometry/RegionGeometry.h"
#include "ui/support/OpCategory.h"

#include <QColor>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace cleave::ui {

/// Item types, for qgraphicsitem_cast.
enum ItemType {
    NodeItemType = QGraphicsItem::UserType + 1,
    EdgeItemType,
    RegionItemType,
    BadgeItemType,
    BlockFrameLayerType,
    RegionLabelItemType,
    ItemTileType,
};

/// The on-curve points of a path of lines and cubic segments (its start and each segment's
/// end), replacing `out`: a route's centre line, cheap to draw far out.
void onCurvePoints(const QPainterPath &path, QPolygonF &out);
/// The same from a layout's spline (its first point and every third after it).
void onCurvePoints(const LayoutSpline &spline, QPolygonF &out);
/// A layout spline (start point, then three points per cubic segment) as a path.
[[nodiscard]] QPainterPath splinePath(const LayoutSpline &spline);
/// Strokes with the painter's pen only the cubic segments of `spline` whose control points'
/// box meets `clip` (runs of consecutive ones as one subpath): what a viewport shows of a route
/// that crosses the drawing.
void strokeSplineNear(QPainter &painter, const LayoutSpline &spline, const QRectF &clip);
/// The arrowhead at the spline's end (empty without one).
[[nodiscard]] QPolygonF arrowHead(const LayoutSpline &spline);
/// The box a NodeItem of `rect` draws in (`marked`: with a comparison's ring around it).
[[nodiscard]] QRectF nodeItemBounds(const QRectF &rect, bool marked);
/// The box an EdgeItem of `spline` draws in (`labelled`: with its tensor's shape label).
[[nodiscard]] QRectF edgeItemBounds(const LayoutSpline &spline, bool labelled);
/// A point on the route halfway along it (by the chords between its on-curve points), where
/// badges and clicks go. Linear in the route's segments, without making a path (a long
/// edge's QPainterPath::pointAtPercent flattens thousands of curves).
[[nodiscard]] QPointF splineMidPoint(const LayoutSpline &spline);
/// True when the route of `spline` or its arrowhead passes within `margin` of `area` (each
/// cubic segment whose control points come near it is flattened; the rest is skipped).
[[nodiscard]] bool splineNear(const LayoutSpline &spline, const QRectF &area, qreal margin);
/// The flattened route with its arrowhead's tip (cut-line intersection tests), replacing `out`.
void splinePolyline(const LayoutSpline &spline, QPolygonF &out);
/// True when the segment a-b crosses `line`.
[[nodiscard]] bool polylineCrosses(const QPolygonF &line, const QPointF &a, const QPointF &b);

/// One drawn node: a rounded box coloured by its op category with the op name and output
/// shape (text hidden when zoomed far out). Holds the node's id, never a pointer into the model.
class NodeItem : public QGraphicsItem
{
public:
    enum { Type = NodeItemType };
    NodeItem(NodeId node, const QRectF &rect, LayoutNodeRole role, OpCategory category,
             QString title, QString subtitle);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] NodeId nodeId() const { return m_node; }
    [[nodiscard]] const QString &title() const { return m_title; }
    [[nodiscard]] const QString &subtitle() const { return m_subtitle; }
    [[nodiscard]] const QRectF &rect() const { return m_rect; }
    [[nodiscard]] LayoutNodeRole role() const { return m_role; }
    [[nodiscard]] OpCategory category() const { return m_category; }
    [[nodiscard]] QRectF boundingRect() const override;
    [[nodiscard]] QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    void setHighlighted(bool on);
    [[nodiscard]] bool isHighlighted() const { return m_highlighted; }
    /// Drawn as selected. The canvas keeps the selection per node (items exist only where the
    /// view needs them), not in Qt's item selection: the item is not ItemIsSelectable.
    void setInSelection(bool on);
    [[nodiscard]] bool isInSelection() const { return m_selected; }
    /// A ring in `colour` around the node (a model comparison's added / removed / changed);
    /// an invalid colour removes it. Far out, the node's box takes the colour.
    void setMark(const QColor &colour);
    [[nodiscard]] QColor mark() const;
    /// Marks the node wrong where it is (an op its target does not support): drawn in red.
    void setProblem(bool on);
    [[nodiscard]] bool hasProblem() const { return m_problem; }

private:
    NodeId m_node;
    QRgb m_mark = 0; // 0: no mark (kept as 4 bytes: a canvas holds 100k nodes)
    QRectF m_rect;
    LayoutNodeRole m_role;
    OpCategory m_category;
    QString m_title;
    QString m_subtitle;
    bool m_highlighted = false;
    bool m_problem = false;
    bool m_selected = false;
};

/// Writes the tensor shape beside edges when zoomed in (one per canvas, shared by its edges:
/// the text is made when painted, never stored per edge).
class EdgeLabels
{
public:
    virtual ~EdgeLabels() = default;
    /// The text drawn beside `edge` (its tensor's shape); empty draws nothing.
    [[nodiscard]] virtual QString text(EdgeRef edge) const = 0;
    /// Told of each label as it is drawn (the canvas counts them for tests).
    virtual void drawn(EdgeRef edge, const QString &text) const = 0;
};

/// The zoom from which edges show their tensor's shape (EdgeLabels).
constexpr qreal edgeLabelZoom = 1.0;

/// One drawn edge (`tensor` read by `consumer`): the layout's Bézier spline and arrowhead.
/// Hovering shows the tensor's name, shape, dtype and bytes (CanvasToolTips); zoomed in, the
/// tensor's shape is written beside the route's start (`labels`, nullptr for none: an edge
/// fanning out of the same tensor as a labelled one).
///
/// The route stays in the layout: the item keeps a LayoutSpline view of it (the canvas keeps
/// the layout alive while its items exist), makes a path for each paint and keeps one only once
/// a hit test or an export asks for it (path(), shape()), so that graphs whose routes have
/// millions of points do not hold them twice.
class EdgeItem : public QGraphicsItem
{
public:
    enum { Type = EdgeItemType };
    enum class State { Normal, Boundary, CutHover, Highlighted, Flash };
    EdgeItem(EdgeRef edge, const LayoutSpline &spline, const EdgeLabels *labels = nullptr);
    /// Where the shape label is drawn (scene coordinates; empty for unlabelled edges).
    [[nodiscard]] QRectF labelRect() const;

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] EdgeRef edge() const { return m_edge; }
    /// The route as a path (made on first use, then kept).
    [[nodiscard]] const QPainterPath &path() const;
    [[nodiscard]] QPolygonF arrow() const;
    /// The route's on-curve points, replacing `out` (without making the path).
    void onCurve(QPolygonF &out) const;
    /// The route the item draws (a view into the layout, which owns the points).
    [[nodiscard]] const LayoutSpline &spline() const { return m_spline; }
    /// A point on the route halfway along it (splineMidPoint).
    [[nodiscard]] QPointF midPoint() const { return splineMidPoint(m_spline); }
    [[nodiscard]] QColor boundaryColour() const { return m_boundary; }
    [[nodiscard]] QRectF boundingRect() const override { return m_bounds; }
    [[nodiscard]] QPainterPath shape() const override;
    /// Qt's hit tests at a point (hover, tooltips: a point, or a rectangle of a pixel) are
    /// answered from the route's curves near it (splineNear), without stroking the whole route
    /// into a shape (long routes' shapes held megabytes); larger areas ask shape().
    [[nodiscard]] bool contains(const QPointF &point) const override;
    [[nodiscard]] bool collidesWithPath(const QPainterPath &path,
                                        Qt::ItemSelectionMode mode) const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

    /// The flattened route (cut-line intersection tests).
    [[nodiscard]] const QPolygonF &polyline() const;
    /// True when the segment a-b crosses the edge's route.
    [[nodiscard]] bool crosses(const QPointF &a, const QPointF &b) const;

    /// Bold in a partition's colour (an invalid colour returns to normal).
    void setBoundaryColour(const QColor &colour);
    void setCutHover(bool on);
    [[nodiscard]] bool isCutHover() const { return m_cutHover; }
    [[nodiscard]] bool isHighlighted() const { return m_highlighted; }
    void setHighlighted(bool on);
    void setFlash(qreal strength); // 0 = off

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    EdgeRef m_edge;
    const EdgeLabels *m_labels = nullptr;
    LayoutSpline m_spline;
    mutable QPainterPath m_path;
    QRectF m_bounds;
    mutable QPolygonF m_polyline;
    mutable QPainterPath m_shape;
    QColor m_boundary;
    bool m_cutHover = false;
    bool m_highlighted = false;
    bool m_hovered = false;
    qreal m_flash = 0;
};

/// A partition drawn as a tinted region behind its nodes: the union of its padded node boxes
/// and the routes of the edges inside it. Its name is a RegionLabelItem at labelPos().
///
/// Large partitions hold tens of thousands of boxes and routes: they are plain rectangles and
/// polylines shared by every plan of a layout (RegionGeometry, indexed once), and a paint draws
/// only this partition's ones meeting the exposed area (ItemUsesExtendedStyleOption), with level of
/// detail: far out, square boxes and thin routes without antialiasing.
class PartitionRegionItem : public QGraphicsItem
{
public:
    enum { Type = RegionItemType };
    /// Width of the tint along a route inside the partition (scene units).
    static constexpr qreal routeWidth = regionRouteWidth;
    /// The region of the partition at index `slot` of `membership`: the padded node boxes of
    /// `geometry` (drawn rounded) and its routes inside the partition (drawn with a wide pen).
    /// The shapes are shared, made once per layout; `extent` is the partition's share of them
    /// (regionExtents). Usually a child of a PlanLayerItem, which keeps it out of the scene's
    /// index.
    PartitionRegionItem(PartitionId partition, QColor colour, QString name,
                        std::shared_ptr<const RegionGeometry> geometry, RegionSlots membership,
                        std::int32_t slot, const RegionExtent &extent, QPointF labelPos,
                        QGraphicsItem *parent = nullptr);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] PartitionId partitionId() const { return m_partition; }
    [[nodiscard]] const QString &name() const { return m_name; }
    /// A rename or a new target: the shapes stay.
    void setName(const QString &name) { m_name = name; }
    [[nodiscard]] const QColor &colour() const { return m_colour; }
    /// The boxes as one path (built on each call; SVG export and hit tests).
    [[nodiscard]] QPainterPath boxes() const;
    /// The routes as one path of polylines (built on each call).
    [[nodiscard]] QPainterPath routes() const;
    /// The padded node boxes and the routes of this partition (copied out of the shared shapes).
    [[nodiscard]] std::vector<QRectF> boxRects() const;
    [[nodiscard]] std::vector<QPolygonF> routeLines() const;
    [[nodiscard]] std::size_t boxCount() const { return m_boxCount; }
    [[nodiscard]] std::size_t routeCount() const { return m_routeCount; }
    /// How many boxes and routes the last paint drew (culling, for tests and benchmarks).
    [[nodiscard]] std::size_t lastPaintedPrimitives() const { return m_lastPainted; }
    /// How many route segments the last paint stroked: only those near the exposed area, not
    /// whole routes (a long edge's route crosses the drawing).
    [[nodiscard]] std::size_t lastStrokedSegments() const { return m_lastStroked; }
    [[nodiscard]] QPointF labelPos() const { return m_labelPos; }
    [[nodiscard]] QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    void setHighlighted(bool on);

private:
    PartitionId m_partition;
    QColor m_colour;
    QString m_name;
    std::shared_ptr<const RegionGeometry> m_geometry;
    RegionSlots m_membership;
    std::int32_t m_slot = -1;
    std::size_t m_boxCount = 0;
    std::size_t m_routeCount = 0;
    mutable std::vector<std::uint32_t> m_visible;
    QPointF m_labelPos;
    QRectF m_bounds;
    std::size_t m_lastPainted = 0;
    std::size_t m_lastStroked = 0;
    bool m_highlighted = false;
};

/// A partition's name, right-aligned at its region's label anchor (left of the region's topmost
/// node), drawn at a fixed screen size on a plate edged in the partition's colour, above
/// regions, nodes and badges: a node beside the anchor or a badge on the edge into the region
/// must not hide it.
class RegionLabelItem : public QGraphicsItem
{
public:
    enum { Type = RegionLabelItemType };
    RegionLabelItem(PartitionId partition, QString text, QColor colour);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] PartitionId partitionId() const { return m_partition; }
    [[nodiscard]] const QString &text() const { return m_text; }
    [[nodiscard]] const QColor &colour() const { return m_colour; }
    void setText(const QString &text);
    [[nodiscard]] QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    PartitionId m_partition;
    QString m_text;
    QColor m_colour;
    QRectF m_rect;
};

/// The tensor badge on a boundary edge (`data_n_0 · 1×256×56×56 · 3.2 MB`), drawn at a fixed
/// screen size.
class BadgeItem : public QGraphicsItem
{
public:
    enum { Type = BadgeItemType };
    BadgeItem(EdgeRef edge, QString text, QColor colour);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] EdgeRef edge() const { return m_edge; }
    [[nodiscard]] const QString &text() const { return m_text; }
    [[nodiscard]] const QColor &colour() const { return m_colour; }
    [[nodiscard]] QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    EdgeRef m_edge;
    QString m_text;
    QColor m_colour;
    QRectF m_rect;
};

} // namespace cleave::ui
