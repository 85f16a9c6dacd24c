// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/ModelSummary.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace cleave::ui {

/// A table of operator call counts: operator, calls, and share of all calls. SortRole gives the
/// raw value of each cell (name, count, fraction) so a proxy sorts numbers as numbers.
class OpHistogramModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { OpColumn, CallsColumn, ShareColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< The cell's raw value: QString, qulonglong or double.
    };

    explicit OpHistogramModel(QObject *parent = nullptr);

    /// Shows `ops` (rows in the histogram's name order).
    void setHistogram(const cleave::OpHistogram &ops);
    /// Total calls over all rows.
    [[nodiscard]] qulonglong totalCalls() const { return m_total; }

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString op;
        qulonglong calls = 0;
    };
    std::vector<Row> m_rows;
    qulonglong m_total = 0;
};

} // namespace cleave::ui
