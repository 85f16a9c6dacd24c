// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/partition/DiagnosticFix.h"

#include <QDockWidget>

#include <optional>
#include <vector>

class QMenu;
class QPushButton;
class QTableView;

namespace cleave::ui {

class DiagnosticListModel;
class Document;

/// The "Diagnostics" dock: the plan's validation findings (severity icon, code, message).
/// Double-clicking (or Enter on) a row asks the canvas to focus the nodes it names. A finding
/// that offers a fix (core DiagnosticFix: `mark_params` marks a global input as a parameter)
/// shows it on the Fix button above the table and in the row's context menu; applying it is one
/// undo step, and the document re-validates.
class DiagnosticsDock : public QDockWidget
{
    Q_OBJECT

public:
    explicit DiagnosticsDock(Document *document, QWidget *parent = nullptr);

    [[nodiscard]] DiagnosticListModel *model() const { return m_model; }
    [[nodiscard]] QTableView *view() const { return m_view; }
    [[nodiscard]] QPushButton *fixButton() const { return m_fixButton; }
    /// The fix the finding in `row` offers, or nullopt.
    [[nodiscard]] std::optional<cleave::DiagnosticFix> fixAt(int row) const;
    /// Applies the fix of the finding in `row` (as the Fix button does); false when it has none.
    bool applyFix(int row);
    /// The context menu of `row` (focus, and the fix when there is one); the caller owns it.
    [[nodiscard]] QMenu *contextMenu(int row);

signals:
    void focusRequested(const std::vector<cleave::NodeId> &nodes);

private:
    void updateFixButton();

    Document *m_document;
    DiagnosticListModel *m_model;
    QTableView *m_view;
    QPushButton *m_fixButton;
};

} // namespace cleave::ui
