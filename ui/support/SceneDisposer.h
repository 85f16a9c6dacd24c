// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QObject>

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

class QElapsedTimer;
class QGraphicsItem;
class QGraphicsScene;
class QTimer;

namespace cleave::ui {

/// Deletes scenes no longer shown, and their items, a slice of a few milliseconds per event-loop
/// turn: deleting the 200k items of a 100k-node model at once held the UI thread for 350-850 ms
/// when a model was closed or replaced. The canvas shows a fresh scene at once and hands the old
/// one over.
///
/// Items of a scene without an index leave it through a list sorted by address (Qt's linear
/// index erases from it): they are deleted from the highest address down, so each erase moves
/// only the few items left above it. Items with children (tiles, plan layers) go last, when
/// their children are gone.
class SceneDisposer : public QObject
{
    Q_OBJECT
public:
    explicit SceneDisposer(QObject *parent = nullptr);
    /// Deletes what is left at once.
    ~SceneDisposer() override;
    SceneDisposer(const SceneDisposer &) = delete;
    SceneDisposer &operator=(const SceneDisposer &) = delete;

    /// Takes `scene` (shown in no view, its signals disconnected) and deletes it over the next
    /// event-loop turns, after its items. `keepAlive` holds what the items point into (the
    /// layout their routes come from) until the last of them is gone; it is let go after them,
    /// from its last element, over as many turns as that takes.
    void dispose(std::unique_ptr<QGraphicsScene> scene,
                 std::vector<std::shared_ptr<const void>> keepAlive);
    /// True while some scene is waiting to be deleted.
    [[nodiscard]] bool isBusy() const { return !m_pending.empty(); }
    /// The longest a slice may take (milliseconds); 0 deletes everything in one slice.
    void setSliceBudget(int milliseconds) { m_budget = milliseconds; }

signals:
    /// The last scene handed over is deleted.
    void finished();

private:
    struct Pending
    {
        // Destroyed after the scene, in reverse order of declaration.
        std::vector<std::shared_ptr<const void>> keepAlive;
        std::unique_ptr<QGraphicsScene> scene;
        /// The scene's items by address, once listed (after the first deletion).
        std::vector<QGraphicsItem *> items;
        /// Top-level items that had children when their turn came: deleted last.
        std::vector<QGraphicsItem *> roots;
        bool listed = false;
        bool started = false;
    };
    void runSlice();
    /// Deletes items of `p` until the slice's time is up; true when its scene is deleted.
    bool disposeSome(Pending &p, const QElapsedTimer &clock) const;

    std::deque<Pending> m_pending;
    QTimer *m_next = nullptr;
    int m_budget = 10;
};

} // namespace cleave::ui
