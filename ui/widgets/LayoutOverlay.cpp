// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/widgets/LayoutOverlay.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace cleave::ui {

LayoutOverlay::LayoutOverlay(QWidget *parent)
    : QFrame(parent)
    , m_label(new QLabel(this))
    , m_bar(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_retry(new QPushButton(tr("Retry"), this))
{
    setObjectName(QStringLiteral("layoutOverlay"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setStyleSheet(QStringLiteral("#layoutOverlay { background: white; border: 1px solid #c9cfd6;"
                                 " border-radius: 8px; }"));
    m_bar->setRange(0, 100);
    m_bar->setTextVisible(false);
    m_bar->setFixedHeight(8);
    m_label->setWordWrap(true);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_retry);
    m_cancel->setObjectName(QStringLiteral("layoutCancel"));
    m_retry->setObjectName(QStringLiteral("layoutRetry"));
    m_retry->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 12);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addLayout(buttons);
    setFixedWidth(320);
    connect(m_cancel, &QPushButton::clicked, this, &LayoutOverlay::cancelClicked);
    connect(m_retry, &QPushButton::clicked, this, &LayoutOverlay::retryClicked);
    hide();
}

void LayoutOverlay::begin(const QString &text)
{
    m_label->setText(text);
    m_bar->setValue(0);
    m_bar->show();
    m_cancel->show();
    m_retry->hide();
}

void LayoutOverlay::showStopped(const QString &text)
{
    m_label->setText(text);
    m_bar->hide();
    m_cancel->hide();
    m_retry->show();
}

void LayoutOverlay::setProgress(int percent)
{
    m_bar->setValue(percent);
}

void LayoutOverlay::setText(const QString &text)
{
    m_label->setText(text);
}

void LayoutOverlay::reposition()
{
    adjustSize();
    if (parentWidget() != nullptr)
        move((parentWidget()->width() - width()) / 2, (parentWidget()->height() - height()) / 3);
}

} // namespace cleave::ui
