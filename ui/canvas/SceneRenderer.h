// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/partition/PartitionPlan.h"

#include <QString>

#include <memory>
#include <optional>

namespace cleave::ui {

/// What to draw and where (`cleave-cli render`).
struct RenderRequest
{
    bool blocks = false; ///< One node per fused block (the editor's Blocks level).
    QString output; ///< ".svg", ".png" or ".pdf".
    int dpi = 0; ///< Raster resolution (writeDrawing); 0: the editor's default.
};

/// Makes sure a QApplication exists so that the canvas can draw without a display: when there
/// is none, creates one (kept for the life of the process) on the offscreen platform, unless
/// QT_QPA_PLATFORM names another. False and a message when the running application is not a
/// QApplication.
bool ensureDrawingApplication(QString *error = nullptr);

/// Draws `graph` exactly as the editor's canvas does, without showing a window: `plan` (or the
/// editor's one-partition plan when absent) with its partitions tinted and its boundary edges
/// bold with their tensor badges, fused blocks framed (Ops level) or one node per block (Blocks
/// level); waits for the Graphviz layout, then writes request.output (writeDrawing). Needs
/// ensureDrawingApplication(). False and a message when the layout fails or the file cannot be
/// written.
bool renderDrawing(std::unique_ptr<cleave::Graph> graph, const QString &modelPath,
                   std::optional<cleave::PartitionPlan> plan, const RenderRequest &request,
                   QString *error = nullptr);

} // namespace cleave::ui
