// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"

#include <QRectF>

namespace cleave::ui {

/// A node's layout rectangle as the scene's rectangle (the same coordinates: scene units).
[[nodiscard]] inline QRectF toRectF(const LayoutRect &r)
{
    return { r.x, r.y, r.width, r.height };
}

} // namespace cleave::ui
