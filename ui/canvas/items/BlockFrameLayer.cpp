// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/items/BlockFrameLayer.h"

#include "ui/support/CanvasFont.h"
#include "ui/support/CanvasTheme.h"

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QHash>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

namespace cleave::ui {

namespace {

const QFont &tabFont()
{
    static const QFont font = canvasFont(9);
    return font;
}

// A fused block's name as its tab shows it (elided in the middle to 220 px) and the tab text's
// width. Block names repeat across a model (rnnt: 6.9k blocks) and eliding shapes the text:
// each name is measured once (the scene is built and painted on the UI thread only).
struct TabText
{
    QString shown;
    qreal width = 0;
};

const TabText &tabText(const QString &name)
{
    static QHash<QString, TabText> known;
    auto it = known.find(name);
    if (it == known.end()) {
        const QFontMetricsF fm(tabFont());
        TabText t;
        t.shown = fm.elidedText(name, Qt::ElideMiddle, 220);
        t.width = fm.horizontalAdvance(t.shown);
        it = known.insert(name, t);
    }
    return *it;
}

// Frames are hidden below this zoom, their tabs below the second.
constexpr qreal frameZoom = 0.2;
constexpr qreal tabZoom = 0.45;

} // namespace

BlockFrameLayer::BlockFrameLayer(std::shared_ptr<const BlockFrameTable> table,
                                 std::vector<Frame> frames)
    : m_table(std::move(table))
    , m_frames(std::move(frames))
{
    setFlag(ItemUsesExtendedStyleOption);
    setZValue(0.5); // under edges and nodes
    m_outer.reserve(m_frames.size());
    for (std::size_t i = 0; i < m_frames.size(); ++i) {
        const QRectF outer = frame(i).united(tabRect(i)).adjusted(-4, -4, 4, 4);
        m_outer.push_back(FloatRect::fromRectF(outer));
        m_bounds = m_bounds.united(outer);
    }
    m_index.build(m_outer);
}

const QString &BlockFrameLayer::name(std::size_t frame) const
{
    return m_table->name(m_frames[frame].block);
}

std::span<const NodeId> BlockFrameLayer::nodes(std::size_t frame) const
{
    return m_table->nodesOf(m_frames[frame].block);
}

QRectF BlockFrameLayer::tabRect(std::size_t frame) const
{
    static const qreal textHeight = QFontMetricsF(tabFont()).height();
    const QRectF &box = this->frame(frame);
    return { box.right() + 3, box.top(), tabText(name(frame)).width + 10, textHeight + 4 };
}

QString BlockFrameLayer::toolTipText(std::size_t frame) const
{
    return QStringLiteral("fused block %1 · %2 ops").arg(name(frame)).arg(m_frames[frame].drawn);
}

QPainterPath BlockFrameLayer::hitShape(std::size_t frame) const
{
    // The border band and the name tab: clicks inside the frame still reach nodes or start a
    // rubber band.
    QPainterPath outline;
    outline.addRoundedRect(this->frame(frame), 7, 7);
    QPainterPathStroker stroker;
    stroker.setWidth(8);
    QPainterPath band = stroker.createStroke(outline);
    band.addRect(tabRect(frame));
    return band;
}

std::size_t BlockFrameLayer::topmost(const QRectF &near,
                                     const std::function<bool(const QPainterPath &)> &hit) const
{
    m_index.query(near, m_outer, m_found);
    // A later frame is drawn over an earlier one.
    for (std::size_t k = m_found.size(); k-- > 0;)
        if (hit(hitShape(m_found[k])))
            return m_found[k];
    return none;
}

std::size_t BlockFrameLayer::frameAt(const QPointF &point) const
{
    return topmost(QRectF(point - QPointF(0.5, 0.5), QSizeF(1, 1)),
                   [&](const QPainterPath &shape) { return shape.contains(point); });
}

std::size_t BlockFrameLayer::frameMeeting(const QRectF &area) const
{
    return topmost(area, [&](const QPainterPath &shape) { return shape.intersects(area); });
}

bool BlockFrameLayer::contains(const QPointF &point) const
{
    return frameAt(point) != none;
}

bool BlockFrameLayer::collidesWithPath(const QPainterPath &path, Qt::ItemSelectionMode mode) const
{
    if (path.isEmpty())
        return false;
    if (mode == Qt::ContainsItemShape || mode == Qt::ContainsItemBoundingRect)
        return path.contains(m_bounds);
    // Hit tests (a click, a tooltip) ask with a pixel's rectangle: the frames near it answer.
    return topmost(path.controlPointRect(),
                   [&](const QPainterPath &shape) { return path.intersects(shape); })
        != none;
}

void BlockFrameLayer::paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
                            QWidget * /*widget*/)
{
    m_painted.clear();
    const qreal lod
        = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    if (lod < frameZoom)
        return;
    m_index.query(option->exposedRect.isValid() ? option->exposedRect : m_bounds, m_outer,
                  m_painted);
    const CanvasColours &colours = canvasColours();
    QPen pen(colours.blockFrame, 1.0, Qt::DashLine);
    pen.setCosmetic(true);
    const bool tabs = lod >= tabZoom;
    if (tabs)
        painter->setFont(tabFont());
    for (std::uint32_t i : m_painted) {
        painter->setPen(pen);
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(frame(i), 7, 7);
        if (!tabs)
            continue;
        painter->setPen(Qt::NoPen);
        painter->setBrush(colours.blockTabFill);
        const QRectF tab = tabRect(i);
        painter->drawRoundedRect(tab, 3, 3);
        painter->setPen(colours.blockTabText);
        painter->drawText(tab, Qt::AlignCenter, tabText(name(i)).shown);
    }
}

void BlockFrameLayer::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    const std::size_t hit = event->button() == Qt::LeftButton && m_table->select
        ? frameMeeting(QRectF(event->scenePos() - QPointF(0.5, 0.5), QSizeF(1, 1)))
        : none;
    if (hit == none) {
        event->ignore();
        return;
    }
    const std::span<const NodeId> members = nodes(hit);
    m_table->select(std::vector<NodeId>(members.begin(), members.end()),
                    (event->modifiers() & (Qt::ShiftModifier | Qt::ControlModifier)) != 0);
    event->accept();
}

} // namespace cleave::ui
