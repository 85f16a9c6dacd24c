// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QThread>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

class QObject;

namespace cleave::ui {

/// The worker threads of one requester (the model loader, the layout runner, the level
/// preparation): each runs one request and has its own cancel flag. A thread that finishes is
/// deleted on the owner's thread; a superseded one is only told to stop (cancelAll()) and
/// goes when it has. The owner calls cancelAndWait() in its destructor, before its members go,
/// so that no worker outlives what it reports to.
class WorkerThreads
{
public:
    /// `owner` receives the threads' finished signals; `idle`, if set, runs when the last
    /// running thread has ended.
    explicit WorkerThreads(QObject *owner, std::function<void()> idle = {});
    ~WorkerThreads();
    WorkerThreads(const WorkerThreads &) = delete;
    WorkerThreads &operator=(const WorkerThreads &) = delete;

    /// Takes `thread` (made by QThread::create with `cancel` in its body) and starts it.
    void run(QThread *thread, std::shared_ptr<std::atomic<bool>> cancel,
             QThread::Priority priority = QThread::InheritPriority);
    /// Raises every running thread's cancel flag.
    void cancelAll();
    /// Raises every flag and waits for every thread to end, deleting them.
    void cancelAndWait();
    [[nodiscard]] bool isEmpty() const { return m_threads.empty(); }

private:
    struct Worker
    {
        std::shared_ptr<std::atomic<bool>> cancel;
        QThread *thread = nullptr;
    };
    void reap(QThread *thread);

    QObject *m_owner;
    std::function<void()> m_idle;
    std::vector<Worker> m_threads;
};

} // namespace cleave::ui
