// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/LoadCard.h"

#include "ui/document/ProjectSession.h"
#include "ui/widgets/LayoutOverlay.h"

#include <QFileInfo>
#include <QTimer>

namespace cleave::ui {

LoadCard::LoadCard(ProjectSession *session, QWidget *over, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_card(new LayoutOverlay(over))
    , m_delay(new QTimer(this))
{
    m_card->setObjectName(QStringLiteral("loadCard"));
    m_delay->setSingleShot(true);
    m_delay->setInterval(150);
    connect(m_delay, &QTimer::timeout, this, [this] {
        if (!m_session->isLoading())
            return;
        m_card->reposition();
        m_card->show();
        m_card->raise();
    });
    connect(m_session, &ProjectSession::loadStarted, this, [this](const QString &path) {
        m_card->begin(tr("Opening %1…").arg(QFileInfo(path).fileName()));
        m_delay->start();
    });
    connect(m_session, &ProjectSession::loadPhase, this, [this](const QString &text, int percent) {
        m_card->setText(text);
        m_card->setProgress(percent);
        if (m_card->isVisible())
            m_card->reposition();
    });
    connect(m_session, &ProjectSession::loadEnded, this, [this] {
        m_delay->stop();
        m_card->hide();
    });
    connect(m_card, &LayoutOverlay::cancelClicked, m_session, &ProjectSession::cancelLoad);
}

} // namespace cleave::ui
