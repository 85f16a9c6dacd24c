// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/GraphItems.h"

#include "ui/scene/CanvasFont.h"
#include "ui/scene/CanvasTheme.h"
#include "ui/scene/ItemTile.h"

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

const QFont &titleFont()
{
    static const QFont font = canvasFont(10, QFont::DemiBold);
    return font;
}

const QFont &subtitleFont()
{
    static const QFont font = canvasFont(9);
    return font;
}

const QFont &edgeLabelFont()
{
    static const QFont font = canvasFont(8);
    return font;
}

constexpr qreal edgeLabelWidth = 130;
constexpr qreal edgeLabelHeight = 11;

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

const QColor selectionColour(0x1e, 0x6f, 0xd9);
const QColor highlightColour(0xff, 0x8f, 0x00);
const QColor problemStroke(0xd3, 0x2f, 0x2f);
const QColor problemFill(0xff, 0xcd, 0xd2);
const QColor cutColour(0xe5, 0x39, 0x35);
constexpr qreal farEdgeZoom = 0.12;

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
    const qreal lod
        = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    const bool input = m_role == LayoutNodeRole::Input;
    const bool structural = m_role == LayoutNodeRole::Structural;
    const CanvasColours &colours = canvasColours();
    QColor fill = structural ? colours.structuralFill : colours.fill(m_category);
    QColor stroke = structural ? colours.structuralStroke : colours.stroke(m_category);
    if (m_problem) {
        fill = problemFill;
        stroke = problemStroke;
    }
    if (lod < 0.12) {
        // Far out: a flat box is all that is visible, and the cheapest to draw (no
        // antialiasing: a box of a few pixels gains nothing from it).
        painter->setRenderHint(QPainter::Antialiasing, false);
        const QColor far = m_mark != 0 ? QColor::fromRgba(m_mark) : stroke;
        painter->fillRect(m_rect,
                          m_selected ? selectionColour : (m_highlighted ? highlightColour : far));
        return;
    }
    if (m_mark != 0) {
        QPen ring(QColor::fromRgba(m_mark), 3.5);
        painter->setPen(ring);
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_rect.adjusted(-4.5, -4.5, 4.5, 4.5), 8, 8);
    }
    qreal width = m_problem ? 2.5 : 1.0;
    if (m_role == LayoutNodeRole::Output)
        width = std::max(width, 2.0);
    if (m_selected) {
        stroke = selectionColour;
        width = 2.5;
    }
    if (m_highlighted) {
        stroke = highlightColour;
        width = 3.0;
    }
    QPen pen(stroke, width);
    pen.setCosmetic(lod < 1.0);
    painter->setPen(pen);
    painter->setBrush(fill);
    const qreal radius = (input || structural) ? m_rect.height() / 2 : 5.0;
    painter->drawRoundedRect(m_rect, radius, radius);
    if (m_role == LayoutNodeRole::Output && lod > 0.3) {
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(stroke, 0.8));
        painter->drawRoundedRect(m_rect.adjusted(2.5, 2.5, -2.5, -2.5), 3.5, 3.5);
    }
    if (lod < 0.45)
        return;
    painter->setPen(input ? colours.inputText : colours.nodeText);
    if (m_subtitle.isEmpty()) {
        painter->setFont(titleFont());
        painter->drawText(m_rect, Qt::AlignCenter, m_title);
        return;
    }
    const QRectF top(m_rect.x(), m_rect.y() + 3, m_rect.width(), m_rect.height() / 2 - 1);
    const QRectF bottom(m_rect.x(), m_rect.center().y() + 1, m_rect.width(),
                        m_rect.height() / 2 - 4);
    painter->setFont(titleFont());
    painter->drawText(top, Qt::AlignHCenter | Qt::AlignVCenter, m_title);
    painter->setFont(subtitleFont());
    painter->setPen(input ? colours.inputSubtitle : colours.nodeSubtitle);
    painter->drawText(bottom, Qt::AlignHCenter | Qt::AlignVCenter, m_subtitle);
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

namespace {

// Where an edge's shape label goes: just below the producer, right of the route's start.
QRectF labelRectOf(const LayoutSpline &spline)
{
    if (spline.points().empty())
        return {};
    const LayoutPoint start = spline.points().front();
    return { start.x + 4, start.y + 1, edgeLabelWidth, edgeLabelHeight };
}

} // namespace

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
        bounds = bounds.united(labelRectOf(spline));
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
    return m_labels != nullptr ? labelRectOf(m_spline) : QRectF();
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
    const qreal lod
        = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    const CanvasColours &colours = canvasColours();
    QColor colour = colours.edge;
    // One pixel: a cosmetic pen of at most 1 px is the raster engine's fast path (its cosmetic
    // stroker); a wider one sends each curve through the general stroker and the antialiasing
    // rasterizer (1.2 px: 23 ms to paint the 130 lane edges rnnt shows at zoom 0.45, 1.5 ms at
    // 1 px). Boundary, highlighted and hovered edges are few and keep their bolder pens.
    qreal width = 1.0;
    if (m_boundary.isValid()) {
        colour = m_boundary;
        width = 3.0;
    }
    if (m_hovered) {
        colour = m_boundary.isValid() ? m_boundary.darker(130) : colours.edgeHover;
        width += 0.8;
    }
    if (m_flash > 0) {
        const QColor flash(0xff, 0x17, 0x44);
        colour = QColor::fromRgbF(
            static_cast<float>(colour.redF() + (flash.redF() - colour.redF()) * m_flash),
            static_cast<float>(colour.greenF() + (flash.greenF() - colour.greenF()) * m_flash),
            static_cast<float>(colour.blueF() + (flash.blueF() - colour.blueF()) * m_flash));
        width = std::max(width, 1.2 + 2.5 * m_flash);
    }
    if (m_highlighted) {
        colour = highlightColour;
        width = 3.5;
    }
    if (m_cutHover) {
        colour = cutColour;
        width = 3.0;
    }
    if (lod < farEdgeZoom && !m_cutHover && !m_highlighted && m_flash <= 0) {
        // Far out an edge is a hairline between ranks a few pixels apart: its polyline without
        // antialiasing, dashes or arrowhead is indistinguishable and several times cheaper.
        painter->setRenderHint(QPainter::Antialiasing, false);
        QPen pen(colour, m_boundary.isValid() ? 2 : 0);
        pen.setCosmetic(true);
        painter->setPen(pen);
        static QPolygonF line; // painting is single-threaded: reuse one buffer
        onCurvePoints(m_spline, line);
        if (m_spline.hasArrow())
            line.append(QPointF(m_spline.arrowTip().x, m_spline.arrowTip().y));
        painter->drawPolyline(line);
        return;
    }
    QPen pen(colour, width, m_spline.stub() ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap,
             Qt::RoundJoin);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    // A long route (a skip edge down an unrolled network) crosses far more of the drawing than
    // the viewport shows, and stroking all its curves was most of a frame: only its segments
    // near the viewport are stroked (dashed stubs are short, and keep their dash phase).
    const QRectF visible
        = painter->worldTransform().inverted().mapRect(QRectF(painter->viewport()));
    if (!m_spline.stub() && !visible.contains(m_bounds)) {
        const qreal margin = (width + 2) / std::max(lod, 1e-6);
        strokeSplineNear(*painter, m_spline, visible.adjusted(-margin, -margin, margin, margin));
    } else {
        // A path made for this paint, not the one kept for hit tests (path()): the paint
        // engine keeps its own copy of a drawn path's points on the path (a QVectorPathConverter
        // of some 3 KB however short the route), which a kept path would hold while the item
        // lives: tens of megabytes over a pan.
        painter->drawPath(splinePath(m_spline));
    }
    if (lod < 0.2 || !m_spline.hasArrow())
        return;
    painter->setPen(Qt::NoPen);
    painter->setBrush(colour);
    painter->drawPolygon(arrow());
    if (m_spline.stub() && !m_spline.points().empty()) {
        painter->drawEllipse(QPointF(m_spline.points()[0].x, m_spline.points()[0].y), 2.5, 2.5);
    }
    if (m_labels != nullptr && lod >= edgeLabelZoom)
        paintLabel(painter, colours);
}

void EdgeItem::paintLabel(QPainter *painter, const CanvasColours &colours) const
{
    const QString text = m_labels->text(m_edge);
    if (text.isEmpty())
        return;
    const QFontMetricsF fm(edgeLabelFont());
    const QString shown = fm.elidedText(text, Qt::ElideRight, edgeLabelWidth - 2);
    painter->setFont(edgeLabelFont());
    painter->setPen(colours.edgeLabel);
    painter->drawText(labelRect(), Qt::AlignLeft | Qt::AlignVCenter, shown);
    m_labels->drawn(m_edge, shown);
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
