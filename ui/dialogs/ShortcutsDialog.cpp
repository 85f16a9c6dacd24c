// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/dialogs/ShortcutsDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace cleave::ui {

namespace {

QString plainText(const QAction *action)
{
    QString text = action->text();
    text.remove(QLatin1Char('&'));
    if (text.endsWith(QStringLiteral("…")))
        text.chop(1);
    return text;
}

QString keysText(const QAction *action)
{
    QStringList keys;
    for (const QKeySequence &k : action->shortcuts())
        keys << k.toString(QKeySequence::NativeText);
    return keys.join(QStringLiteral(", "));
}

void addMenu(QTreeWidget *list, const QMenu *menu, const QString &path, QSet<const QAction *> &seen)
{
    for (QAction *action : menu->actions()) {
        if (action->isSeparator())
            continue;
        if (QMenu *sub = action->menu()) {
            addMenu(list, sub, path + QStringLiteral(" ▸ ") + plainText(action), seen);
            continue;
        }
        if (action->shortcuts().isEmpty() || seen.contains(action))
            continue;
        seen.insert(action);
        auto *row = new QTreeWidgetItem(list, { plainText(action), keysText(action), path });
        row->setToolTip(0, action->toolTip());
    }
}

} // namespace

ShortcutsDialog::ShortcutsDialog(const QMenuBar *menuBar, const QList<QAction *> &extra,
                                 QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    setObjectName(QStringLiteral("shortcutsDialog"));
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("shortcutSearch"));
    m_search->setPlaceholderText(tr("Search actions or keys…"));
    m_search->setClearButtonEnabled(true);
    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("shortcutList"));
    m_list->setHeaderLabels({ tr("Action"), tr("Shortcut"), tr("Menu") });
    m_list->setRootIsDecorated(false);
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionMode(QAbstractItemView::NoSelection);

    QSet<const QAction *> seen;
    for (QAction *top : menuBar->actions()) {
        if (QMenu *menu = top->menu())
            addMenu(m_list, menu, plainText(top), seen);
    }
    for (QAction *action : extra) {
        if (action->shortcuts().isEmpty() || seen.contains(action))
            continue;
        seen.insert(action);
        new QTreeWidgetItem(m_list, { plainText(action), keysText(action), tr("Canvas") });
    }
    // Mouse and touch gestures of the canvas (CanvasView): no action carries them.
    const std::pair<QString, QString> gestures[] = {
        { tr("Zoom in / out"), tr("Ctrl+Wheel, pinch, + / -") },
        { tr("Pan"), tr("Wheel, middle-button drag, Space+drag") },
        { tr("Cut (cut tool)"), tr("Drag a line across the edges to cut") },
        { tr("Select several (select tool)"), tr("Drag a rectangle; Shift+ or Ctrl+click adds") },
        { tr("Expand a fused block"), tr("Double-click it (Fused Blocks view)") },
        { tr("Actions on the selection"), tr("Right-click") },
    };
    for (const auto &[what, how] : gestures) {
        auto *row = new QTreeWidgetItem(m_list, { what, how, tr("Canvas gesture") });
        row->setData(0, Qt::UserRole, QStringLiteral("gesture"));
    }
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_search, &QLineEdit::textChanged, this, &ShortcutsDialog::applyFilter);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_search);
    layout->addWidget(m_list);
    layout->addWidget(buttons);
    resize(560, 520);
    m_search->setFocus();
}

int ShortcutsDialog::visibleRowCount() const
{
    int count = 0;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        count += m_list->topLevelItem(i)->isHidden() ? 0 : 1;
    return count;
}

void ShortcutsDialog::applyFilter(const QString &text)
{
    const QString needle = text.trimmed();
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        QTreeWidgetItem *row = m_list->topLevelItem(i);
        const bool match = needle.isEmpty() || row->text(0).contains(needle, Qt::CaseInsensitive)
            || row->text(1).contains(needle, Qt::CaseInsensitive)
            || row->text(2).contains(needle, Qt::CaseInsensitive);
        row->setHidden(!match);
    }
}

} // namespace cleave::ui
