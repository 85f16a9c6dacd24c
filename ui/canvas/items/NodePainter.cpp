// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/NodePainter.h"

#include "ui/support/CanvasFont.h"
#include "ui/support/CanvasTheme.h"

#include <QPainter>

#include <algorithm>

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

const QColor problemStroke(0xd3, 0x2f, 0x2f);
const QColor problemFill(0xff, 0xcd, 0xd2);

} // namespace

QColor nodeSelectionColour()
{
    return { 0x1e, 0x6f, 0xd9 };
}

QColor highlightColour()
{
    return { 0xff, 0x8f, 0x00 };
}

void paintNode(QPainter &painter, const NodeLook &look, qreal lod)
{
    const QRectF &rect = look.rect;
    const bool input = look.role == LayoutNodeRole::Input;
    const bool structural = look.role == LayoutNodeRole::Structural;
    const CanvasColours &colours = canvasColours();
    QColor fill = structural ? colours.structuralFill : colours.fill(look.category);
    QColor stroke = structural ? colours.structuralStroke : colours.stroke(look.category);
    if (look.problem) {
        fill = problemFill;
        stroke = problemStroke;
    }
    if (lod < 0.12) {
        // Far out: a flat box is all that is visible, and the cheapest to draw (no
        // antialiasing: a box of a few pixels gains nothing from it).
        painter.setRenderHint(QPainter::Antialiasing, false);
        const QColor far = look.mark != 0 ? QColor::fromRgba(look.mark) : stroke;
        painter.fillRect(rect,
                         look.selected ? nodeSelectionColour()
                                       : (look.highlighted ? highlightColour() : far));
        return;
    }
    if (look.mark != 0) {
        QPen ring(QColor::fromRgba(look.mark), 3.5);
        painter.setPen(ring);
        painter.setBrush(Qt::NoBrush);
        painter.drawRoundedRect(rect.adjusted(-4.5, -4.5, 4.5, 4.5), 8, 8);
    }
    qreal width = look.problem ? 2.5 : 1.0;
    if (look.role == LayoutNodeRole::Output)
        width = std::max(width, 2.0);
    if (look.selected) {
        stroke = nodeSelectionColour();
        width = 2.5;
    }
    if (look.highlighted) {
        stroke = highlightColour();
        width = 3.0;
    }
    QPen pen(stroke, width);
    pen.setCosmetic(lod < 1.0);
    painter.setPen(pen);
    painter.setBrush(fill);
    const qreal radius = (input || structural) ? rect.height() / 2 : 5.0;
    painter.drawRoundedRect(rect, radius, radius);
    if (look.role == LayoutNodeRole::Output && lod > 0.3) {
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(stroke, 0.8));
        painter.drawRoundedRect(rect.adjusted(2.5, 2.5, -2.5, -2.5), 3.5, 3.5);
    }
    if (lod < nodeTextZoom || look.title == nullptr)
        return;
    painter.setPen(input ? colours.inputText : colours.nodeText);
    if (look.subtitle == nullptr || look.subtitle->isEmpty()) {
        painter.setFont(titleFont());
        painter.drawText(rect, Qt::AlignCenter, *look.title);
        return;
    }
    const QRectF top(rect.x(), rect.y() + 3, rect.width(), rect.height() / 2 - 1);
    const QRectF bottom(rect.x(), rect.center().y() + 1, rect.width(), rect.height() / 2 - 4);
    painter.setFont(titleFont());
    painter.drawText(top, Qt::AlignHCenter | Qt::AlignVCenter, *look.title);
    painter.setFont(subtitleFont());
    painter.setPen(input ? colours.inputSubtitle : colours.nodeSubtitle);
    painter.drawText(bottom, Qt::AlignHCenter | Qt::AlignVCenter, *look.subtitle);
}

} // namespace cleave::ui
