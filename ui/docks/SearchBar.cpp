// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/SearchBar.h"

#include "ui/document/Document.h"
#include "ui/document/NodeSearch.h"

#include <QAction>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>

namespace cleave::ui {

SearchBar::SearchBar(Document *document, QWidget *parent)
    : QToolBar(tr("Search"), parent)
    , m_document(document)
    , m_field(new QLineEdit)
    , m_count(new QLabel)
{
    setObjectName(QStringLiteral("searchBar"));
    setMovable(false);
    setFloatable(false);
    m_field->setObjectName(QStringLiteral("searchField"));
    m_field->setPlaceholderText(tr("Find node by id, op or tensor name…"));
    m_field->setClearButtonEnabled(true);
    m_field->addAction(QIcon(QStringLiteral(":/cleave/icons/search.svg")),
                       QLineEdit::LeadingPosition);
    m_field->setMaximumWidth(420);
    m_field->installEventFilter(this);
    m_count->setObjectName(QStringLiteral("searchCount"));
    m_count->setMinimumWidth(90);
    m_count->setContentsMargins(8, 0, 8, 0);

    addWidget(m_field);
    addWidget(m_count);
    addAction(tr("Previous"), this, [this] {
        step(-1);
    })->setToolTip(tr("Previous hit (Shift+Enter)"));
    addAction(tr("Next"), this, [this] { step(1); })->setToolTip(tr("Next hit (Enter)"));
    addAction(tr("Close"), this, &QWidget::hide)->setToolTip(tr("Close the search bar (Esc)"));

    connect(m_field, &QLineEdit::textChanged, this, &SearchBar::search);
    // The hits point into the plan's function: a new model or edit invalidates them.
    connect(m_document, &Document::graphChanged, this, &SearchBar::search);
    hide();
}

void SearchBar::activate()
{
    show();
    m_field->setFocus(Qt::ShortcutFocusReason);
    m_field->selectAll();
}

void SearchBar::search()
{
    m_hits = findNodes(*m_document, m_field->text());
    m_current = -1;
    updateCount();
}

void SearchBar::step(int direction)
{
    if (m_hits.empty()) {
        updateCount();
        return;
    }
    const int n = static_cast<int>(m_hits.size());
    m_current
        = m_current < 0 ? (direction >= 0 ? 0 : n - 1) : ((m_current + direction) % n + n) % n;
    updateCount();
    emit hitActivated(m_hits[static_cast<std::size_t>(m_current)]);
}

void SearchBar::updateCount()
{
    if (m_field->text().trimmed().isEmpty())
        m_count->clear();
    else if (m_hits.empty())
        m_count->setText(tr("No match"));
    else if (m_current < 0)
        m_count->setText(
            (m_hits.size() == 1 ? tr("1 match") : tr("%1 matches").arg(m_hits.size())));
    else
        m_count->setText(tr("%1 of %2").arg(m_current + 1).arg(m_hits.size()));
}

bool SearchBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_field && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            step(key->modifiers() & Qt::ShiftModifier ? -1 : 1);
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            hide();
            return true;
        }
    }
    return QToolBar::eventFilter(watched, event);
}

} // namespace cleave::ui
