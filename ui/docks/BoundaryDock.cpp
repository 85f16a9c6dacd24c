// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/BoundaryDock.h"

#include "ui/docks/DockTableView.h"
#include "ui/models/BoundaryTensorModel.h"

#include <QItemSelectionModel>
#include <QSortFilterProxyModel>

namespace cleave::ui {

BoundaryDock::BoundaryDock(Document *document, QWidget *parent)
    : QDockWidget(tr("Boundary tensors"), parent)
    , m_model(new BoundaryTensorModel(document, this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_view(new QTableView)
{
    setObjectName(QStringLiteral("boundaryDock"));
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(BoundaryTensorModel::SortRole);
    m_view->setObjectName(QStringLiteral("boundaryView"));
    m_view->setModel(m_sorted);
    setUpDockTable(m_view);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSortingEnabled(true);
    // Plan order until the user clicks a header.
    m_view->sortByColumn(-1, Qt::AscendingOrder);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(BoundaryTensorModel::RouteColumn,
                                                     QHeaderView::Stretch);
    m_view->horizontalHeader()->setStretchLastSection(false);
    setWidget(m_view);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && !m_quiet)
                    emit edgeSelected(m_model->edgeAt(m_sorted->mapToSource(current).row()));
            });
}

bool BoundaryDock::selectTensor(cleave::TensorRef tensor)
{
    for (int row = 0; row < m_model->rowCount(); ++row) {
        if (m_model->edgeAt(row).tensor != tensor)
            continue;
        m_quiet = true;
        m_view->selectionModel()->setCurrentIndex(m_sorted->mapFromSource(m_model->index(row, 0)),
                                                  QItemSelectionModel::ClearAndSelect
                                                      | QItemSelectionModel::Rows);
        m_quiet = false;
        return true;
    }
    return false;
}

int BoundaryDock::currentRow() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? m_sorted->mapToSource(current).row() : -1;
}

} // namespace cleave::ui
