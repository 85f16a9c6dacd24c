// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/models/DiagnosticListModel.h"

#include "core/validation/CutCost.h"
#include "ui/document/Document.h"

#include <QIcon>

#include <algorithm>

namespace cleave::ui {

DiagnosticListModel::DiagnosticListModel(Document *document, QObject *parent)
    : QAbstractTableModel(parent)
    , m_document(document)
{
    if (m_document) {
        connect(m_document, &Document::planChanged, this, &DiagnosticListModel::reload);
        reload();
    }
}

void DiagnosticListModel::reload()
{
    beginResetModel();
    m_rows = m_document->diagnostics();
    std::stable_sort(m_rows.begin(), m_rows.end(),
                     [](const cleave::Diagnostic &a, const cleave::Diagnostic &b) {
                         return static_cast<int>(a.severity) > static_cast<int>(b.severity);
                     });
    // Many implied edges of one cut read as one row ("846 edges also cut (implied) ..."),
    // expandable into the edges.
    m_groupRow = -1;
    const cleave::PartitionPlan *plan = m_document->plan();
    const auto group = plan
        ? cleave::impliedEdgeGroup(m_rows, cleave::cutCost(*plan, m_document->boundary()))
        : std::nullopt;
    if (group) {
        const auto isMember
            = [](const cleave::Diagnostic &d) { return d.code == "partition.implied_edge"; };
        const auto first = std::find_if(m_rows.begin(), m_rows.end(), isMember);
        m_groupRow = static_cast<int>(first - m_rows.begin());
        if (!m_groupExpanded)
            std::erase_if(m_rows, isMember);
        m_rows.insert(m_rows.begin() + m_groupRow, *group);
    }
    endResetModel();
}

void DiagnosticListModel::setGroupExpanded(bool expanded)
{
    if (m_groupExpanded == expanded)
        return;
    m_groupExpanded = expanded;
    reload();
}

const cleave::Diagnostic *DiagnosticListModel::diagnosticAt(int row) const
{
    return row >= 0 && row < rowCount() ? &m_rows[static_cast<std::size_t>(row)] : nullptr;
}

int DiagnosticListModel::findCode(const QString &code) const
{
    const std::string wanted = code.toStdString();
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].code == wanted)
            return static_cast<int>(i);
    }
    return -1;
}

int DiagnosticListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DiagnosticListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cleave::Diagnostic &d = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case SeverityRole:
        return static_cast<int>(d.severity);
    case CodeRole:
        return QString::fromStdString(d.code);
    case Qt::DecorationRole:
        if (index.column() != SeverityColumn)
            return {};
        switch (d.severity) {
        case cleave::Severity::Error:
            return QIcon(QStringLiteral(":/cleave/icons/error.svg"));
        case cleave::Severity::Warning:
            return QIcon(QStringLiteral(":/cleave/icons/warning.svg"));
        case cleave::Severity::Info:
            return QIcon(QStringLiteral(":/cleave/icons/info.svg"));
        }
        return {};
    case Qt::ToolTipRole:
        return QString::fromStdString(d.toString());
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return QString::fromLatin1(cleave::severityName(d.severity));
        case CodeColumn:
            return QString::fromStdString(d.code);
        case MessageColumn:
            if (index.row() == m_groupRow)
                return (m_groupExpanded ? QStringLiteral("▾ ") : QStringLiteral("▸ "))
                    + QString::fromStdString(d.message);
            return QString::fromStdString(d.message);
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant DiagnosticListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case CodeColumn:
        return tr("Code");
    case MessageColumn:
        return tr("Message");
    default:
        return {};
    }
}

} // namespace cleave::ui
