// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/DiagnosticsDock.h"

#include "ui/commands/ChangeEngineSettings.h"
#include "ui/docks/DockTableView.h"
#include "ui/document/Document.h"
#include "ui/models/DiagnosticListModel.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace cleave::ui {

DiagnosticsDock::DiagnosticsDock(Document *document, QWidget *parent)
    : QDockWidget(tr("Diagnostics"), parent)
    , m_document(document)
    , m_model(new DiagnosticListModel(document, this))
    , m_view(new QTableView)
    , m_fixButton(new QPushButton)
{
    setObjectName(QStringLiteral("diagnosticsDock"));
    m_view->setObjectName(QStringLiteral("diagnosticsView"));
    m_view->setModel(m_model);
    setUpDockTable(m_view);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->horizontalHeader()->setSectionResizeMode(DiagnosticListModel::SeverityColumn,
                                                     QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(DiagnosticListModel::CodeColumn,
                                                     QHeaderView::ResizeToContents);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);

    m_fixButton->setObjectName(QStringLiteral("diagnosticFixButton"));
    m_fixButton->setToolTip(tr("Apply the fix the selected finding offers (undoable)"));
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addStretch(1);
    bar->addWidget(m_fixButton);
    auto *body = new QWidget;
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    setWidget(body);
    updateFixButton();

    // Double-click and Enter on the current row both activate it (one signal, so a toggle
    // happens once).
    // On the implied-edge group row they expand or collapse the group instead.
    auto focus = [this](const QModelIndex &index) {
        if (m_model->isGroupRow(index.row())) {
            m_model->setGroupExpanded(!m_model->isGroupExpanded());
            return;
        }
        const cleave::Diagnostic *d = m_model->diagnosticAt(index.row());
        if (d && !d->nodes.empty())
            emit focusRequested(d->nodes);
    };
    connect(m_view, &QAbstractItemView::activated, this, focus);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &DiagnosticsDock::updateFixButton);
    connect(m_model, &QAbstractItemModel::modelReset, this, &DiagnosticsDock::updateFixButton);
    connect(m_fixButton, &QPushButton::clicked, this,
            [this] { applyFix(m_view->currentIndex().row()); });
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid())
            return;
        m_view->setCurrentIndex(index);
        QMenu *menu = contextMenu(index.row());
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_view->viewport()->mapToGlobal(pos));
    });
}

std::optional<cleave::DiagnosticFix> DiagnosticsDock::fixAt(int row) const
{
    const cleave::Diagnostic *d = m_model->diagnosticAt(row);
    if (!d || !m_document || !m_document->graph())
        return std::nullopt;
    return cleave::diagnosticFix(*m_document->graph(), *d);
}

bool DiagnosticsDock::applyFix(int row)
{
    const std::optional<cleave::DiagnosticFix> fix = fixAt(row);
    if (!fix || fix->action != "mark_params")
        return false;
    EngineSettings settings = m_document->settings();
    for (const std::string &name : fix->arguments) {
        if (!settings.isParam(name))
            settings.params.push_back(name);
    }
    m_document->undoStack()->push(new ChangeEngineSettings(m_document, std::move(settings),
                                                           QString::fromStdString(fix->label)));
    return true;
}

QMenu *DiagnosticsDock::contextMenu(int row)
{
    auto *menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("diagnosticMenu"));
    const cleave::Diagnostic *d = m_model->diagnosticAt(row);
    QAction *focus = menu->addAction(tr("Show on Canvas"));
    focus->setEnabled(d && !d->nodes.empty());
    connect(focus, &QAction::triggered, this, [this, row] {
        if (const cleave::Diagnostic *found = m_model->diagnosticAt(row))
            emit focusRequested(found->nodes);
    });
    if (const std::optional<cleave::DiagnosticFix> fix = fixAt(row)) {
        QAction *apply = menu->addAction(QString::fromStdString(fix->label));
        apply->setObjectName(QStringLiteral("applyFixAction"));
        connect(apply, &QAction::triggered, this, [this, row] { applyFix(row); });
        menu->setDefaultAction(apply);
    }
    return menu;
}

void DiagnosticsDock::updateFixButton()
{
    const std::optional<cleave::DiagnosticFix> fix = fixAt(m_view->currentIndex().row());
    m_fixButton->setText(fix ? tr("Fix: %1").arg(QString::fromStdString(fix->label)) : tr("Fix"));
    m_fixButton->setEnabled(fix.has_value());
}

} // namespace cleave::ui
