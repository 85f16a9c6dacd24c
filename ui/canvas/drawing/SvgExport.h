// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QRectF>
#include <QString>

class QGraphicsScene;

namespace cleave::ui {

/// The canvas' drawing as a standalone SVG document (regions, edges with arrowheads, nodes
/// with their labels, badges) covering `bounds` of the scene.
QString sceneToSvg(const QGraphicsScene &scene, const QRectF &bounds);

} // namespace cleave::ui
