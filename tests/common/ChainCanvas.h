// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test helper: a bare canvas drawing a generated gated chain (the fixture of the scene tests).
#pragma once

#include "GatedChain.h"
#include "ui/canvas/CanvasWidget.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <functional>
#include <memory>
#include <string>

namespace cleave::test {

/// A gated chain of `steps` steps and a canvas that draws it: the canvas caches its layouts in
/// a temporary directory, has no minimap, is 900 × 700 and shown. Each test makes a new canvas
/// (open()) and drops it (close()); the chain is made once.
class ChainCanvas
{
public:
    /// Makes the chain; false when the cache directory could not be made.
    [[nodiscard]] bool prepare(std::size_t steps)
    {
        chain = gatedChain(steps);
        return cache.isValid();
    }
    /// A new canvas, shown, drawing the chain under `key`; `beforeDrawing` is called on the
    /// shown canvas before it gets the chain (an opening place, say). True once laid out.
    [[nodiscard]] bool open(const std::string &key,
                            const std::function<void(ui::CanvasWidget &)> &beforeDrawing = {})
    {
        canvas = std::make_unique<ui::CanvasWidget>();
        canvas->setCacheDirectory(cache.path());
        canvas->setMinimapEnabled(false);
        canvas->resize(900, 700);
        canvas->show();
        if (!QTest::qWaitForWindowExposed(canvas.get()))
            return false;
        if (beforeDrawing)
            beforeDrawing(*canvas);
        QSignalSpy finished(canvas.get(), &ui::CanvasWidget::layoutFinished);
        canvas->setGraph(chain.graph.get(), chain.graph->mainFunction(), key);
        return finished.wait(120000) && finished.front().at(0).toBool();
    }
    void close() { canvas.reset(); }

    [[nodiscard]] QWidget *viewport() const { return canvas->view()->viewport(); }
    [[nodiscard]] QGraphicsScene *scene() const { return canvas->view()->scene(); }

    QTemporaryDir cache;
    GatedChain chain;
    std::unique_ptr<ui::CanvasWidget> canvas;
};

} // namespace cleave::test
