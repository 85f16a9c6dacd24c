// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"

#include <QAbstractTableModel>

#include <vector>

namespace cleave::ui {

class Document;

/// The validation findings of the document's plan, errors first: severity (with its icon),
/// code and message. A row knows the nodes it is about, so the editor can focus them.
class DiagnosticListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { SeverityColumn, CodeColumn, MessageColumn, ColumnCount };
    enum Role {
        SeverityRole = Qt::UserRole + 1, ///< int(cleave::Severity).
        CodeRole, ///< The stable code, e.g. "partition.implied_edge".
    };

    /// Follows `document` (may be nullptr: an empty model).
    explicit DiagnosticListModel(Document *document, QObject *parent = nullptr);

    /// The diagnostic shown in `row`, or nullptr.
    [[nodiscard]] const cleave::Diagnostic *diagnosticAt(int row) const;
    /// The first row with `code`, or -1.
    [[nodiscard]] int findCode(const QString &code) const;
    /// True for the row standing for all the implied-edge findings of a cut (shown instead of
    /// them while collapsed, above them while expanded).
    [[nodiscard]] bool isGroupRow(int row) const { return row >= 0 && row == m_groupRow; }
    /// True while the implied-edge group shows its members.
    [[nodiscard]] bool isGroupExpanded() const { return m_groupExpanded; }
    /// Shows or hides the members of the implied-edge group.
    void setGroupExpanded(bool expanded);

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    void reload();

    Document *m_document;
    std::vector<cleave::Diagnostic> m_rows; // errors, then warnings, then infos
    int m_groupRow = -1;
    bool m_groupExpanded = false;
};

} // namespace cleave::ui
