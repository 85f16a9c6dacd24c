// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QToolBar>

#include <vector>

class QLabel;
class QLineEdit;

namespace cleave::ui {

class Document;

/// The search bar (Ctrl+F): finds nodes by id, op name or tensor name (see findNodes). Enter
/// goes to the next hit, Shift+Enter to the previous one, Escape closes the bar; every hit is
/// announced with hitActivated() so the canvas centres and selects it.
class SearchBar : public QToolBar
{
    Q_OBJECT

public:
    explicit SearchBar(Document *document, QWidget *parent = nullptr);

    /// Shows the bar and puts the cursor in its field, text selected.
    void activate();
    [[nodiscard]] QLineEdit *field() const { return m_field; }
    [[nodiscard]] const std::vector<cleave::NodeId> &hits() const { return m_hits; }
    /// The index of the hit shown last, or -1.
    [[nodiscard]] int currentHit() const { return m_current; }

    /// Moves to the next (or previous) hit, wrapping around.
    void step(int direction);

signals:
    void hitActivated(cleave::NodeId node);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void search();
    void updateCount();

    Document *m_document;
    QLineEdit *m_field;
    QLabel *m_count;
    std::vector<cleave::NodeId> m_hits;
    int m_current = -1;
};

} // namespace cleave::ui
