// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/support/SceneDisposer.h"

#include <QElapsedTimer>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QTimer>

#include <utility>

namespace cleave::ui {

namespace {

// The clock is read once per this many deleted items (an item takes about a microsecond).
constexpr std::size_t itemsPerClockCheck = 32;

bool hasChildren(const QGraphicsItem *item)
{
    return !item->childItems().isEmpty();
}

} // namespace

SceneDisposer::SceneDisposer(QObject *parent)
    : QObject(parent)
    , m_next(new QTimer(this))
{
    m_next->setSingleShot(true);
    m_next->setInterval(0);
    connect(m_next, &QTimer::timeout, this, &SceneDisposer::runSlice);
}

SceneDisposer::~SceneDisposer()
{
    m_budget = 0;
    m_next->stop();
    QElapsedTimer clock;
    clock.start();
    for (Pending &p : m_pending)
        disposeSome(p, clock);
}

void SceneDisposer::dispose(std::unique_ptr<QGraphicsScene> scene,
                            std::vector<std::shared_ptr<const void>> keepAlive)
{
    Pending p;
    p.keepAlive = std::move(keepAlive);
    p.scene = std::move(scene);
    m_pending.push_back(std::move(p));
    if (!m_next->isActive())
        m_next->start();
}

void SceneDisposer::runSlice()
{
    QElapsedTimer clock;
    clock.start();
    while (!m_pending.empty()) {
        if (!disposeSome(m_pending.front(), clock)) {
            m_next->start(); // the rest after the events waiting meanwhile (paints, input)
            return;
        }
        m_pending.pop_front();
    }
    emit finished();
}

bool SceneDisposer::disposeSome(Pending &p, const QElapsedTimer &clock) const
{
    auto timeUp = [&](std::size_t done) {
        return m_budget > 0 && done % itemsPerClockCheck == itemsPerClockCheck - 1
            && clock.elapsed() >= m_budget;
    };
    if (!p.started) {
        // Qt's linear index sorts its list of items by address on the first removal (one pass
        // over the scene, a few milliseconds for 200k items); the list is read sorted after it.
        p.started = true;
        const QList<QGraphicsItem *> all = p.scene->items();
        for (QGraphicsItem *item : all) {
            if (!hasChildren(item)) {
                delete item;
                break;
            }
        }
        if (m_budget > 0 && clock.elapsed() >= m_budget)
            return false;
    }
    if (!p.listed) {
        const QList<QGraphicsItem *> sorted = p.scene->items();
        p.items.assign(sorted.begin(), sorted.end());
        p.listed = true;
    }
    // From the highest address down: each erase from Qt's sorted list moves only the items
    // above it, the few parents left for later.
    std::size_t done = 0;
    while (!p.items.empty()) {
        if (timeUp(done++))
            return false;
        QGraphicsItem *item = p.items.back();
        p.items.pop_back();
        if (hasChildren(item)) {
            // Deleted after its children; a parent under another one goes with its root.
            if (item->parentItem() == nullptr)
                p.roots.push_back(item);
            continue;
        }
        delete item;
    }
    while (!p.roots.empty()) {
        if (timeUp(done++))
            return false;
        delete p.roots.back();
        p.roots.pop_back();
    }
    if (p.scene) {
        p.scene.reset();
        if (m_budget > 0 && clock.elapsed() >= m_budget)
            return false;
    }
    // What the items pointed into and the rest handed over, as many parts per turn as its
    // time allows (freeing a 100k-node model's layout or lookups takes milliseconds each).
    while (!p.keepAlive.empty()) {
        if (m_budget > 0 && clock.elapsed() >= m_budget)
            return false;
        p.keepAlive.pop_back();
    }
    return true;
}

} // namespace cleave::ui
