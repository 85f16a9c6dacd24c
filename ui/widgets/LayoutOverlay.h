// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QFrame>

class QLabel;
class QProgressBar;
class QPushButton;

namespace cleave::ui {

/// The card shown over the canvas while a layout runs: what is being laid out, a progress bar
/// and a Cancel button. After a cancel it stays, saying so, with a Retry button in place.
class LayoutOverlay : public QFrame
{
    Q_OBJECT
public:
    explicit LayoutOverlay(QWidget *parent);

    /// Running: the text, the progress bar and Cancel.
    void begin(const QString &text);
    /// Stopped (cancelled): the text and Retry.
    void showStopped(const QString &text);
    void setProgress(int percent);
    /// Replaces the text (a new phase of the same work).
    void setText(const QString &text);
    /// Keeps the card centred in its parent.
    void reposition();

signals:
    void cancelClicked();
    void retryClicked();

private:
    QLabel *m_label;
    QProgressBar *m_bar;
    QPushButton *m_cancel;
    QPushButton *m_retry;
};

} // namespace cleave::ui
