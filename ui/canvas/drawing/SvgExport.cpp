// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/drawing/SvgExport.h"

#include "ui/canvas/items/EdgePainter.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/ItemTile.h"
#include "ui/canvas/items/NodePainter.h"
#include "ui/support/CanvasTheme.h"

#include <QGraphicsScene>

#include <algorithm>

namespace cleave::ui {

namespace {

QString num(qreal v)
{
    return QString::number(v, 'f', 1);
}

QString pathData(const QPainterPath &path)
{
    QString d;
    for (int i = 0; i < path.elementCount(); ++i) {
        const QPainterPath::Element e = path.elementAt(i);
        switch (e.type) {
        case QPainterPath::MoveToElement:
            d += QStringLiteral("M%1 %2 ").arg(num(e.x), num(e.y));
            break;
        case QPainterPath::LineToElement:
            d += QStringLiteral("L%1 %2 ").arg(num(e.x), num(e.y));
            break;
        case QPainterPath::CurveToElement:
            d += QStringLiteral("C%1 %2 ").arg(num(e.x), num(e.y));
            break;
        case QPainterPath::CurveToDataElement:
            d += QStringLiteral("%1 %2 ").arg(num(e.x), num(e.y));
            break;
        }
    }
    return d.trimmed();
}

QString polygonPoints(const QPolygonF &polygon)
{
    QStringList points;
    for (const QPointF &p : polygon)
        points << num(p.x()) + QLatin1Char(',') + num(p.y());
    return points.join(QLatin1Char(' '));
}

QString colourName(const QColor &c)
{
    return c.name(QColor::HexRgb);
}

QString tinted(const QColor &c, qreal amount)
{
    return canvasColours().tint(c, amount).name();
}

// Writes the members of the tiles (nodes and edges, from the layout, items or not). Boundary
// edges are stacked above the others (z 1.5 against the edges' 1, below the nodes' 2): they are
// kept aside until everything under them is written (flush()).
class SvgTileSink : public TileSink
{
public:
    explicit SvgTileSink(QString &out)
        : m_out(out)
    {
    }

    void node(const NodeLook &look) override
    {
        const CanvasColours &colours = canvasColours();
        const QRectF r = look.rect;
        const bool input = look.role == LayoutNodeRole::Input;
        const bool structural = look.role == LayoutNodeRole::Structural;
        const qreal radius = (input || structural) ? r.height() / 2 : 5;
        if (look.mark != 0) { // a model comparison's ring, as the canvas paints it
            const QRectF ring = r.adjusted(-4.5, -4.5, 4.5, 4.5);
            m_out += QStringLiteral("<rect class=\"mark\" x=\"%1\" y=\"%2\" width=\"%3\" "
                                    "height=\"%4\" rx=\"8\" fill=\"none\" stroke=\"%5\" "
                                    "stroke-width=\"3.5\"/>\n")
                         .arg(num(ring.x()), num(ring.y()), num(ring.width()), num(ring.height()),
                              colourName(QColor::fromRgba(look.mark)));
        }
        m_out += QStringLiteral("<rect class=\"node\" x=\"%1\" y=\"%2\" width=\"%3\" "
                                "height=\"%4\" rx=\"%5\" fill=\"%6\" stroke=\"%7\" "
                                "stroke-width=\"%8\"/>\n")
                     .arg(num(r.x()), num(r.y()), num(r.width()), num(r.height()), num(radius),
                          colourName(structural ? colours.structuralFill
                                                : colours.fill(look.category)),
                          colourName(structural ? colours.structuralStroke
                                                : colours.stroke(look.category)),
                          look.role == LayoutNodeRole::Output ? QStringLiteral("2")
                                                              : QStringLiteral("1"));
        const QString title = look.title != nullptr ? *look.title : QString();
        const QString subtitle = look.subtitle != nullptr ? *look.subtitle : QString();
        const QString textColour = colourName(input ? colours.inputText : colours.nodeText);
        if (subtitle.isEmpty()) {
            m_out += QStringLiteral("<text x=\"%1\" y=\"%2\" font-size=\"10\" "
                                    "font-weight=\"600\" text-anchor=\"middle\" "
                                    "dominant-baseline=\"central\" fill=\"%3\">%4</text>\n")
                         .arg(num(r.center().x()), num(r.center().y()), textColour,
                              title.toHtmlEscaped());
            return;
        }
        m_out += QStringLiteral("<text x=\"%1\" y=\"%2\" font-size=\"10\" font-weight=\"600\" "
                                "text-anchor=\"middle\" fill=\"%3\">%4</text>\n")
                     .arg(num(r.center().x()), num(r.center().y() - 2), textColour,
                          title.toHtmlEscaped());
        m_out += QStringLiteral("<text x=\"%1\" y=\"%2\" font-size=\"9\" text-anchor=\"middle\" "
                                "fill=\"%3\">%4</text>\n")
                     .arg(num(r.center().x()), num(r.center().y() + 10),
                          colourName(input ? colours.inputSubtitle : colours.nodeSubtitle),
                          subtitle.toHtmlEscaped());
    }

    void edge(const LayoutSpline &spline, const EdgeLook &look) override
    {
        const bool boundary = look.boundary.isValid();
        const QString colour
            = boundary ? colourName(look.boundary) : colourName(canvasColours().edge);
        QString &to = boundary ? m_boundaries : m_out;
        to += QStringLiteral("<path d=\"%1\" fill=\"none\" stroke=\"%2\" stroke-width=\"%3\"/>\n")
                  .arg(pathData(splinePath(spline)), colour,
                       boundary ? QStringLiteral("3") : QStringLiteral("1.2"));
        if (const QPolygonF arrow = arrowHead(spline); !arrow.isEmpty())
            to += QStringLiteral("<polygon points=\"%1\" fill=\"%2\"/>\n")
                      .arg(polygonPoints(arrow), colour);
    }

    /// Writes the boundary edges kept aside.
    void flush()
    {
        m_out += m_boundaries;
        m_boundaries.clear();
    }

private:
    QString &m_out;
    QString m_boundaries;
};

} // namespace

QString sceneToSvg(const QGraphicsScene &scene, const QRectF &bounds)
{
    QList<QGraphicsItem *> items
        = scene.items(bounds, Qt::IntersectsItemBoundingRect, Qt::AscendingOrder);
    std::stable_sort(
        items.begin(), items.end(),
        [](const QGraphicsItem *a, const QGraphicsItem *b) { return a->zValue() < b->zValue(); });
    const CanvasColours &colours = canvasColours();
    QString out;
    out += QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" "
                          "viewBox=\"%3 %4 %1 %2\" font-family=\"sans-serif\">\n"
                          "<rect x=\"%3\" y=\"%4\" width=\"%1\" height=\"%2\" fill=\"%5\"/>\n")
               .arg(num(bounds.width()), num(bounds.height()), num(bounds.x()), num(bounds.y()),
                    colourName(colours.background));
    SvgTileSink sink(out);
    for (const QGraphicsItem *item : items) {
        if (item->parentItem() != nullptr && item->parentItem()->type() == ItemTile::Type)
            continue; // a node's or an edge's item: its tile describes it
        if (item->zValue() > 1.5)
            sink.flush();
        if (const auto *region = qgraphicsitem_cast<const PartitionRegionItem *>(item)) {
            const QString fill = tinted(region->colour(), regionTintNear);
            out += QStringLiteral(
                       "<path class=\"partition\" d=\"%1\" fill=\"%2\" fill-rule=\"nonzero\"/>\n")
                       .arg(pathData(region->boxes()), fill);
            if (!region->routes().isEmpty())
                out += QStringLiteral(
                           "<path d=\"%1\" fill=\"none\" stroke=\"%2\" stroke-width=\"40\" "
                           "stroke-linecap=\"round\"/>\n")
                           .arg(pathData(region->routes()), fill);
        } else if (const auto *label = qgraphicsitem_cast<const RegionLabelItem *>(item)) {
            const QRectF plate = label->boundingRect().translated(label->pos());
            out += QStringLiteral("<rect class=\"partition-name\" x=\"%1\" y=\"%2\" width=\"%3\" "
                                  "height=\"%4\" rx=\"4\" fill=\"%5\" stroke=\"%6\" "
                                  "stroke-width=\"1.25\"/>\n")
                       .arg(num(plate.x()), num(plate.y()), num(plate.width()), num(plate.height()),
                            colourName(colours.badgeFill), colourName(label->colour()));
            out += QStringLiteral(
                       "<text x=\"%1\" y=\"%2\" font-size=\"14\" font-weight=\"bold\" "
                       "text-anchor=\"end\" dominant-baseline=\"central\" fill=\"%3\">%4</text>\n")
                       .arg(num(label->pos().x() - 7), num(label->pos().y()),
                            colourName(colours.partitionText(label->colour())),
                            label->text().toHtmlEscaped());
        } else if (const auto *tile = qgraphicsitem_cast<const ItemTile *>(item)) {
            tile->describe(bounds, sink);
        } else if (const auto *badge = qgraphicsitem_cast<const BadgeItem *>(item)) {
            const QRectF r = badge->boundingRect().translated(badge->pos());
            out += QStringLiteral(
                       "<rect class=\"badge\" x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" "
                       "rx=\"%5\" fill=\"%7\" stroke=\"%6\" stroke-width=\"1.5\"/>\n")
                       .arg(num(r.x()), num(r.y()), num(r.width()), num(r.height()),
                            num(r.height() / 2), colourName(badge->colour()),
                            colourName(colours.badgeFill));
            out += QStringLiteral("<text x=\"%1\" y=\"%2\" font-size=\"11\" text-anchor=\"middle\" "
                                  "dominant-baseline=\"central\" fill=\"%3\">%4</text>\n")
                       .arg(num(r.center().x()), num(r.center().y()),
                            colourName(colours.dark ? badge->colour().lighter(160)
                                                    : badge->colour().darker(140)),
                            badge->text().toHtmlEscaped());
        }
    }
    sink.flush();
    out += QStringLiteral("</svg>\n");
    return out;
}

} // namespace cleave::ui
