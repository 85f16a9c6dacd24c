// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "ui/canvas/far/FarPictureData.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cleave {
class Graph;
} // namespace cleave

namespace cleave::ui {

class TileMaterializer;

/// The far picture's geometry of `layout` over `bounds`, each node in the category of its node
/// in `graph`: a byte a node, the boxes and routes stay in `layout` (no item is needed).
[[nodiscard]] std::shared_ptr<const FarGeometry>
farGeometry(std::shared_ptr<const Layout> layout, const QRectF &bounds, const Graph &graph);

/// The colours of the far picture's base layer in the active theme: boxes by category, then
/// in their problem, mark, highlight or selection colour (the selection is the drawing's).
[[nodiscard]] FarStyle farStyle(const TileMaterializer &drawing, NodeId highlighted,
                                const std::unordered_map<NodeId, QColor> &marks,
                                const std::vector<std::pair<NodeId, std::string>> &problems);

/// One partition of the plan layer, in plan order.
struct FarPartition
{
    PartitionId id;
    QColor colour;
};

/// The tint of each partition (stronger for `highlighted`) in the active theme.
[[nodiscard]] std::vector<QRgb> farTints(const std::vector<FarPartition> &partitions,
                                         PartitionId highlighted);

} // namespace cleave::ui
