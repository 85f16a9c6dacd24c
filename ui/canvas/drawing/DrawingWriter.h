// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QRectF>
#include <QString>

class QGraphicsScene;

namespace cleave::ui {

/// Writes the part `bounds` of the canvas' scene to `path`, in the format its suffix names:
/// ".svg" (sceneToSvg), ".png" (the scene's unit is a pixel at 96 dpi, so the image is
/// bounds × dpi / 96 pixels) or ".pdf" (one page of the drawing's size at `dpi`). `dpi` 0 draws
/// a PNG at twice the drawing's size capped at 16000 pixels, and a PDF at 300 dpi. Written
/// atomically; false and a message in `error` when the format is unknown, the image would be
/// too large, or the file cannot be written.
bool writeDrawing(QGraphicsScene &scene, const QRectF &bounds, const QString &path, int dpi,
                  QString *error = nullptr);

} // namespace cleave::ui
