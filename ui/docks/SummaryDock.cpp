// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/SummaryDock.h"

#include "ui/models/OpHistogramModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace cleave::ui {

namespace {

QString tensorList(const std::vector<cleave::TensorSummary> &tensors)
{
    QStringList lines;
    for (const cleave::TensorSummary &t : tensors)
        lines.append(QString::fromStdString(t.name + ": " + t.type.toRelay()));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

SummaryDock::SummaryDock(QWidget *parent)
    : QDockWidget(tr("Summary"), parent)
    , m_facts(new QLabel)
    , m_histogram(new OpHistogramModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_view(new QTableView)
{
    setObjectName(QStringLiteral("summaryDock"));
    m_facts->setObjectName(QStringLiteral("summaryFacts"));
    m_facts->setTextFormat(Qt::PlainText);
    // Wrapped: a long line (a model's name, the missing-shapes note) must not widen the dock
    // area, and with it the window, past the screen.
    m_facts->setWordWrap(true);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_sorted->setSourceModel(m_histogram);
    m_sorted->setSortRole(OpHistogramModel::SortRole);
    m_view->setObjectName(QStringLiteral("opHistogram"));
    m_view->setModel(m_sorted);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(OpHistogramModel::CallsColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(OpHistogramModel::OpColumn,
                                                     QHeaderView::Stretch);
    m_view->horizontalHeader()->setSectionResizeMode(OpHistogramModel::CallsColumn,
                                                     QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(OpHistogramModel::ShareColumn,
                                                     QHeaderView::ResizeToContents);

    auto *content = new QWidget;
    auto *layout = new QVBoxLayout(content);
    layout->addWidget(m_facts);
    layout->addWidget(m_view, 1);
    setWidget(content);
    setSummary({});
}

void SummaryDock::setSummary(const cleave::ModelSummary &summary, std::size_t fusedBlocks)
{
    m_histogram->setHistogram(summary.ops);
    if (summary.format.empty()) {
        m_facts->setText(tr("No model open."));
        m_facts->setToolTip({});
        return;
    }
    const QLocale locale;
    QString constants = tr("%1 tensors").arg(locale.toString(qulonglong(summary.constants)));
    if (summary.constants > 0) {
        constants += QStringLiteral(", ")
            + (summary.constantBytesKnown ? QString() : tr("at least "))
            + locale.formattedDataSize(summary.constantBytes);
    }
    QString blocks = locale.toString(qulonglong(fusedBlocks));
    if (!summary.blocks.empty())
        blocks += tr(" (%1 already fused in the model)")
                      .arg(locale.toString(qulonglong(summary.blocks.size())));
    m_facts->setText(tr("Format: %1\nFunctions: %2\nOp calls: %3 (%4 kinds)\n"
                        "Inputs: %5 · Outputs: %6\nFused blocks: %7\nConstants: %8")
                         .arg(QString::fromStdString(summary.format))
                         .arg(summary.functions.size())
                         .arg(locale.toString(qulonglong(summary.opCalls)))
                         .arg(summary.ops.size())
                         .arg(summary.inputs.size())
                         .arg(summary.outputs.size())
                         .arg(blocks)
                         .arg(constants));
    if (const std::string note = summary.shapesNote(); !note.empty())
        m_facts->setText(m_facts->text() + tr("\nShapes: %1").arg(QString::fromStdString(note)));
    m_facts->setToolTip(tr("Inputs:\n%1\n\nOutputs:\n%2")
                            .arg(tensorList(summary.inputs), tensorList(summary.outputs)));
}

} // namespace cleave::ui
