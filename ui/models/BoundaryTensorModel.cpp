// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/models/BoundaryTensorModel.h"

#include "core/analysis/Cost.h"
#include "core/partition/PlanReport.h"
#include "ui/document/Document.h"

#include <QStringList>

namespace cleave::ui {

namespace {

QString shapeText(const cleave::Type &type)
{
    if (!type.isTensor())
        return QString::fromStdString(type.toRelay());
    QStringList dims;
    for (const cleave::Dim &d : type.shape)
        dims.append(d.isKnown() ? QString::number(d.value)
                                : (d.symbol.empty() ? QStringLiteral("?")
                                                    : QString::fromStdString(d.symbol)));
    return dims.isEmpty() ? QStringLiteral("scalar") : dims.join(QStringLiteral("×"));
}

} // namespace

BoundaryTensorModel::BoundaryTensorModel(Document *document, QObject *parent)
    : QAbstractTableModel(parent)
    , m_document(document)
{
    if (m_document) {
        connect(m_document, &Document::planChanged, this, &BoundaryTensorModel::reload);
        reload();
    }
}

void BoundaryTensorModel::reload()
{
    beginResetModel();
    m_rows = static_cast<int>(m_document->boundary().tensors.size());
    endResetModel();
}

cleave::EdgeRef BoundaryTensorModel::edgeAt(int row) const
{
    if (row < 0 || row >= m_rows)
        return {};
    const cleave::BoundaryTensor &t = m_document->boundary().tensors[static_cast<std::size_t>(row)];
    cleave::EdgeRef edge { t.tensor, {} };
    if (!t.consumers.empty() && !t.consumers.front().nodes.empty())
        edge.consumer = t.consumers.front().nodes.front();
    return edge;
}

std::pair<cleave::PartitionId, cleave::PartitionId> BoundaryTensorModel::partitionsAt(int row) const
{
    if (row < 0 || row >= m_rows)
        return {};
    const cleave::BoundaryTensor &t = m_document->boundary().tensors[static_cast<std::size_t>(row)];
    return { t.producerPartition,
             t.consumers.empty() ? cleave::PartitionId {} : t.consumers.front().partition };
}

int BoundaryTensorModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int BoundaryTensorModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BoundaryTensorModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cleave::PartitionPlan *plan = m_document->plan();
    const cleave::BoundaryTensor &t
        = m_document->boundary().tensors[static_cast<std::size_t>(index.row())];
    if (role == ProducerRole)
        return QVariant::fromValue(t.tensor.node.value);
    if (role == ConsumerRole)
        return QVariant::fromValue(edgeAt(index.row()).consumer.value);
    if (role == Qt::TextAlignmentRole && index.column() == BytesColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};

    auto partitionName = [&](cleave::PartitionId id) {
        const cleave::Partition *p = plan->partition(id);
        return p ? QString::fromStdString(p->name) : QStringLiteral("?");
    };
    switch (index.column()) {
    case TensorColumn:
        return QString::fromStdString(cleave::boundaryTensorName(plan->graph(), t));
    case RouteColumn: {
        QStringList to;
        for (const cleave::BoundaryConsumer &c : t.consumers)
            to.append(partitionName(c.partition));
        return QStringLiteral("%1 → %2").arg(partitionName(t.producerPartition),
                                             to.join(QStringLiteral(", ")));
    }
    case InputNameColumn: {
        // Formats that name their tensors (ONNX) keep the name in the exported modules and the
        // connection config, so show that one rather than the engine's data_n_<k>.
        const cleave::Node &producer = plan->graph().node(t.tensor.node);
        if (t.tensor.output < producer.outputNames().size()
            && !producer.outputNames()[t.tensor.output].empty())
            return QString::fromStdString(producer.outputNames()[t.tensor.output]);
        QStringList names;
        for (const cleave::BoundaryConsumer &c : t.consumers) {
            const QString name = QString::fromStdString(c.inputName);
            if (!names.contains(name))
                names.append(name);
        }
        return names.join(QStringLiteral(", "));
    }
    case ShapeColumn:
        return shapeText(t.type);
    case DTypeColumn:
        return QString::fromStdString(t.type.isTensor() ? t.type.dtype : std::string());
    case BytesColumn:
        if (role == SortRole)
            return QVariant::fromValue(static_cast<qlonglong>(t.bytes.value_or(-1)));
        return t.bytes ? QString::fromStdString(cleave::humanBytes(*t.bytes)) : tr("dynamic");
    default:
        return {};
    }
}

QVariant BoundaryTensorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TensorColumn:
        return tr("Tensor");
    case RouteColumn:
        return tr("From → To");
    case InputNameColumn:
        return tr("Input name");
    case ShapeColumn:
        return tr("Shape");
    case DTypeColumn:
        return tr("DType");
    case BytesColumn:
        return tr("Bytes");
    default:
        return {};
    }
}

} // namespace cleave::ui
