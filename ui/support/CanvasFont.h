// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QFont>

namespace cleave::ui {

/// A font of the canvas: the application's family at `pixelSize` pixels (scene units, so that
/// text scales with the zoom like the boxes it labels). A `weight` other than Normal is set;
/// Normal leaves the weight unset, so that the font resolves it from the painted device's font
/// as an unconfigured QFont does.
inline QFont canvasFont(int pixelSize, QFont::Weight weight = QFont::Normal)
{
    QFont font;
    font.setPixelSize(pixelSize);
    if (weight != QFont::Normal)
        font.setWeight(weight);
    return font;
}

} // namespace cleave::ui
