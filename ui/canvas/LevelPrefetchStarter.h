// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QObject>

namespace cleave::ui {

class CanvasWidget;
class LevelView;

/// Starts preparing the Fused Blocks level (LevelView::prepareBlocks()) once the canvas shows a
/// model at Operators level: after the first frame painted with the finished drawing, so that
/// the preparation never delays the open (at once when the canvas is not on screen). The level
/// is laid out into the canvas' own cache, and its region geometry left in the canvas' store,
/// where the switch finds them.
class LevelPrefetchStarter : public QObject
{
    Q_OBJECT

public:
    LevelPrefetchStarter(CanvasWidget *canvas, LevelView *levels, QObject *parent = nullptr);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void start();

    CanvasWidget *m_canvas;
    LevelView *m_levels;
    bool m_armed = false; ///< Waiting for the first frame of a finished drawing.
};

} // namespace cleave::ui
