// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test helper: the node and edge items of a canvas's whole drawing, for tests that inspect
// them (its tiles paint without items, which exist only around the mouse or on request).
#pragma once

#include "ui/canvas/CanvasWidget.h"

#include <QGraphicsScene>
#include <QGraphicsView>

namespace cleave::test {

/// Makes the item of every drawn node and edge of the canvas showing `scene`.
inline void makeAllItems(QGraphicsScene *scene)
{
    for (QGraphicsView *view : scene->views())
        for (QWidget *w = view->parentWidget(); w != nullptr; w = w->parentWidget())
            if (auto *canvas = qobject_cast<ui::CanvasWidget *>(w)) {
                canvas->makeAllItems();
                break;
            }
}

} // namespace cleave::test
