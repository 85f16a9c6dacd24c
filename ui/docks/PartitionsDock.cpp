// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/PartitionsDock.h"

#include "ui/docks/DockTableView.h"
#include "ui/document/Document.h"
#include "ui/models/PartitionListModel.h"

#include <QItemSelectionModel>

namespace cleave::ui {

PartitionsDock::PartitionsDock(Document *document, QWidget *parent)
    : QDockWidget(tr("Partitions"), parent)
    , m_model(new PartitionListModel(document, this))
    , m_view(new QTableView)
{
    setObjectName(QStringLiteral("partitionsDock"));
    m_view->setObjectName(QStringLiteral("partitionsView"));
    m_view->setModel(m_model);
    setUpDockTable(m_view);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                            | QAbstractItemView::SelectedClicked);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(PartitionListModel::NameColumn,
                                                     QHeaderView::Stretch);
    m_view->horizontalHeader()->setStretchLastSection(false);
    setWidget(m_view);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                emit partitionSelected(m_model->partitionAt(current.row()));
            });
    // The latency column exists only with a latency table (Model ▸ Cost & Targets).
    auto showLatency = [this, document] {
        m_view->setColumnHidden(PartitionListModel::LatencyColumn,
                                !document || !document->settings().latency);
    };
    if (document)
        connect(document, &Document::settingsChanged, this, showLatency);
    showLatency();
    // A reset (a cut, a merge) drops the current row: the highlight goes with it.
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { emit partitionSelected({}); });
}

cleave::PartitionId PartitionsDock::currentPartition() const
{
    return m_model->partitionAt(m_view->currentIndex().row());
}

} // namespace cleave::ui
