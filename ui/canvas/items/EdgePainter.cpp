// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/EdgePainter.h"

#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/NodePainter.h"
#include "ui/support/CanvasFont.h"
#include "ui/support/CanvasTheme.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace cleave::ui {

namespace {

const QFont &edgeLabelFont()
{
    static const QFont font = canvasFont(8);
    return font;
}

constexpr qreal edgeLabelWidth = 130;
constexpr qreal edgeLabelHeight = 11;
const QColor cutColour(0xe5, 0x39, 0x35);
constexpr qreal farEdgeZoom = 0.12;

void paintLabel(QPainter &painter, const LayoutSpline &spline, const EdgeLabels &labels,
                EdgeRef edge)
{
    const QString text = labels.text(edge);
    if (text.isEmpty())
        return;
    const QFontMetricsF fm(edgeLabelFont());
    const QString shown = fm.elidedText(text, Qt::ElideRight, edgeLabelWidth - 2);
    painter.setFont(edgeLabelFont());
    painter.setPen(canvasColours().edgeLabel);
    painter.drawText(edgeLabelRect(spline), Qt::AlignLeft | Qt::AlignVCenter, shown);
    labels.drawn(edge, shown);
}

} // namespace

QRectF edgeLabelRect(const LayoutSpline &spline)
{
    if (spline.points().empty())
        return {};
    const LayoutPoint start = spline.points().front();
    return { start.x + 4, start.y + 1, edgeLabelWidth, edgeLabelHeight };
}

void paintEdge(QPainter &painter, const LayoutSpline &spline, const QRectF &bounds,
               const EdgeLook &look, qreal lod, const EdgeLabels *labels, EdgeRef edge)
{
    const CanvasColours &colours = canvasColours();
    QColor colour = colours.edge;
    // One pixel: a cosmetic pen of at most 1 px is the raster engine's fast path (its cosmetic
    // stroker); a wider one sends each curve through the general stroker and the antialiasing
    // rasterizer (1.2 px: 23 ms to paint the 130 lane edges rnnt shows at zoom 0.45, 1.5 ms at
    // 1 px). Boundary, highlighted and hovered edges are few and keep their bolder pens.
    qreal width = 1.0;
    const bool boundary = look.boundary.isValid();
    if (boundary) {
        colour = look.boundary;
        width = 3.0;
    }
    if (look.hovered) {
        colour = boundary ? look.boundary.darker(130) : colours.edgeHover;
        width += 0.8;
    }
    if (look.flash > 0) {
        const QColor flash(0xff, 0x17, 0x44);
        const qreal f = look.flash;
        colour = QColor::fromRgbF(
            static_cast<float>(colour.redF() + (flash.redF() - colour.redF()) * f),
            static_cast<float>(colour.greenF() + (flash.greenF() - colour.greenF()) * f),
            static_cast<float>(colour.blueF() + (flash.blueF() - colour.blueF()) * f));
        width = std::max(width, 1.2 + 2.5 * f);
    }
    if (look.highlighted) {
        colour = highlightColour();
        width = 3.5;
    }
    if (look.cutHover) {
        colour = cutColour;
        width = 3.0;
    }
    if (lod < farEdgeZoom && !look.cutHover && !look.highlighted && look.flash <= 0) {
        // Far out an edge is a hairline between ranks a few pixels apart: its polyline without
        // antialiasing, dashes or arrowhead is indistinguishable and several times cheaper.
        painter.setRenderHint(QPainter::Antialiasing, false);
        QPen pen(colour, boundary ? 2 : 0);
        pen.setCosmetic(true);
        painter.setPen(pen);
        static QPolygonF line; // painting is single-threaded: reuse one buffer
        onCurvePoints(spline, line);
        if (spline.hasArrow())
            line.append(QPointF(spline.arrowTip().x, spline.arrowTip().y));
        painter.drawPolyline(line);
        return;
    }
    QPen pen(colour, width, spline.stub() ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap,
             Qt::RoundJoin);
    pen.setCosmetic(true);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    // A long route (a skip edge down an unrolled network) crosses far more of the drawing than
    // the viewport shows, and stroking all its curves was most of a frame: only its segments
    // near the viewport are stroked (dashed stubs are short, and keep their dash phase).
    const QRectF visible = painter.worldTransform().inverted().mapRect(QRectF(painter.viewport()));
    if (!spline.stub() && !visible.contains(bounds)) {
        const qreal margin = (width + 2) / std::max(lod, 1e-6);
        strokeSplineNear(painter, spline, visible.adjusted(-margin, -margin, margin, margin));
    } else {
        // A path made for this paint: the paint engine keeps its own copy of a drawn path's
        // points on the path (a QVectorPathConverter of some 3 KB however short the route),
        // which a path kept per edge would hold as long as the edge is drawn.
        painter.drawPath(splinePath(spline));
    }
    if (lod < 0.2 || !spline.hasArrow())
        return;
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawPolygon(arrowHead(spline));
    if (spline.stub() && !spline.points().empty())
        painter.drawEllipse(QPointF(spline.points()[0].x, spline.points()[0].y), 2.5, 2.5);
    if (labels != nullptr && lod >= edgeLabelZoom)
        paintLabel(painter, spline, *labels, edge);
}

} // namespace cleave::ui
