// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <QString>

namespace cleave::ui {

/// The tooltip of a node, made when the mouse rests on it (never stored per item: a canvas
/// holds 100k nodes), as Netron shows it: the node's key and op, its inputs (producer, shape,
/// dtype, bytes), its weights and constants (name, shape, dtype, bytes) and its output types.
/// Rich text, one fact per line.
QString nodeToolTip(const Graph &graph, NodeId node);

/// The tooltip of the edge `tensor` → `consumer`: the tensor's name, the consumer, its shape,
/// dtype and bytes. Rich text.
QString edgeToolTip(const Graph &graph, TensorRef tensor, NodeId consumer);

/// A tensor type as tooltips and edge labels write it: `64×3×7×7 · float32 · 36.8 KiB`
/// (shape and dtype of a tensor, bytes when static; the short form of other types).
QString typeDescription(const Type &type);

} // namespace cleave::ui
