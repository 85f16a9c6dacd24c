// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/SvgExport.h"

#include "ui/scene/CanvasTheme.h"
#include "ui/scene/GraphItems.h"

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
    for (const QGraphicsItem *item : items) {
        if (const auto *region = qgraphicsitem_cast<const PartitionRegionItem *>(item)) {
            const QString fill = tinted(region->colour(), 0.16);
            out += QStringLiteral(
                       "<path class=\"partition\" d=\"%1\" fill=\"%2\" fill-rule=\"nonzero\"/>\n")
                       .arg(pathData(region->boxes()), fill);
            if (!region->routes().isEmpty())
                out += QStringLiteral(
                           "<path d=\"%1\" fill=\"none\" stroke=\"%2\" stroke-width=\"40\" "
                           "stroke-linecap=\"round\"/>\n")
                           .arg(pathData(region->routes()), fill);
        } else if (const auto *label = qgraphicsitem_cast<const RegionLabelItem *>(item)) {
            out += QStringLiteral(
                       "<text x=\"%1\" y=\"%2\" font-size=\"14\" font-weight=\"bold\" "
                       "text-anchor=\"end\" dominant-baseline=\"central\" fill=\"%3\">%4</text>\n")
                       .arg(num(label->pos().x()), num(label->pos().y()),
                            colourName(colours.partitionText(label->colour())),
                            label->text().toHtmlEscaped());
        } else if (const auto *edge = qgraphicsitem_cast<const EdgeItem *>(item)) {
            const bool boundary = edge->boundaryColour().isValid();
            const QString colour
                = boundary ? colourName(edge->boundaryColour()) : colourName(colours.edge);
            out += QStringLiteral(
                       "<path d=\"%1\" fill=\"none\" stroke=\"%2\" stroke-width=\"%3\"/>\n")
                       .arg(pathData(edge->path()), colour,
                            boundary ? QStringLiteral("3") : QStringLiteral("1.2"));
            if (!edge->arrow().isEmpty())
                out += QStringLiteral("<polygon points=\"%1\" fill=\"%2\"/>\n")
                           .arg(polygonPoints(edge->arrow()), colour);
        } else if (const auto *node = qgraphicsitem_cast<const NodeItem *>(item)) {
            const QRectF r = node->rect();
            const bool input = node->role() == LayoutNodeRole::Input;
            const bool structural = node->role() == LayoutNodeRole::Structural;
            const qreal radius = (input || structural) ? r.height() / 2 : 5;
            if (node->mark().isValid()) { // a model comparison's ring, as the canvas paints it
                const QRectF ring = r.adjusted(-4.5, -4.5, 4.5, 4.5);
                out += QStringLiteral("<rect class=\"mark\" x=\"%1\" y=\"%2\" width=\"%3\" "
                                      "height=\"%4\" rx=\"8\" fill=\"none\" stroke=\"%5\" "
                                      "stroke-width=\"3.5\"/>\n")
                           .arg(num(ring.x()), num(ring.y()), num(ring.width()), num(ring.height()),
                                colourName(node->mark()));
            }
            out += QStringLiteral(
                       "<rect class=\"node\" x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" "
                       "rx=\"%5\" fill=\"%6\" stroke=\"%7\" stroke-width=\"%8\"/>\n")
                       .arg(num(r.x()), num(r.y()), num(r.width()), num(r.height()), num(radius),
                            colourName(structural ? colours.structuralFill
                                                  : colours.fill(node->category())),
                            colourName(structural ? colours.structuralStroke
                                                  : colours.stroke(node->category())),
                            node->role() == LayoutNodeRole::Output ? QStringLiteral("2")
                                                                   : QStringLiteral("1"));
            const QString textColour = colourName(input ? colours.inputText : colours.nodeText);
            if (node->subtitle().isEmpty()) {
                out += QStringLiteral(
                           "<text x=\"%1\" y=\"%2\" font-size=\"10\" font-weight=\"600\" "
                           "text-anchor=\"middle\" dominant-baseline=\"central\" "
                           "fill=\"%3\">%4</text>\n")
                           .arg(num(r.center().x()), num(r.center().y()), textColour,
                                node->title().toHtmlEscaped());
            } else {
                out += QStringLiteral(
                           "<text x=\"%1\" y=\"%2\" font-size=\"10\" font-weight=\"600\" "
                           "text-anchor=\"middle\" fill=\"%3\">%4</text>\n")
                           .arg(num(r.center().x()), num(r.center().y() - 2), textColour,
                                node->title().toHtmlEscaped());
                out += QStringLiteral(
                           "<text x=\"%1\" y=\"%2\" font-size=\"9\" text-anchor=\"middle\" "
                           "fill=\"%3\">%4</text>\n")
                           .arg(num(r.center().x()), num(r.center().y() + 10),
                                colourName(input ? colours.inputSubtitle : colours.nodeSubtitle),
                                node->subtitle().toHtmlEscaped());
            }
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
    out += QStringLiteral("</svg>\n");
    return out;
}

} // namespace cleave::ui
