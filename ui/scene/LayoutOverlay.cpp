// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/scene/LayoutOverlay.h"

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
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 12);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addLayout(buttons);
    setFixedWidth(320);
    m_cancel->setObjectName(QStringLiteral("layoutOverlayButton"));
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_cancelled)
            emit restartClicked();
        else
            emit cancelClicked();
    });
    hide();
}

void LayoutOverlay::begin(const QString &text)
{
    m_cancelled = false;
    m_label->setText(text);
    m_bar->setValue(0);
    m_bar->show();
    m_cancel->setText(tr("Cancel"));
}

void LayoutOverlay::showCancelled(const QString &text)
{
    m_cancelled = true;
    m_label->setText(text);
    m_bar->hide();
    m_cancel->setText(tr("Lay Out Again"));
}

void LayoutOverlay::setProgress(int percent)
{
    m_bar->setValue(percent);
}

void LayoutOverlay::reposition()
{
    adjustSize();
    if (parentWidget() != nullptr)
        move((parentWidget()->width() - width()) / 2, (parentWidget()->height() - height()) / 3);
}

} // namespace cleave::ui
