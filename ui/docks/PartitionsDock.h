// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QDockWidget>

class QTableView;

namespace cleave::ui {

class Document;
class PartitionListModel;

/// The "Partitions" dock: the plan's partitions with colour, editable name and target, op
/// count, FLOPs, parameters and boundary bytes. Selecting a row asks the canvas to highlight it.
class PartitionsDock : public QDockWidget
{
    Q_OBJECT

public:
    explicit PartitionsDock(Document *document, QWidget *parent = nullptr);

    [[nodiscard]] PartitionListModel *model() const { return m_model; }
    [[nodiscard]] QTableView *view() const { return m_view; }
    /// The partition of the current row, or an invalid id.
    [[nodiscard]] cleave::PartitionId currentPartition() const;

signals:
    /// The current row changed (an invalid id when no row is current).
    void partitionSelected(cleave::PartitionId partition);

private:
    PartitionListModel *m_model;
    QTableView *m_view;
};

} // namespace cleave::ui
