// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "ui/scene/FarPictureData.h"

#include <QList>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

class QGraphicsItem;

namespace cleave::ui {

class EdgeItem;
class NodeItem;

using NodeItemMap = std::unordered_map<NodeId, NodeItem *>;
using EdgeItemMap = std::map<EdgeRef, EdgeItem *>;

/// The far picture's geometry of a drawn scene: its node boxes in `nodes`' iteration order and
/// its routes in `edges`' order (the orders the plan layer's slots follow), over `bounds`.
/// Linear in the items; the routes stay in `layout`.
[[nodiscard]] std::shared_ptr<const FarGeometry>
farGeometry(std::shared_ptr<const Layout> layout, const QRectF &bounds, const NodeItemMap &nodes,
            const EdgeItemMap &edges, qreal regionPadX, qreal regionPadY);

/// The colours of the far picture's base layer in the active theme: boxes by category, then
/// in their problem, mark, highlight or selection colour (sparse: only such nodes are visited).
[[nodiscard]] FarStyle farStyle(const NodeItemMap &nodes, const QList<QGraphicsItem *> &selected,
                                NodeId highlighted, const std::unordered_map<NodeId, QColor> &marks,
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
