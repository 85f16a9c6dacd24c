// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/models/PartitionListModel.h"

#include "ui/commands/RenamePartition.h"
#include "ui/commands/SetPartitionTarget.h"
#include "ui/document/Document.h"
#include "ui/support/OpCategory.h"

#include <QLocale>

namespace cleave::ui {

PartitionListModel::PartitionListModel(Document *document, QObject *parent)
    : QAbstractTableModel(parent)
    , m_document(document)
{
    if (m_document) {
        connect(m_document, &Document::planReset, this, &PartitionListModel::reload);
        connect(m_document, &Document::planEdited, this, &PartitionListModel::onPlanEdited);
        reload();
    }
}

void PartitionListModel::onPlanEdited(const cleave::PlanEdit &edit)
{
    if (!Document::changesRecordsOnly(edit) || edit.partitionsAfter.size() != m_costs.size()) {
        reload();
        return;
    }
    for (cleave::PartitionId id : Document::changedRecords(edit)) {
        const int row = rowOf(id);
        if (row >= 0)
            emit dataChanged(index(row, NameColumn), index(row, TargetColumn));
    }
}

void PartitionListModel::reload()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    std::vector<cleave::PartitionCost> costs = plan
        ? cleave::partitionCosts(*plan, m_document->boundary(),
                                 m_document->settings().latency.get())
        : std::vector<cleave::PartitionCost> {};
    // The same partitions in the same order (a rename, a target): keep the views' selection.
    const bool sameRows = costs.size() == m_costs.size()
        && std::equal(costs.begin(), costs.end(), m_costs.begin(),
                      [](const cleave::PartitionCost &a, const cleave::PartitionCost &b) {
                          return a.partition == b.partition;
                      });
    if (sameRows) {
        m_costs = std::move(costs);
        if (!m_costs.empty())
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_costs = std::move(costs);
    endResetModel();
}

cleave::PartitionId PartitionListModel::partitionAt(int row) const
{
    return row >= 0 && row < rowCount() ? m_costs[static_cast<std::size_t>(row)].partition
                                        : cleave::PartitionId {};
}

int PartitionListModel::rowOf(cleave::PartitionId id) const
{
    for (std::size_t i = 0; i < m_costs.size(); ++i) {
        if (m_costs[i].partition == id)
            return static_cast<int>(i);
    }
    return -1;
}

int PartitionListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_costs.size());
}

int PartitionListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PartitionListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cleave::PartitionCost &cost = m_costs[static_cast<std::size_t>(index.row())];
    const cleave::Partition *partition
        = m_document->plan() ? m_document->plan()->partition(cost.partition) : nullptr;
    if (!partition)
        return {};
    if (role == PartitionIdRole)
        return QVariant::fromValue(cost.partition.value);
    if (role == Qt::DecorationRole && index.column() == NameColumn)
        return partitionColour(partition->colour);
    if (role == Qt::TextAlignmentRole && index.column() >= OpsColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == NameColumn)
        return tr("%1 (%2): %3 ops, %4 in, %5 out")
            .arg(QString::fromStdString(partition->name), QString::fromStdString(partition->target))
            .arg(cost.ops)
            .arg(QString::fromStdString(cleave::humanBytes(cost.boundaryBytesIn)),
                 QString::fromStdString(cleave::humanBytes(cost.boundaryBytesOut)));

    if (role == Qt::ToolTipRole && index.column() == FlopsColumn && cost.opsWithoutShapes)
        return tr("At least %1: %n operator(s) without a static shape are not counted", nullptr,
                  static_cast<int>(cost.opsWithoutShapes))
            .arg(QString::fromStdString(cleave::humanFlops(cost.flops)));

    if (role == Qt::ToolTipRole && index.column() == LatencyColumn && cost.latencyMissing)
        return tr("%n operator(s) have no entry in the latency table and count as 0", nullptr,
                  static_cast<int>(cost.latencyMissing));

    const bool display = role == Qt::DisplayRole || role == Qt::EditRole;
    if (!display && role != SortRole)
        return {};
    auto number = [&](std::int64_t value, std::string (*format)(std::int64_t)) -> QVariant {
        if (role == SortRole)
            return QVariant::fromValue(static_cast<qlonglong>(value));
        return QString::fromStdString(format(value));
    };
    switch (index.column()) {
    case NameColumn:
        return QString::fromStdString(partition->name);
    case TargetColumn:
        return QString::fromStdString(partition->target);
    case OpsColumn:
        return role == SortRole ? QVariant::fromValue(static_cast<qlonglong>(cost.ops))
                                : QVariant(QLocale().toString(static_cast<qlonglong>(cost.ops)));
    case FlopsColumn:
        if (role != SortRole && cost.opsWithoutShapes)
            return QString::fromStdString(cleave::flopsText(cost.flops, cost.opsWithoutShapes));
        return number(cost.flops, &cleave::humanFlops);
    case ParamsColumn:
        return number(cost.paramBytes, &cleave::humanBytes);
    case BytesInColumn:
        return number(cost.boundaryBytesIn, &cleave::humanBytes);
    case BytesOutColumn:
        return number(cost.boundaryBytesOut, &cleave::humanBytes);
    case LatencyColumn:
        if (!cost.latencyUs)
            return {};
        if (role == SortRole)
            return *cost.latencyUs;
        return QStringLiteral("%1 µs%2").arg(QLocale().toString(*cost.latencyUs, 'f', 1),
                                             cost.latencyMissing ? QStringLiteral("*") : QString());
    default:
        return {};
    }
}

bool PartitionListModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)
        || (index.column() != NameColumn && index.column() != TargetColumn))
        return false;
    const std::string text = value.toString().trimmed().toStdString();
    const cleave::PartitionId id = partitionAt(index.row());
    const cleave::Partition *partition = m_document->plan()->partition(id);
    if (text.empty() || !partition)
        return false;
    if (index.column() == NameColumn) {
        if (text == partition->name)
            return false;
        m_document->undoStack()->push(new RenamePartition(m_document, id, text));
    } else {
        if (text == partition->target)
            return false;
        m_document->undoStack()->push(new SetPartitionTarget(m_document, id, text));
    }
    // The command refreshed the row (planEdited); a refused rename leaves the old value.
    const cleave::Partition *after = m_document->plan()->partition(id);
    return after && (index.column() == NameColumn ? after->name : after->target) == text;
}

Qt::ItemFlags PartitionListModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && (index.column() == NameColumn || index.column() == TargetColumn))
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant PartitionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Partition");
    case TargetColumn:
        return tr("Target");
    case OpsColumn:
        return tr("Ops");
    case FlopsColumn:
        return tr("FLOPs");
    case ParamsColumn:
        return tr("Params");
    case BytesInColumn:
        return tr("In");
    case BytesOutColumn:
        return tr("Out");
    case LatencyColumn:
        return tr("Latency");
    default:
        return {};
    }
}

} // namespace cleave::ui
