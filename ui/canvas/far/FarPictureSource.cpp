// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/far/FarPictureSource.h"

#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/TileMaterializer.h"
#include "ui/support/CanvasTheme.h"
#include "ui/support/OpCategory.h"

namespace cleave::ui {

namespace {

// The colours NodeItem paints a flat box with far out.
const QColor selectionColour(0x1e, 0x6f, 0xd9);
const QColor highlightColour(0xff, 0x8f, 0x00);
const QColor problemColour(0xd3, 0x2f, 0x2f);

} // namespace

std::shared_ptr<const FarGeometry> farGeometry(std::shared_ptr<const Layout> layout,
                                               const QRectF &bounds, const Graph &graph)
{
    auto g = std::make_shared<FarGeometry>();
    g->bounds = bounds;
    g->regionPadX = regionPadX;
    g->regionPadY = regionPadY;
    g->routeWidth = PartitionRegionItem::routeWidth;
    if (layout) {
        g->categories.reserve(layout->nodes.size());
        for (const auto &[id, r] : layout->nodes)
            g->categories.push_back(static_cast<std::uint8_t>(opCategory(graph, id)));
    }
    g->layout = std::move(layout);
    return g;
}

FarStyle farStyle(const TileMaterializer &drawing, NodeId highlighted,
                  const std::unordered_map<NodeId, QColor> &marks,
                  const std::vector<std::pair<NodeId, std::string>> &problems)
{
    const CanvasColours &colours = canvasColours();
    FarStyle style;
    style.edge = (colours.dark ? colours.edge : QColor(0xb4, 0xbb, 0xc4)).rgba();
    for (int c = 0; c <= static_cast<int>(OpCategory::Other); ++c)
        style.categories.push_back(colours.stroke(static_cast<OpCategory>(c)).rgba());
    auto add = [&](NodeId id, const QColor &colour) {
        if (const std::size_t index = drawing.nodeIndex(id); index != TileMaterializer::none)
            style.boxes.emplace_back(drawing.nodeRect(index), colour.rgba());
    };
    // In rising precedence: a later box covers an earlier one of the same node.
    for (const auto &[id, message] : problems)
        add(id, problemColour);
    for (const auto &[id, colour] : marks)
        if (colour.isValid())
            add(id, colour);
    if (highlighted.isValid())
        add(highlighted, highlightColour);
    if (drawing.states().selectedCount() > 0)
        for (const auto &[id, index] : drawing.drawnNodes())
            if (drawing.states().isSelected(index))
                style.boxes.emplace_back(drawing.nodeRect(index), selectionColour.rgba());
    return style;
}

std::vector<QRgb> farTints(const std::vector<FarPartition> &partitions, PartitionId highlighted)
{
    std::vector<QRgb> tints;
    tints.reserve(partitions.size());
    for (const FarPartition &p : partitions)
        tints.push_back(
            canvasColours()
                .tint(p.colour,
                      (p.id == highlighted && highlighted.isValid() ? regionTintHighlight : 0)
                          + regionTintFar)
                .rgba());
    return tints;
}

} // namespace cleave::ui
