// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"

#include <QDockWidget>

class QSortFilterProxyModel;
class QTableView;

namespace cleave::ui {

class BoundaryTensorModel;
class Document;

/// The "Boundary tensors" dock: a sortable table of the tensors crossing cuts. Selecting a row
/// asks the canvas to centre and highlight the edge.
class BoundaryDock : public QDockWidget
{
    Q_OBJECT

public:
    explicit BoundaryDock(Document *document, QWidget *parent = nullptr);

    [[nodiscard]] BoundaryTensorModel *model() const { return m_model; }
    [[nodiscard]] QSortFilterProxyModel *sortedModel() const { return m_sorted; }
    [[nodiscard]] QTableView *view() const { return m_view; }
    /// The source row of the current (sorted) row, or -1.
    [[nodiscard]] int currentRow() const;
    /// Makes the row of the boundary tensor `tensor` current and selected, without asking the
    /// canvas to centre it (edgeSelected is not emitted: the user is looking at it); false when
    /// no row holds it.
    bool selectTensor(cleave::TensorRef tensor);

signals:
    void edgeSelected(cleave::EdgeRef edge);

private:
    BoundaryTensorModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QTableView *m_view;
    bool m_quiet = false; ///< selectTensor() is moving the current row.
};

} // namespace cleave::ui
