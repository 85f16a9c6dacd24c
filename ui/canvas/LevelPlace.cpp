// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/LevelPlace.h"

#include "ui/canvas/CanvasWidget.h"

#include <QGraphicsView>

#include <utility>

namespace cleave::ui {

LevelPlace::LevelPlace(CanvasWidget *canvas, LevelView *levels, QObject *parent)
    : QObject(parent)
    , m_canvas(canvas)
    , m_levels(levels)
{
    connect(m_canvas, &CanvasWidget::layoutFinished, this,
            [this](bool ok) { onLayoutFinished(ok); });
}

void LevelPlace::switchTo(LevelView::Level level)
{
    if (level == m_levels->level())
        return;
    m_pending.reset();
    if (m_canvas->isLayoutReady()) {
        const std::vector<cleave::NodeId> selected = m_canvas->selectedNodes();
        const cleave::NodeId shown
            = selected.empty() ? m_canvas->nodeNearViewportCentre() : selected.front();
        if (shown.isValid()) {
            Pending place;
            place.viewportPos = m_canvas->viewportPosOfNode(shown);
            place.zoom = m_canvas->view()->transform().m11();
            const bool roundTrip
                = selected.size() == 1 && shown == m_roundTripShown && m_roundTripModel.isValid();
            const std::vector<cleave::NodeId> model = roundTrip
                ? std::vector<cleave::NodeId> { m_roundTripModel }
                : m_levels->modelNodes(selected.empty() ? std::vector { shown } : selected);
            if (!model.empty()) {
                // A block stands for its root op (its last node), as in Properties.
                place.anchor = roundTrip ? m_roundTripModel
                    : selected.size() == 1 && model.size() == 1
                    ? model.front()
                    : m_levels->modelNodes({ shown }).back();
                if (!selected.empty())
                    place.select = model;
                m_pending = std::move(place);
            }
        }
    }
    m_roundTripModel = {};
    m_roundTripShown = {};
    if (m_pending) {
        // The new level's drawing opens there, its first items being those seen there (the
        // node it is shown as is known once the level view has switched).
        const LevelView *levels = m_levels;
        const cleave::NodeId anchor = m_pending->anchor;
        CanvasWidget::OpeningPlace opening;
        opening.node = [levels, anchor] {
            const std::vector<cleave::NodeId> shown = levels->shownNodes({ anchor });
            return shown.empty() ? cleave::NodeId {} : shown.front();
        };
        opening.viewportPos = m_pending->viewportPos;
        opening.zoom = m_pending->zoom;
        m_canvas->setOpeningPlace(std::move(opening));
    }
    m_levels->setLevel(level);
}

void LevelPlace::onLayoutFinished(bool ok)
{
    if (!m_pending)
        return;
    const Pending place = std::move(*m_pending);
    m_pending.reset();
    if (!ok)
        return;
    const std::vector<cleave::NodeId> anchor = m_levels->shownNodes({ place.anchor });
    if (anchor.empty())
        return;
    if (!place.select.empty()) {
        m_canvas->selectNodes(m_levels->shownNodes(place.select));
        const std::vector<cleave::NodeId> now = m_canvas->selectedNodes();
        if (now.size() == 1) {
            m_roundTripModel = place.anchor;
            m_roundTripShown = now.front();
        }
    }
    m_canvas->placeNode(anchor.front(), place.viewportPos, place.zoom);
}

} // namespace cleave::ui
