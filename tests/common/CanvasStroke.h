// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test helper: a cut stroke drawn with the mouse across one edge of the editor's canvas.
#pragma once

#include "ui/canvas/CanvasWidget.h"

#include <QGraphicsView>
#include <QtTest/QtTest>

namespace cleave::test {

/// Drags the cut tool (already chosen) across the edge `from -> to`: a short stroke through a
/// point of the edge, short enough to miss the edges beside it. Returns false
/// when the edge is not on screen.
[[nodiscard]] inline bool strokeAcrossEdge(ui::CanvasWidget *canvas, NodeId from, NodeId to)
{
    canvas->centerOnNode(to);
    QWidget *viewport = canvas->view()->viewport();
    const QPoint at = canvas->viewportPosOfEdge({ from, 0 }, to);
    if (at.isNull() || !viewport->rect().contains(at))
        return false;
    const QPoint start = at - QPoint(14, 3);
    const QPoint end = at + QPoint(14, 3);
    QTest::mousePress(viewport, Qt::LeftButton, {}, start);
    QTest::mouseMove(viewport, at - QPoint(5, 1));
    QTest::mouseMove(viewport, at + QPoint(5, 1));
    QTest::mouseMove(viewport, end);
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, end);
    return true;
}

} // namespace cleave::test
