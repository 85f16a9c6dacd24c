// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/BalanceDock.h"

#include "core/analysis/Cost.h"
#include "core/auto/AutoPlan.h"
#include "core/graph/FunctionView.h"
#include "ui/document/Document.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>

namespace cleave::ui {

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
    for (const StageBar &b : m_bars) {
        maxTime = std::max({ maxTime, b.computeUs + b.transferInUs, b.transferOutUs });
        maxMemory = std::max(maxMemory, b.memoryBytes);
    }
    const int margin = 6;
    const int labelHeight = fontMetrics().height() + 2;
    const int plotHeight = height() - 2 * margin - labelHeight;
    const double slot
        = static_cast<double>(width() - 2 * margin) / static_cast<double>(m_bars.size());
    auto scaled = [&](double v, double max) {
        return max > 0 ? static_cast<int>(v / max * plotHeight) : 0;
    };
    const int base = margin + plotHeight;
    for (std::size_t i = 0; i < m_bars.size(); ++i) {
        const StageBar &b = m_bars[i];
        const int x = margin + static_cast<int>(slot * static_cast<double>(i));
        const int w = std::max(4, static_cast<int>(slot / 4));
        const int compute = scaled(b.computeUs, maxTime);
        const int in = scaled(b.transferInUs, maxTime);
        p.fillRect(x + 2, base - compute, w, compute, QColor(70, 130, 180));
        p.fillRect(x + 2, base - compute - in, w, in, QColor(240, 160, 60));
        if (b.bottleneck) {
            p.setPen(QPen(QColor(200, 30, 30), 2));
            p.drawRect(x + 1, base - compute - in - 1, w + 2, compute + in + 2);
        }
        const int out = scaled(b.transferOutUs, maxTime);
        p.fillRect(x + 4 + w, base - out, w / 2, out, QColor(160, 160, 160));
        const int mem = scaled(static_cast<double>(b.memoryBytes), static_cast<double>(maxMemory));
        const bool over = m_memoryLimit && b.memoryBytes > *m_memoryLimit;
        p.fillRect(x + 6 + w + w / 2, base - mem, w, mem,
                   over ? QColor(200, 30, 30) : QColor(110, 170, 110));
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
{
    setObjectName(QStringLiteral("balanceDock"));
    m_summary->setObjectName(QStringLiteral("balanceSummary"));
    m_summary->setWordWrap(true);
    auto *body = new QWidget;
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_chart, 1);
    setWidget(body);
    // A new graph comes with a new plan (planChanged follows graphChanged): once is enough.
    // Costing a plan walks every node (a quarter of a second at 100k nodes): the chart is
    // brought up to date when the dock shows, not on every edit made while it is hidden.
    connect(document, &Document::planChanged, this, &BalanceDock::recompute);
    // The cost graph of a replaced model is let go with it (it is rebuilt for the next plan).
    connect(document, &Document::graphChanged, this, [this] {
        m_cost.reset();
        m_costKey = {};
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
    for (std::size_t k = 0; k < stages.size(); ++k) {
        StageBar b;
        b.name = QString::fromStdString(plan->partitions()[k].name);
        b.computeUs = stages[k].computeUs;
        b.transferInUs = stages[k].transferInUs;
        b.transferOutUs = stages[k].transferOutUs;
        b.memoryBytes = stages[k].memoryBytes();
        b.bottleneck = k == worst;
        bars.push_back(std::move(b));
    }
    m_chart->setBars(std::move(bars), m_settings.memoryLimit);
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
