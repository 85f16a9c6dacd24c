// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/support/WorkerThreads.h"

#include <QObject>

#include <utility>

namespace cleave::ui {

WorkerThreads::WorkerThreads(QObject *owner, std::function<void()> idle)
    : m_owner(owner)
    , m_idle(std::move(idle))
{
}

WorkerThreads::~WorkerThreads()
{
    cancelAndWait();
}

void WorkerThreads::run(QThread *thread, std::shared_ptr<std::atomic<bool>> cancel,
                        QThread::Priority priority)
{
    QObject::connect(thread, &QThread::finished, m_owner, [this, thread] { reap(thread); });
    m_threads.push_back(Worker { std::move(cancel), thread });
    thread->start(priority);
}

void WorkerThreads::cancelAll()
{
    for (Worker &worker : m_threads)
        worker.cancel->store(true);
}

void WorkerThreads::cancelAndWait()
{
    cancelAll();
    for (Worker &worker : m_threads) {
        worker.thread->wait();
        delete worker.thread;
    }
    m_threads.clear();
}

void WorkerThreads::reap(QThread *thread)
{
    for (auto it = m_threads.begin(); it != m_threads.end(); ++it) {
        if (it->thread == thread) {
            m_threads.erase(it);
            thread->deleteLater();
            break;
        }
    }
    if (m_threads.empty() && m_idle)
        m_idle();
}

} // namespace cleave::ui
