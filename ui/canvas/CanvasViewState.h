// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/project/ProjectFile.h"
#include "ui/canvas/CanvasWidget.h"

#include <QObject>

#include <optional>

namespace cleave::ui {

class LevelView;

/// The view a project saves and restores: the tool, the level, the zoom and the centre of the
/// canvas. capture() reads it; restore() applies it as soon as it can — switching the level
/// first, then waiting for that level's layout before zooming and centring. A new graph
/// cancels a restore still waiting.
class CanvasViewState : public QObject
{
    Q_OBJECT

public:
    CanvasViewState(CanvasWidget *canvas, LevelView *levels, QObject *parent = nullptr);

    [[nodiscard]] cleave::ProjectViewState capture() const;
    void restore(const cleave::ProjectViewState &state);
    /// Forgets a restore that waits for a layout.
    void cancel() { m_pending.reset(); }

signals:
    /// The restored tool: the window checks its tool action (which sets the canvas tool).
    void toolRestored(cleave::ui::CanvasWidget::Tool tool);

private:
    void onLayoutFinished(bool ok);

    CanvasWidget *m_canvas;
    LevelView *m_levels;
    std::optional<cleave::ProjectViewState> m_pending;
};

} // namespace cleave::ui
