// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/models/OpHistogramModel.h"

namespace cleave::ui {

OpHistogramModel::OpHistogramModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void OpHistogramModel::setHistogram(const cleave::OpHistogram &ops)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(ops.size());
    m_total = 0;
    for (const auto &[op, calls] : ops) {
        m_rows.push_back({ QString::fromStdString(op), calls });
        m_total += calls;
    }
    endResetModel();
}

int OpHistogramModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int OpHistogramModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpHistogramModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[index.row()];
    const double share
        = m_total ? static_cast<double>(row.calls) / static_cast<double>(m_total) : 0.0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case OpColumn:
            return row.op;
        case CallsColumn:
            return row.calls;
        case ShareColumn:
            return QStringLiteral("%1 %").arg(share * 100.0, 0, 'f', 1);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case OpColumn:
            return row.op;
        case CallsColumn:
            return row.calls;
        case ShareColumn:
            return share;
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != OpColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

QVariant OpHistogramModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case OpColumn:
        return tr("Operator");
    case CallsColumn:
        return tr("Calls");
    case ShareColumn:
        return tr("Share");
    default:
        return {};
    }
}

} // namespace cleave::ui
