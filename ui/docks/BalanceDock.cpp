// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/BalanceDock.h"

#include "core/analysis/Cost.h"
#include "core/auto/AutoPlan.h"
#include "core/graph/FunctionView.h"
#include "ui/document/Document.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace cleave::ui {

namespace {

/// The run report's line: where it ran, the measured bottleneck, the throughput against the
/// whole model, and how many of the plan's stages it names.
QString runText(const cleave::PipelineRunReport &r, std::size_t matched, std::size_t stages)
{
    const cleave::StageRun *worst = nullptr;
    for (const cleave::StageRun &s : r.stages) {
        if (!worst || s.measuredUs > worst->measuredUs)
            worst = &s;
    }
    QString text
        = QCoreApplication::translate("BalanceDock",
                                      "Measured (%1, %2%3): bottleneck %4 "
                                      "µs (%5)")
              .arg(QString::fromStdString(r.runtime), QString::fromStdString(r.mode),
                   r.host.empty() ? QString()
                                  : QStringLiteral(", %1").arg(QString::fromStdString(r.host)),
                   QString::number(worst ? worst->measuredUs : 0.0, 'f', 1),
                   worst ? QString::fromStdString(worst->name) : QString());
    if (r.wholeThroughputPerSecond > 0)
        text
            += QCoreApplication::translate("BalanceDock", " · %1 inferences/s, %2× the whole model")
                   .arg(
                       QString::number(r.throughputPerSecond, 'f', 1),
                       QString::number(r.throughputPerSecond / r.wholeThroughputPerSecond, 'f', 2));
    if (matched != stages || r.stages.size() != stages)
        text += QCoreApplication::translate("BalanceDock",
                                            " · the report names %1 of the plan's %2 stages "
                                            "(it ran another plan)")
                    .arg(matched)
                    .arg(stages);
    return text;
}

} // namespace

BalanceChart::BalanceChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("balanceChart"));
    setMinimumHeight(120);
}

void BalanceChart::setBars(std::vector<StageBar> bars, std::optional<std::int64_t> memoryLimit)
{
    m_bars = std::move(bars);
    m_memoryLimit = memoryLimit;
    update();
}

void BalanceChart::paintEvent(QPaintEvent * /*event*/)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (m_bars.empty())
        return;
    double maxTime = 0;
    std::int64_t maxMemory = m_memoryLimit.value_or(0);
    bool measured = false;
    for (const StageBar &b : m_bars) {
        maxTime = std::max(
            { maxTime, b.computeUs + b.transferInUs, b.transferOutUs, b.measuredUs.value_or(0.0) });
        maxMemory = std::max(maxMemory, b.memoryBytes);
        measured = measured || b.measuredUs.has_value();
    }
    const int margin = 6;
    const int labelHeight = fontMetrics().height() + 2;
    // The legend: one swatch and word per colour, on the top line.
    const QColor computeColor(70, 130, 180);
    const QColor inColor(240, 160, 60);
    const QColor measuredColor(40, 40, 40);
    const QColor outColor(160, 160, 160);
    const QColor memoryColor(110, 170, 110);
    std::vector<std::pair<QColor, QString>> legend
        = { { computeColor, tr("compute") }, { inColor, tr("transfer in") } };
    if (measured)
        legend.emplace_back(measuredColor, tr("measured"));
    legend.emplace_back(outColor, tr("out"));
    legend.emplace_back(memoryColor, tr("memory"));
    int lx = margin;
    const int swatch = fontMetrics().ascent() - 2;
    p.setPen(palette().text().color());
    for (const auto &[color, word] : legend) {
        p.fillRect(lx, margin + 2, swatch, swatch, color);
        lx += swatch + 3;
        p.drawText(QPoint(lx, margin + fontMetrics().ascent()), word);
        lx += fontMetrics().horizontalAdvance(word) + 10;
    }
    const int top = margin + labelHeight;
    const int plotHeight = height() - top - margin - labelHeight;
    const double slot
        = static_cast<double>(width() - 2 * margin) / static_cast<double>(m_bars.size());
    auto scaled = [&](double v, double max) {
        return max > 0 ? static_cast<int>(v / max * plotHeight) : 0;
    };
    const int base = top + plotHeight;
    for (std::size_t i = 0; i < m_bars.size(); ++i) {
        const StageBar &b = m_bars[i];
        const int x = margin + static_cast<int>(slot * static_cast<double>(i));
        const int w = std::max(4, static_cast<int>(slot / 4));
        const int compute = scaled(b.computeUs, maxTime);
        const int in = scaled(b.transferInUs, maxTime);
        p.fillRect(x + 2, base - compute, w, compute, computeColor);
        p.fillRect(x + 2, base - compute - in, w, in, inColor);
        if (b.bottleneck) {
            p.setPen(QPen(QColor(200, 30, 30), 2));
            p.drawRect(x + 1, base - compute - in - 1, w + 2, compute + in + 2);
        }
        int next = x + 4 + w;
        if (measured) {
            const int m = scaled(b.measuredUs.value_or(0.0), maxTime);
            p.fillRect(next, base - m, w / 2, m, measuredColor);
            next += w / 2 + 2;
        }
        const int out = scaled(b.transferOutUs, maxTime);
        p.fillRect(next, base - out, w / 2, out, outColor);
        const int mem = scaled(static_cast<double>(b.memoryBytes), static_cast<double>(maxMemory));
        const bool over = m_memoryLimit && b.memoryBytes > *m_memoryLimit;
        p.fillRect(next + w / 2 + 2, base - mem, w, mem, over ? QColor(200, 30, 30) : memoryColor);
        p.setPen(palette().text().color());
        p.drawText(QRect(x, base + 2, static_cast<int>(slot), labelHeight), Qt::AlignLeft, b.name);
    }
    if (m_memoryLimit && maxMemory > 0) {
        const int y
            = base - scaled(static_cast<double>(*m_memoryLimit), static_cast<double>(maxMemory));
        p.setPen(QPen(QColor(200, 30, 30), 1, Qt::DashLine));
        p.drawLine(margin, y, width() - margin, y);
    }
}

BalanceDock::BalanceDock(Document *document, QWidget *parent)
    : QDockWidget(tr("Balance"), parent)
    , m_document(document)
    , m_chart(new BalanceChart)
    , m_summary(new QLabel)
    , m_runSummary(new QLabel)
    , m_clearReport(new QPushButton(tr("Clear")))
{
    setObjectName(QStringLiteral("balanceDock"));
    m_summary->setObjectName(QStringLiteral("balanceSummary"));
    m_summary->setWordWrap(true);
    m_runSummary->setObjectName(QStringLiteral("balanceRunSummary"));
    m_runSummary->setWordWrap(true);
    m_runSummary->setTextFormat(Qt::PlainText);
    auto *load = new QPushButton(tr("Load Run Report…"));
    load->setObjectName(QStringLiteral("loadRunReportButton"));
    load->setToolTip(tr("Put each stage's measured time beside the predicted one: the JSON that "
                        "an export's run_pipeline.py --bench N --json FILE writes"));
    m_clearReport->setObjectName(QStringLiteral("clearRunReportButton"));
    m_clearReport->setEnabled(false);
    auto *row = new QHBoxLayout;
    row->addWidget(load);
    row->addWidget(m_clearReport);
    row->addStretch(1);
    auto *body = new QWidget;
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_runSummary);
    layout->addLayout(row);
    layout->addWidget(m_chart, 1);
    setWidget(body);
    m_runSummary->hide();
    connect(load, &QPushButton::clicked, this, [this] {
        const QString folder = m_document->filePath().isEmpty()
            ? QString()
            : QFileInfo(m_document->filePath()).absolutePath();
        const QString path = QFileDialog::getOpenFileName(this, tr("Load Run Report"), folder,
                                                          tr("JSON files (*.json)"));
        if (!path.isEmpty())
            loadRunReport(path);
    });
    connect(m_clearReport, &QPushButton::clicked, this, [this] {
        m_report.reset();
        m_runSummary->hide();
        m_clearReport->setEnabled(false);
        recompute();
    });
    // A new graph comes with a new plan (planChanged follows graphChanged): once is enough.
    // Costing a plan walks every node (a quarter of a second at 100k nodes): the chart is
    // brought up to date when the dock shows, not on every edit made while it is hidden.
    connect(document, &Document::planChanged, this, &BalanceDock::recompute);
    // The cost graph of a replaced model is let go with it (it is rebuilt for the next plan).
    connect(document, &Document::graphChanged, this, [this] {
        m_cost.reset();
        m_costKey = {};
        m_report.reset();
        m_runSummary->hide();
        m_clearReport->setEnabled(false);
    });
    // (A dock behind another's tab stays isVisible(): its tab being current is what shows it.)
    connect(this, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        m_shown = visible;
        if (visible && m_stale)
            refresh();
    });
    recompute();
}

BalanceChart *BalanceDock::chart()
{
    if (m_stale)
        refresh();
    return m_chart;
}

bool BalanceDock::loadRunReport(const QString &path)
{
    std::string error;
    auto report = cleave::readPipelineRunReport(path.toStdString(), error);
    m_runSummary->show();
    if (!report) {
        m_runSummary->setText(tr("Not a run report: %1").arg(QString::fromStdString(error)));
        return false;
    }
    m_report = std::move(report);
    m_clearReport->setEnabled(true);
    recompute();
    return true;
}

QString BalanceDock::runReportText() const
{
    return m_report ? m_runSummary->text() : QString();
}

void BalanceDock::setSettings(BalanceSettings settings)
{
    m_settings = std::move(settings);
    recompute();
}

void BalanceDock::recompute()
{
    m_stale = true;
    if (m_shown)
        refresh();
}

void BalanceDock::refresh()
{
    m_stale = false;
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan || plan->partitionCount() == 0) {
        m_chart->setBars({}, m_settings.memoryLimit);
        m_summary->clear();
        return;
    }
    cleave::DeviceSpec device;
    device.gflops = m_settings.gflops;
    // The auto-partition run's table, else the document's (Model ▸ Cost & Targets).
    device.latency
        = m_settings.latency ? m_settings.latency.get() : m_document->settings().latency.get();
    const cleave::CostGraph &cost = costGraph(*plan, device);
    const std::vector<cleave::StageCost> stages
        = cost.evaluate(cleave::stagesOfPlan(*plan, cost), plan->partitionCount());
    std::size_t worst = 0;
    for (std::size_t k = 0; k < stages.size(); ++k) {
        if (stages[k].timeUs() > stages[worst].timeUs())
            worst = k;
    }
    std::vector<StageBar> bars;
    std::size_t matched = 0;
    for (std::size_t k = 0; k < stages.size(); ++k) {
        StageBar b;
        b.name = QString::fromStdString(plan->partitions()[k].name);
        b.computeUs = stages[k].computeUs;
        b.transferInUs = stages[k].transferInUs;
        b.transferOutUs = stages[k].transferOutUs;
        b.memoryBytes = stages[k].memoryBytes();
        b.bottleneck = k == worst;
        if (m_report) {
            for (const cleave::StageRun &run : m_report->stages) {
                if (run.name == plan->partitions()[k].name) {
                    b.measuredUs = run.measuredUs;
                    ++matched;
                }
            }
        }
        bars.push_back(std::move(b));
    }
    m_chart->setBars(std::move(bars), m_settings.memoryLimit);
    if (m_report)
        m_runSummary->setText(runText(*m_report, matched, stages.size()));
    const double bottleneck = cleave::bottleneckUs(stages);
    m_summary->setText(
        tr("Bottleneck %1 (%2) · %3 inferences/s · %4 moved")
            .arg(QString::number(bottleneck, 'f', 1) + QStringLiteral(" µs"),
                 QString::fromStdString(plan->partitions()[worst].name),
                 QString::number(bottleneck > 0 ? 1e6 / bottleneck : 0.0, 'f', 1),
                 QString::fromStdString(cleave::humanBytes(cleave::totalTransferBytes(stages)))));
}

const cleave::CostGraph &BalanceDock::costGraph(const cleave::PartitionPlan &plan,
                                                const cleave::DeviceSpec &device)
{
    CostKey key;
    key.view = plan.sharedView();
    key.latency = m_settings.latency ? m_settings.latency : m_document->settings().latency;
    key.gflops = device.gflops;
    key.link = m_settings.link;
    const bool same = m_cost && key.view == m_costKey.view && key.latency == m_costKey.latency
        && key.gflops == m_costKey.gflops
        && key.link.bytesPerSecond == m_costKey.link.bytesPerSecond
        && key.link.latencyUs == m_costKey.link.latencyUs;
    if (!same) {
        m_cost.reset(); // the old graph goes before the new one is built
        m_cost.emplace(cleave::CostGraph::build(plan.view(), { device }, m_settings.link));
        m_costKey = std::move(key);
    }
    return *m_cost;
}

} // namespace cleave::ui
