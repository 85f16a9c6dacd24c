// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QIcon>
#include <QString>

namespace cleave::ui {

/// One of Cleave's line icons (`:/cleave/icons/<name>.svg`, drawn in a dark slate). Under a
/// dark palette (View ▸ Theme ▸ Dark, or a dark desktop) its strokes are drawn in the palette's
/// text colour instead, so the toolbar stays legible; coloured accents keep their colour.
QIcon themedIcon(const char *name);

} // namespace cleave::ui
