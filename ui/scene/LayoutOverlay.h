// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QFrame>

class QLabel;
class QProgressBar;
class QPushButton;

namespace cleave::ui {

/// The card shown over the canvas while a layout runs: what is being laid out, a progress bar
/// and a Cancel button. After a cancel it stays, saying so, with a button to lay out again.
class LayoutOverlay : public QFrame
{
    Q_OBJECT
public:
    explicit LayoutOverlay(QWidget *parent);

    /// The running state: `text`, an empty bar and Cancel.
    void begin(const QString &text);
    /// The cancelled state: `text` and a "Lay Out Again" button (restartClicked()).
    void showCancelled(const QString &text);
    [[nodiscard]] bool isCancelledState() const { return m_cancelled; }
    void setProgress(int percent);
    /// Keeps the card centred in its parent.
    void reposition();

signals:
    void cancelClicked();
    void restartClicked();

private:
    QLabel *m_label;
    QProgressBar *m_bar;
    QPushButton *m_cancel;
    bool m_cancelled = false;
};

} // namespace cleave::ui
