// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <QColor>
#include <QString>

namespace cleave::ui {

/// The family of an operator, which picks its node colour on the canvas.
enum class OpCategory {
    Convolution,
    MatMul, ///< dense, matmul, batch_matmul
    Normalisation,
    Activation,
    Pooling,
    Elementwise,
    Shape, ///< reshape, transpose, concatenate, slicing: layout and data movement
    Control, ///< annotations, device copies, if/match, tuples
    FunctionCall, ///< fused, composite and BYOC functions
    Input,
    Other,
};

/// The category of a node from its kind and operator name.
OpCategory opCategory(const Graph &graph, NodeId id);
/// The category of an operator name (for OpCall nodes).
OpCategory opCategoryOfOp(const std::string &op);
/// Fill colour of a category's nodes in the active canvas theme (CanvasColours).
QColor categoryFill(OpCategory category);
/// Border and accent colour of a category's nodes in the active canvas theme.
QColor categoryStroke(OpCategory category);
/// Name shown in legends ("convolution").
QString categoryName(OpCategory category);

/// The colour of partition colour index `index` (a palette that stays readable on white).
QColor partitionColour(int index);
/// Bytes as badges and tooltips show them, in the units of the docks: `784.0 KiB`, `3.1 MiB`.
QString badgeBytes(std::int64_t bytes);

} // namespace cleave::ui
