// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/partition/PartitionCost.h"
#include "core/partition/PartitionPlan.h"

#include <QAbstractTableModel>

#include <vector>

namespace cleave::ui {

class Document;

/// The partitions of the document's plan, one row each in plan order: name (with the colour
/// swatch as decoration), target, op count, FLOPs, parameter bytes, boundary bytes in and out,
/// and the latency from the document's latency table (empty without one).
/// Name and target are editable; an edit becomes an undo command on the document's stack.
class PartitionListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        TargetColumn,
        OpsColumn,
        FlopsColumn,
        ParamsColumn,
        BytesInColumn,
        BytesOutColumn,
        LatencyColumn,
        ColumnCount
    };
    enum Role {
        PartitionIdRole = Qt::UserRole + 1, ///< The row's PartitionId value (uint).
        SortRole, ///< The raw value: QString, qlonglong or (latency) double.
    };

    /// Follows `document` (may be nullptr: an empty model).
    explicit PartitionListModel(Document *document, QObject *parent = nullptr);

    /// The partition shown in `row`, or an invalid id.
    [[nodiscard]] cleave::PartitionId partitionAt(int row) const;
    /// The row of a partition, or -1.
    [[nodiscard]] int rowOf(cleave::PartitionId id) const;

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index,
                                int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex &index) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    void reload();
    /// A rename or a new target refreshes that row's name and target cells only; any other edit
    /// reloads the costs.
    void onPlanEdited(const cleave::PlanEdit &edit);

    Document *m_document;
    std::vector<cleave::PartitionCost> m_costs; // one per row, in plan order
};

} // namespace cleave::ui
