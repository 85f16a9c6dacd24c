// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/ModelSummary.h"

#include <QDockWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace cleave::ui {

class OpHistogramModel;

/// The "Summary" dock: format, counts of inputs, outputs, blocks and constants, and a sortable
/// table of how often each operator is called.
class SummaryDock : public QDockWidget
{
    Q_OBJECT

public:
    explicit SummaryDock(QWidget *parent = nullptr);

    /// Shows `summary`; an empty summary (no model) clears the dock. `fusedBlocks` is the number
    /// of FuseOps blocks of the main function (what the Fused Blocks level shows); blocks the
    /// model already holds as fused functions are counted beside it.
    void setSummary(const cleave::ModelSummary &summary, std::size_t fusedBlocks = 0);

    [[nodiscard]] OpHistogramModel *histogramModel() const { return m_histogram; }
    [[nodiscard]] QTableView *histogramView() const { return m_view; }

private:
    QLabel *m_facts = nullptr;
    OpHistogramModel *m_histogram = nullptr;
    QSortFilterProxyModel *m_sorted = nullptr;
    QTableView *m_view = nullptr;
};

} // namespace cleave::ui
