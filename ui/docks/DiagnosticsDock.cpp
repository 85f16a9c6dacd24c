// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/DiagnosticsDock.h"

#include "ui/docks/DockTableView.h"
#include "ui/models/DiagnosticListModel.h"

namespace cleave::ui {

DiagnosticsDock::DiagnosticsDock(Document *document, QWidget *parent)
    : QDockWidget(tr("Diagnostics"), parent)
    , m_model(new DiagnosticListModel(document, this))
    , m_view(new QTableView)
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
    setWidget(m_view);

    // Double-click, and Enter on the current row (activation); focusing twice is harmless.
    auto focus = [this](const QModelIndex &index) {
        const cleave::Diagnostic *d = m_model->diagnosticAt(index.row());
        if (d && !d->nodes.empty())
            emit focusRequested(d->nodes);
    };
    connect(m_view, &QAbstractItemView::doubleClicked, this, focus);
    connect(m_view, &QAbstractItemView::activated, this, focus);
}

} // namespace cleave::ui
