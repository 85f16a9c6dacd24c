// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/tools/CanvasTool.h"

namespace cleave::ui {

/// Click selects a node, Shift- or Ctrl-click toggles it, dragging on empty space draws a
/// rubber band (adding to the selection with Shift or Ctrl).
class SelectTool : public CanvasTool
{
public:
    using CanvasTool::CanvasTool;
    void activate() override;
    void deactivate() override;
    bool mousePress(QMouseEvent *event) override;
    bool mouseMove(QMouseEvent *event) override;
    bool mouseRelease(QMouseEvent *event) override;

private:
    /// Qt toggles with Ctrl only; Shift is the same gesture for our users.
    bool forwardWithShiftAsControl(QMouseEvent *event, int which);
};

} // namespace cleave::ui
