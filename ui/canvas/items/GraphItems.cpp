// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/GraphItems.h"

#include "ui/canvas/items/EdgePainter.h"
#include "ui/canvas/items/ItemTile.h"
#include "ui/canvas/items/NodePainter.h"
#include "ui/support/CanvasFont.h"
#include "ui/support/CanvasTheme.h"

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QHash>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>
#include <span>

namespace cleave::ui {

namespace {

const QFont &badgeFont()
{
    static const QFont font = [] {
        QFont f = canvasFont(11);
        // Measured and drawn without shaping (plain Latin names, shapes and sizes): a plan
        // change on a large model measures hundreds of badges, and shaping was most of it.
        f.setKerning(false);
        f.setStyleStrategy(QFont::PreferNoShaping);
        return f;
    }();
    return font;
}

bool segmentsCross(const QPointF &p1, const QPointF &p2, const QPointF &q1, const QPointF &q2)
{
    auto cross = [](const QPointF &o, const QPointF &a, const QPointF &b) {
        return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
    };
    const qreal d1 = cross(q1, q2, p1);
    const qreal d2 = cross(q1, q2, p2);
    const qreal d3 = cross(p1, p2, q1);
    const qreal d4 = cross(p1, p2, q2);
    // Touching counts (a stroke through a vertex of the flattened route must not slip between
    // its two segments); collinear overlap does not.
    if (d1 == 0 && d2 == 0)
        return false;
    return d1 * d2 <= 0 && d3 * d4 <= 0;
}

} // namespace

void onCurvePoints(const QPainterPath &path, QPolygonF &out)
{
    out.clear();
    const int count = path.elementCount();
    for (int i = 0; i < count; ++i) {
        const QPainterPath::Element e = path.elementAt(i);
        if (e.type == QPainterPath::CurveToElement) {
            i += 2; // two control points, then the segment's end
            if (i < count)
                out.append(QPointF(path.elementAt(i).x, path.elementAt(i).y));
            continue;
        }
        out.append(QPointF(e.x, e.y));
    }
}

// --- NodeItem -----------------------------------------------------------------------------------

NodeItem::NodeItem(NodeId node, const QRectF &rect, LayoutNodeRole role, OpCategory category,
                   QString title, QString subtitle)
    : m_node(node)
    , m_rect(rect)
    , m_role(role)
    , m_category(category)
    , m_title(std::move(title))
    , m_subtitle(std::move(subtitle))
{
    setZValue(2);
}

QRectF nodeItemBounds(const QRectF &rect, bool marked)
{
    return marked ? rect.adjusted(-7, -7, 7, 7) : rect.adjusted(-3, -3, 3, 3);
}

QRectF NodeItem::boundingRect() const
{
    return nodeItemBounds(m_rect, m_mark != 0);
}

void NodeItem::setMark(const QColor &colour)
{
    const QRgb mark = colour.isValid() ? colour.rgba() : 0;
    if (mark == m_mark)
        return;
    repaintItem(*this); // the old box, and below the new one (a ring widens it)
    prepareGeometryChange();
    m_mark = mark;
    repaintItem(*this);
}

QColor NodeItem::mark() const
{
    return m_mark != 0 ? QColor::fromRgba(m_mark) : QColor();
}

QPainterPath NodeItem::shape() const
{
    QPainterPath p;
    p.addRect(m_rect);
    return p;
}

void NodeItem::setHighlighted(bool on)
{
    if (m_highlighted == on)
        return;
    m_highlighted = on;
    repaintItem(*this);
}

void NodeItem::setInSelection(bool on)
{
    if (m_selected == on)
        return;
    m_selected = on;
    repaintItem(*this);
}

void NodeItem::setProblem(bool on)
{
    if (m_problem == on)
        return;
    m_problem = on;
    repaintItem(*this);
}

void NodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem * /*option*/,
                     QWidget * /*widget*/)
{
    NodeLook look;
    look.rect = m_rect;
    look.role = m_role;
    look.category = m_category;
    look.title = &m_title;
    look.subtitle = &m_subtitle;
    look.mark = m_mark;
    look.selected = m_selected;
    look.highlighted = m_highlighted;
    look.problem = m_problem;
    paintNode(*painter, look,
              QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform()));
}

// --- EdgeItem -----------------------------------------------------------------------------------

QPainterPath splinePath(const LayoutSpline &spline)
{
    QPainterPath path;
    const std::span<const LayoutPoint> p = spline.points();
    if (p.empty())
        return path;
    path.reserve(static_cast<int>(p.size())); // a move, then three elements per cubic segment
    path.moveTo(p[0].x, p[0].y);
    for (std::size_t i = 1; i + 2 < p.size(); i += 3)
        path.cubicTo(p[i].x, p[i].y, p[i + 1].x, p[i + 1].y, p[i + 2].x, p[i + 2].y);
    return path;
}

void strokeSplineNear(QPainter &painter, const LayoutSpline &spline, const QRectF &clip)
{
    const std::span<const LayoutPoint> p = spline.points();
    QPainterPath path;
    bool open = false;
    for (std::size_t i = 0; i + 3 < p.size(); i += 3) {
        // A cubic segment lies within the box of its four control points.
        const qreal left = std::min({ p[i].x, p[i + 1].x, p[i + 2].x, p[i + 3].x });
        const qreal right = std::max({ p[i].x, p[i + 1].x, p[i + 2].x, p[i + 3].x });
        const qreal top = std::min({ p[i].y, p[i + 1].y, p[i + 2].y, p[i + 3].y });
        const qreal bottom = std::max({ p[i].y, p[i + 1].y, p[i + 2].y, p[i + 3].y });
        if (right < clip.left() || left > clip.right() || bottom < clip.top()
            || top > clip.bottom()) {
            open = false;
            continue;
        }
        if (!open)
            path.moveTo(p[i].x, p[i].y);
        path.cubicTo(p[i + 1].x, p[i + 1].y, p[i + 2].x, p[i + 2].y, p[i + 3].x, p[i + 3].y);
        open = true;
    }
    if (!path.isEmpty())
        painter.drawPath(path);
}

QPolygonF arrowHead(const LayoutSpline &spline)
{
    if (!spline.hasArrow() || spline.points().empty())
        return {};
    const QPointF tip(spline.arrowTip().x, spline.arrowTip().y);
    const QPointF base(spline.points().back().x, spline.points().back().y);
    QPointF dir = tip - base;
    const qreal length = std::hypot(dir.x(), dir.y());
    if (length < 0.01)
        return {};
    dir /= length;
    const QPointF normal(-dir.y(), dir.x());
    const qreal half = 3.6;
    return QPolygonF({ tip, base + normal * half, base - normal * half });
}

void onCurvePoints(const LayoutSpline &spline, QPolygonF &out)
{
    out.clear();
    const std::span<const LayoutPoint> p = spline.points();
    for (std::size_t i = 0; i < p.size(); i += 3)
        out.append(QPointF(p[i].x, p[i].y));
}

QRectF edgeItemBounds(const LayoutSpline &spline, bool labelled)
{
    // The route's control points bound it; the arrowhead stays within the margin of its tip.
    QRectF bounds;
    if (!spline.points().empty()) {
        qreal left = spline.points().front().x;
        qreal right = left;
        qreal top = spline.points().front().y;
        qreal bottom = top;
        auto extend = [&](const LayoutPoint &p) {
            left = std::min<qreal>(left, p.x);
            right = std::max<qreal>(right, p.x);
            top = std::min<qreal>(top, p.y);
            bottom = std::max<qreal>(bottom, p.y);
        };
        for (const LayoutPoint &p : spline.points())
            extend(p);
        if (spline.hasArrow())
            extend(spline.arrowTip());
        bounds = QRectF(QPointF(left, top), QPointF(right, bottom));
    }
    bounds = bounds.adjusted(-4, -4, 4, 4);
    if (labelled && !spline.points().empty())
        bounds = bounds.united(edgeLabelRect(spline));
    return bounds;
}

EdgeItem::EdgeItem(EdgeRef edge, const LayoutSpline &spline, const EdgeLabels *labels)
    : m_edge(edge)
    , m_labels(labels)
    , m_spline(spline)
    , m_bounds(edgeItemBounds(spline, labels != nullptr))
{
    setAcceptHoverEvents(true);
    setZValue(1);
}

QRectF EdgeItem::labelRect() const
{
    return m_labels != nullptr ? edgeLabelRect(m_spline) : QRectF();
}

const QPainterPath &EdgeItem::path() const
{
    if (m_path.isEmpty())
        m_path = splinePath(m_spline);
    return m_path;
}

QPolygonF EdgeItem::arrow() const
{
    return arrowHead(m_spline);
}

void EdgeItem::onCurve(QPolygonF &out) const
{
    onCurvePoints(m_spline, out);
}

QPointF splineMidPoint(const LayoutSpline &spline)
{
    const std::span<const LayoutPoint> p = spline.points();
    if (p.empty())
        return {};
    auto chord
        = [&](std::size_t i) { return std::hypot(p[i + 3].x - p[i].x, p[i + 3].y - p[i].y); };
    double total = 0;
    for (std::size_t i = 0; i + 3 < p.size(); i += 3)
        total += chord(i);
    double remaining = total / 2;
    for (std::size_t i = 0; i + 3 < p.size(); i += 3) {
        const double length = chord(i);
        if (remaining > length && i + 6 < p.size()) {
            remaining -= length;
            continue;
        }
        // The cubic Bézier of this segment at the matching fraction of its chord.
        const double t = length > 0 ? std::clamp(remaining / length, 0.0, 1.0) : 0.5;
        const double u = 1 - t;
        const double a = u * u * u;
        const double b = 3 * u * u * t;
        const double c = 3 * u * t * t;
        const double d = t * t * t;
        return { a * p[i].x + b * p[i + 1].x + c * p[i + 2].x + d * p[i + 3].x,
                 a * p[i].y + b * p[i + 1].y + c * p[i + 2].y + d * p[i + 3].y };
    }
    return { p.front().x, p.front().y };
}

void splinePolyline(const LayoutSpline &spline, QPolygonF &out)
{
    out.clear();
    for (const QPolygonF &p : splinePath(spline).toSubpathPolygons())
        out += p;
    if (spline.hasArrow())
        out.append(QPointF(spline.arrowTip().x, spline.arrowTip().y));
}

namespace {

// True when the segment a-b meets `box` (an end inside it, or the segment crossing one of its
// sides).
bool segmentMeetsBox(const QPointF &a, const QPointF &b, const QRectF &box)
{
    if (box.contains(a) || box.contains(b))
        return true;
    const QPointF corners[]
        = { box.topLeft(), box.topRight(), box.bottomRight(), box.bottomLeft() };
    for (int i = 0; i < 4; ++i)
        if (segmentsCross(a, b, corners[i], corners[(i + 1) % 4]))
            return true;
    return false;
}

} // namespace

bool splineNear(const LayoutSpline &spline, const QRectF &area, qreal margin)
{
    const QRectF box = area.adjusted(-margin, -margin, margin, margin);
    const std::span<const LayoutPoint> p = spline.points();
    constexpr int pieces = 16; // per cubic segment: a few pixels each at the zooms hover matters
    for (std::size_t i = 0; i + 3 < p.size(); i += 3) {
        const qreal left = std::min({ p[i].x, p[i + 1].x, p[i + 2].x, p[i + 3].x });
        const qreal right = std::max({ p[i].x, p[i + 1].x, p[i + 2].x, p[i + 3].x });
        const qreal top = std::min({ p[i].y, p[i + 1].y, p[i + 2].y, p[i + 3].y });
        const qreal bottom = std::max({ p[i].y, p[i + 1].y, p[i + 2].y, p[i + 3].y });
        if (right < box.left() || left > box.right() || bottom < box.top() || top > box.bottom())
            continue;
        QPointF last(p[i].x, p[i].y);
        for (int k = 1; k <= pieces; ++k) {
            const double t = static_cast<double>(k) / pieces;
            const double u = 1 - t;
            const double a = u * u * u;
            const double b = 3 * u * u * t;
            const double c = 3 * u * t * t;
            const double d = t * t * t;
            const QPointF next(a * p[i].x + b * p[i + 1].x + c * p[i + 2].x + d * p[i + 3].x,
                               a * p[i].y + b * p[i + 1].y + c * p[i + 2].y + d * p[i + 3].y);
            if (segmentMeetsBox(last, next, box))
                return true;
            last = next;
        }
    }
    const QPolygonF arrow = arrowHead(spline);
    return !arrow.isEmpty() && arrow.boundingRect().intersects(box);
}

bool polylineCrosses(const QPolygonF &line, const QPointF &a, const QPointF &b)
{
    for (qsizetype i = 1; i < line.size(); ++i)
        if (segmentsCross(a, b, line[i - 1], line[i]))
            return true;
    return false;
}

const QPolygonF &EdgeItem::polyline() const
{
    if (m_polyline.isEmpty())
        splinePolyline(m_spline, m_polyline);
    return m_polyline;
}

bool EdgeItem::crosses(const QPointF &a, const QPointF &b) const
{
    if (!QRectF(a, b).normalized().adjusted(-1, -1, 1, 1).intersects(m_bounds))
        return false;
    return polylineCrosses(polyline(), a, b);
}

QPainterPath EdgeItem::shape() const
{
    if (m_shape.isEmpty()) {
        QPainterPathStroker stroker;
        stroker.setWidth(7);
        m_shape = stroker.createStroke(path());
        m_shape.addPolygon(arrow());
    }
    return m_shape;
}

namespace {

// Half the width of an edge's shape (the route stroked 7 wide).
constexpr qreal edgeShapeMargin = 3.5;

} // namespace

bool EdgeItem::contains(const QPointF &point) const
{
    return m_bounds.contains(point)
        && splineNear(m_spline, QRectF(point, QSizeF(0, 0)), edgeShapeMargin);
}

bool EdgeItem::collidesWithPath(const QPainterPath &path, Qt::ItemSelectionMode mode) const
{
    // Qt asks at a point with the rectangle of one viewport pixel: some 20 scene units at the
    // farthest zoom items are hovered at.
    constexpr qreal pointQuery = 50;
    const QRectF area = path.boundingRect();
    if (mode != Qt::IntersectsItemShape || area.width() > pointQuery || area.height() > pointQuery)
        return QGraphicsItem::collidesWithPath(path, mode);
    return splineNear(m_spline, area, edgeShapeMargin);
}

void EdgeItem::setBoundaryColour(const QColor &colour)
{
    m_boundary = colour;
    setZValue(colour.isValid() ? 1.5 : 1);
    repaintItem(*this);
}

void EdgeItem::setCutHover(bool on)
{
    if (m_cutHover == on)
        return;
    m_cutHover = on;
    repaintItem(*this);
}

void EdgeItem::setHighlighted(bool on)
{
    if (m_highlighted == on)
        return;
    m_highlighted = on;
    repaintItem(*this);
}

void EdgeItem::setFlash(qreal strength)
{
    m_flash = strength;
    repaintItem(*this);
}

void EdgeItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = true;
    repaintItem(*this);
    QGraphicsItem::hoverEnterEvent(event);
}

void EdgeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = false;
    repaintItem(*this);
    QGraphicsItem::hoverLeaveEvent(event);
}

void EdgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem * /*option*/,
                     QWidget * /*widget*/)
{
    EdgeLook look;
    look.boundary = m_boundary;
    look.flash = m_flash;
    look.cutHover = m_cutHover;
    look.highlighted = m_highlighted;
    look.hovered = m_hovered;
    paintEdge(*painter, m_spline, m_bounds, look,
              QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform()),
              m_labels, m_edge);
}

// --- BadgeItem ----------------------------------------------------------------------------------

BadgeItem::BadgeItem(EdgeRef edge, QString text, QColor colour)
    : m_edge(edge)
    , m_text(std::move(text))
    , m_colour(colour)
{
    const QFontMetricsF fm(badgeFont());
    const qreal w = fm.horizontalAdvance(m_text) + 14;
    const qreal h = fm.height() + 6;
    // To the right of the edge point, so the edge and the partition name (left) stay visible.
    m_rect = QRectF(8, -h / 2, w, h);
    setFlag(ItemIgnoresTransformations);
    setZValue(5);
    setToolTip(m_text);
}

void BadgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem * /*option*/,
                      QWidget * /*widget*/)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const CanvasColours &colours = canvasColours();
    painter->setPen(QPen(m_colour, 1.5));
    painter->setBrush(colours.badgeFill);
    painter->drawRoundedRect(m_rect.adjusted(0.75, 0.75, -0.75, -0.75), m_rect.height() / 2,
                             m_rect.height() / 2);
    painter->setFont(badgeFont());
    painter->setPen(colours.dark ? m_colour.lighter(160) : m_colour.darker(140));
    painter->drawText(m_rect, Qt::AlignCenter, m_text);
}

} // namespace cleave::ui
