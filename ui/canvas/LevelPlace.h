// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "ui/document/LevelView.h"

#include <QObject>
#include <QPoint>

#include <optional>
#include <vector>

namespace cleave::ui {

class CanvasWidget;

/// Keeps the user's place across a level switch (Operators ⇄ Fused Blocks). The place is the
/// selected node — or, without a selection, the node nearest the middle of the view — with its
/// position in the viewport and the zoom. Once the other level is laid out, the same model
/// nodes are selected as that level shows them (an operator's block at Blocks level, a block's
/// operators at Operators level) and the node standing for the place is put back at the same
/// viewport position and zoom.
///
/// The new level's drawing opens at that place (CanvasWidget::setOpeningPlace()), so that its
/// first frame shows it; the selection follows once every item is made.
///
/// A round trip returns to the node the user had: switching Ops → Blocks → Ops with the block
/// still selected selects and places the original operator again, not all of its block.
class LevelPlace : public QObject
{
    Q_OBJECT

public:
    LevelPlace(CanvasWidget *canvas, LevelView *levels, QObject *parent = nullptr);

    /// Switches the level view to `level`, keeping the place.
    void switchTo(LevelView::Level level);

private:
    struct Pending
    {
        std::vector<cleave::NodeId> select; ///< Model nodes to select at the new level.
        cleave::NodeId anchor; ///< The model node to put back in place.
        QPoint viewportPos;
        qreal zoom = 1;
    };
    void onLayoutFinished(bool ok);

    CanvasWidget *m_canvas;
    LevelView *m_levels;
    std::optional<Pending> m_pending;
    /// The operator a switch started from, and the node it was shown as after the switch.
    cleave::NodeId m_roundTripModel;
    cleave::NodeId m_roundTripShown;
};

} // namespace cleave::ui
