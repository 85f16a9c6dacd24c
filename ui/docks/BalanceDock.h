// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/LatencyTable.h"
#include "core/auto/CostModel.h"
#include "core/formats/PipelineRunReport.h"
#include "core/partition/PartitionPlan.h"

#include <QDockWidget>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QPushButton;

namespace cleave::ui {

class Document;

/// The cost model the Balance dock (and the last auto-partition run) uses.
struct BalanceSettings
{
    /// Null: the document's latency table, else FLOPs / rate.
    std::shared_ptr<const cleave::LatencyTable> latency;
    double gflops = cleave::defaultFlopsRateGflops;
    cleave::LinkSpec link;
    std::optional<std::int64_t> memoryLimit;
};

/// One bar group of the chart: a stage's time split into compute and transfer in, what it
/// sends, and its memory against the limit.
struct StageBar
{
    QString name;
    double computeUs = 0;
    double transferInUs = 0;
    double transferOutUs = 0;
    std::int64_t memoryBytes = 0;
    bool bottleneck = false;
    /// The stage's time measured by a pipeline run (a loaded run report), when it has one.
    std::optional<double> measuredUs;
};

/// The bar chart (QPainter): per stage a stacked time bar (compute, transfer in), the measured
/// time beside it when a run report is loaded, a thin bar for the transfer out, and a memory bar
/// against the limit; the bottleneck is outlined. A legend names the colours.
class BalanceChart : public QWidget
{
    Q_OBJECT

public:
    explicit BalanceChart(QWidget *parent = nullptr);
    void setBars(std::vector<StageBar> bars, std::optional<std::int64_t> memoryLimit);
    [[nodiscard]] const std::vector<StageBar> &bars() const { return m_bars; }
    [[nodiscard]] QSize sizeHint() const override { return { 360, 200 }; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::vector<StageBar> m_bars;
    std::optional<std::int64_t> m_memoryLimit;
};

/// The Balance dock: the cost of every stage of the current plan, recomputed on every plan
/// edit (a cut, a drag, an undo), so a hand-moved boundary shows its effect at once. A run
/// report of the exported pipeline (run_pipeline.py --bench N --json FILE) puts each stage's
/// measured time beside the predicted one, matched by stage name.
class BalanceDock : public QDockWidget
{
    Q_OBJECT

public:
    BalanceDock(Document *document, QWidget *parent = nullptr);

    void setSettings(BalanceSettings settings);
    [[nodiscard]] const BalanceSettings &settings() const { return m_settings; }
    /// The chart, brought up to date with the plan first (it is recomputed when the dock
    /// shows: edits made while it is hidden only mark it stale).
    [[nodiscard]] BalanceChart *chart();
    /// Loads a run report (Load Run Report… asks for the file); false with the reason shown in
    /// the dock when it is not one. The report is let go when another model opens.
    bool loadRunReport(const QString &path);
    /// The loaded report's summary line, or empty.
    [[nodiscard]] QString runReportText() const;

private:
    /// Recomputes the chart now when the dock shows, else marks it stale.
    void recompute();
    void refresh();
    /// The cost graph of the plan's function under the current settings: built once per
    /// function view, latency table, rate and link (a walk over every node, a quarter of a
    /// second at 100k nodes), then reused by every plan edit, which only re-evaluates stages.
    const cleave::CostGraph &costGraph(const cleave::PartitionPlan &plan,
                                       const cleave::DeviceSpec &device);

    /// What the cached cost graph was built from; the shared pointers keep their objects
    /// alive, so an address seen again is the same view / table, never a new one.
    struct CostKey
    {
        std::shared_ptr<const cleave::FunctionView> view;
        std::shared_ptr<const cleave::LatencyTable> latency;
        double gflops = 0;
        cleave::LinkSpec link;
    };

    Document *m_document;
    CostKey m_costKey;
    std::optional<cleave::CostGraph> m_cost;
    BalanceSettings m_settings;
    BalanceChart *m_chart;
    QLabel *m_summary;
    QLabel *m_runSummary;
    QPushButton *m_clearReport;
    std::optional<cleave::PipelineRunReport> m_report;
    bool m_stale = false;
    bool m_shown = false; ///< On screen (its tab current), as visibilityChanged() said last.
};

} // namespace cleave::ui
