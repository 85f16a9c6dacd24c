// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/partition/PartitionPlan.h"

#include <QAbstractTableModel>

namespace cleave::ui {

class Document;

/// The tensors crossing the document plan's cuts, one row per tensor (never per use):
/// tensor, producing partition → consuming partitions, the input name(s) it takes there,
/// shape, dtype and bytes per inference. SortRole gives raw values so a proxy sorts bytes as
/// numbers.
class BoundaryTensorModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        TensorColumn,
        RouteColumn,
        InputNameColumn,
        ShapeColumn,
        DTypeColumn,
        BytesColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< QString, or qlonglong for bytes (-1 when unknown).
        ProducerRole, ///< The producing node's NodeId value (uint).
        ConsumerRole, ///< The first consuming node's NodeId value (uint).
    };

    /// Follows `document` (may be nullptr: an empty model).
    explicit BoundaryTensorModel(Document *document, QObject *parent = nullptr);

    /// The edge drawn for a row: the tensor and its first consumer.
    [[nodiscard]] cleave::EdgeRef edgeAt(int row) const;
    /// The producing and first consuming partition of a row (a cut to remove).
    [[nodiscard]] std::pair<cleave::PartitionId, cleave::PartitionId> partitionsAt(int row) const;

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    void reload();

    Document *m_document;
    int m_rows = 0;
};

} // namespace cleave::ui
