// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"

#include <QGraphicsView>

#include <functional>
#include <vector>

namespace cleave::ui {

class CanvasTool;
class FarPicture;

/// The QGraphicsView of the canvas: zoom (Ctrl+wheel, pinch, +/-), pan (middle-drag,
/// space-drag, scroll bars), fit (F), zoom to selection (Z); the left button goes to the
/// active tool.
class CanvasView : public QGraphicsView
{
    Q_OBJECT
public:
    explicit CanvasView(QWidget *parent = nullptr);

    /// The tool receiving left-button events (not owned; nullptr for none).
    void setTool(CanvasTool *tool);
    [[nodiscard]] CanvasTool *tool() const { return m_tool; }

    /// Zooms by `factor` keeping the scene point under viewport position `anchor` in place.
    void zoomBy(qreal factor, const QPointF &anchor);
    /// Shows `rect` (scene coordinates) whole, with a margin, never zooming in past 1.5x.
    void showRect(const QRectF &rect);
    [[nodiscard]] qreal zoom() const { return transform().m11(); }
    /// The picture painted instead of the items when zoomed far out (not owned; nullptr: none).
    void setFarPicture(FarPicture *picture) { m_far = picture; }
    /// The picture painted when zoomed far out (tests, benchmarks), or nullptr.
    [[nodiscard]] const FarPicture *farPicture() const { return m_far; }
    /// Makes the tooltip of the point under the mouse when it rests (viewport coordinates);
    /// an empty text falls back to the items' own tooltips.
    void setToolTipProvider(std::function<QString(const QPoint &)> provider)
    {
        m_toolTips = std::move(provider);
    }
    /// Called with the mouse's viewport position as it moves over the viewport with no button
    /// held, before Qt's hover handling looks for the items there, to make them
    /// (TileMaterializer: items exist only for hit tests around the mouse).
    void setItemsNeededAt(std::function<void(const QPoint &viewportPos)> needed)
    {
        m_itemsNeededAt = std::move(needed);
    }
    /// The scene area the viewport shows.
    [[nodiscard]] QRectF visibleArea() const;
    /// True when the last paint showed the far picture instead of the items.
    [[nodiscard]] bool lastPaintWasFar() const { return m_lastFar; }

    // The default QGraphicsView handling, for tools.
    void baseMousePress(QMouseEvent *event) { QGraphicsView::mousePressEvent(event); }
    void baseMouseMove(QMouseEvent *event) { QGraphicsView::mouseMoveEvent(event); }
    void baseMouseRelease(QMouseEvent *event) { QGraphicsView::mouseReleaseEvent(event); }

signals:
    void cutStroke(const std::vector<cleave::EdgeRef> &edges);
    /// A cut stroke was released without crossing any edge.
    void cutStrokeMissed();
    void fitRequested();
    void zoomToSelectionRequested();
    void nodeDoubleClicked(const QPointF &scenePos);
    void contextMenuAt(const QPoint &viewportPos, const QPoint &globalPos);
    /// The visible part of the scene changed (scroll or zoom).
    void visibleAreaChanged();

protected:
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void focusOutEvent(QFocusEvent *event) override;

private:
    void startPan(const QPoint &pos);

    CanvasTool *m_tool = nullptr;
    FarPicture *m_far = nullptr;
    std::function<QString(const QPoint &)> m_toolTips;
    std::function<void(const QPoint &)> m_itemsNeededAt;
    bool m_lastFar = false;
    bool m_spaceHeld = false;
    bool m_panning = false;
    QPoint m_panLast;
};

} // namespace cleave::ui
