// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/geometry/BandIndex.h"
#include "ui/geometry/FloatRect.h"

#include <QGraphicsItem>
#include <QPainterPath>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace cleave::ui {

/// The fused blocks a canvas frames, shared by the frame layers made of them: each distinct
/// name once, every block's nodes in one array, and what clicking a frame does: select the
/// block's nodes (`add`: to the selection).
struct BlockFrameTable
{
    using SelectFunction = std::function<void(const std::vector<NodeId> &nodes, bool add)>;
    std::vector<QString> names; // distinct
    std::vector<std::uint32_t> nameOf; // per block, its name's index in `names`
    std::vector<NodeId> nodes; // block b's: nodes[starts[b], starts[b + 1])
    std::vector<std::uint32_t> starts;
    SelectFunction select;

    [[nodiscard]] std::size_t blockCount() const { return nameOf.size(); }
    [[nodiscard]] const QString &name(std::size_t block) const { return names[nameOf[block]]; }
    [[nodiscard]] std::span<const NodeId> nodesOf(std::size_t block) const
    {
        return std::span<const NodeId>(nodes).subspan(starts[block],
                                                      starts[block + 1] - starts[block]);
    }
};

/// The frames of the fused blocks (the nodes that run as one kernel) over a drawing, each with
/// the block's name in a tab beside it, as one item: a paint draws the frames meeting the
/// exposed area (found in a BandIndex), so frames cost what is in view, however many blocks a
/// model has (rnnt: 6.9k), and a frame takes a few dozen bytes instead of an item. Clicking a
/// frame's border or tab selects the block's nodes (with Shift or Ctrl: adds them to the
/// selection); clicks inside a frame reach the nodes below (hit tests see only borders and
/// tabs). Frames are hidden far out (zoom below 0.2), tabs below 0.45.
class BlockFrameLayer : public QGraphicsItem
{
public:
    /// A framed block: its frame (scene coordinates), its index in the table, how many of its
    /// nodes are drawn.
    struct Frame
    {
        QRectF frame;
        std::uint32_t block = 0;
        std::uint32_t drawn = 0;
    };
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    enum { Type = BlockFrameLayerType };

    BlockFrameLayer(std::shared_ptr<const BlockFrameTable> table, std::vector<Frame> frames);

    [[nodiscard]] int type() const override { return Type; }
    [[nodiscard]] std::size_t frameCount() const { return m_frames.size(); }
    [[nodiscard]] const QString &name(std::size_t frame) const;
    /// The block's nodes (those not drawn included: selecting them selects the drawn ones).
    [[nodiscard]] std::span<const NodeId> nodes(std::size_t frame) const;
    [[nodiscard]] const QRectF &frame(std::size_t frame) const { return m_frames[frame].frame; }
    /// The name tab (scene coordinates): 3 units right of the frame's top-right corner.
    [[nodiscard]] QRectF tabRect(std::size_t frame) const;
    /// "fused block NAME · N ops" (N: its drawn nodes).
    [[nodiscard]] QString toolTipText(std::size_t frame) const;
    /// The topmost frame whose border band or tab holds `point` / meets `area`, or none.
    [[nodiscard]] std::size_t frameAt(const QPointF &point) const;
    [[nodiscard]] std::size_t frameMeeting(const QRectF &area) const;
    /// The frames the last paint drew, by index, increasing (culling, for tests).
    [[nodiscard]] const std::vector<std::uint32_t> &lastPainted() const { return m_painted; }

    [[nodiscard]] QRectF boundingRect() const override { return m_bounds; }
    [[nodiscard]] bool contains(const QPointF &point) const override;
    [[nodiscard]] bool collidesWithPath(const QPainterPath &path,
                                        Qt::ItemSelectionMode mode) const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override;

private:
    /// The border band (8 units wide) and the tab of a frame, what a click may hit.
    [[nodiscard]] QPainterPath hitShape(std::size_t frame) const;
    [[nodiscard]] std::size_t topmost(const QRectF &near,
                                      const std::function<bool(const QPainterPath &)> &hit) const;

    std::shared_ptr<const BlockFrameTable> m_table;
    std::vector<Frame> m_frames;
    std::vector<FloatRect> m_outer; // per frame: frame and tab united, 4 units out (indexed)
    BandIndex m_index;
    QRectF m_bounds;
    mutable std::vector<std::uint32_t> m_found;
    std::vector<std::uint32_t> m_painted;
};

} // namespace cleave::ui
