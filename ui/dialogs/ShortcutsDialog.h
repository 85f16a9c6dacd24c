// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QDialog>

class QLineEdit;
class QMenuBar;
class QTreeWidget;

namespace cleave::ui {

/// Help ▸ Keyboard Shortcuts: every shortcut of the window's menus, read from the real actions
/// (so it never disagrees with them), grouped by menu, with a search field that filters by
/// action name, menu or key.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    /// Lists the actions with shortcuts reachable from `menuBar` (sub-menus included), plus
    /// `extra` actions of the window that live outside the menus (canvas keys).
    ShortcutsDialog(const QMenuBar *menuBar, const QList<QAction *> &extra,
                    QWidget *parent = nullptr);

    /// The filter field and the list (for tests).
    [[nodiscard]] QLineEdit *searchField() const { return m_search; }
    [[nodiscard]] QTreeWidget *list() const { return m_list; }
    /// The rows shown under the current filter.
    [[nodiscard]] int visibleRowCount() const;

private:
    void applyFilter(const QString &text);

    QLineEdit *m_search = nullptr;
    QTreeWidget *m_list = nullptr;
};

} // namespace cleave::ui
