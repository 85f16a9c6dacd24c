// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/dialogs/AutoPartitionDialog.h"

#include "core/auto/AutoPlan.h"
#include "core/auto/DeviceFile.h"
#include "core/auto/StageSearch.h"
#include "core/auto/TargetRegions.h"
#include "core/graph/FunctionView.h"
#include "ui/document/Document.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QUndoStack>
#include <QVBoxLayout>

namespace cleave::ui {

namespace {

QLineEdit *lineEdit(const char *name, const QString &placeholder, QWidget *parent)
{
    auto *e = new QLineEdit(parent);
    e->setObjectName(QString::fromLatin1(name));
    e->setPlaceholderText(placeholder);
    return e;
}

/// `edit` with a Browse… button beside it that picks a JSON file, starting in `folder`.
QWidget *withBrowse(QLineEdit *edit, const QString &title, const QString &folder, QWidget *parent)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto *browse = new QPushButton(QObject::tr("Browse…"), row);
    browse->setObjectName(edit->objectName() + QStringLiteral("Browse"));
    browse->setAutoDefault(false); // Enter runs the search, it does not open a chooser
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, edit, [edit, title, folder] {
        const QString start = edit->text().trimmed().isEmpty()
            ? folder
            : QFileInfo(edit->text().trimmed()).absolutePath();
        const QString file = QFileDialog::getOpenFileName(
            edit->window(), title, start, QObject::tr("JSON files (*.json);;All files (*)"));
        if (!file.isEmpty())
            edit->setText(QDir::toNativeSeparators(file));
    });
    return row;
}

} // namespace

AutoPartitionDialog::AutoPartitionDialog(Document *document, const BalanceSettings &current,
                                         QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_stages(new QSpinBox(this))
    , m_devices(lineEdit("devicesEdit", tr("devices.json (overrides stages and link)"), this))
    , m_objective(new QComboBox(this))
    , m_level(new QComboBox(this))
    , m_latency(lineEdit("latencyEdit", tr("latency.json (else FLOPs / rate)"), this))
    , m_flopsRate(new QDoubleSpinBox(this))
    , m_bandwidth(lineEdit("bandwidthEdit", QString(), this))
    , m_linkLatency(lineEdit("linkLatencyEdit", QString(), this))
    , m_memory(lineEdit("memoryEdit", tr("no limit (e.g. 16GiB)"), this))
    , m_targets(lineEdit("targetsEdit", tr("regions: dnnl=dnnl_ops.json,llvm"), this))
    , m_minRegion(new QSpinBox(this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_run(new QPushButton(tr("&Run"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
{
    setObjectName(QStringLiteral("autoPartitionDialog"));
    setWindowTitle(tr("Auto-partition"));
    m_stages->setObjectName(QStringLiteral("stagesSpin"));
    m_stages->setRange(1, 1024);
    m_stages->setValue(2);
    m_objective->setObjectName(QStringLiteral("objectiveCombo"));
    m_objective->addItem(tr("Throughput (slowest stage)"), QStringLiteral("throughput"));
    m_objective->addItem(tr("Latency (sum of stages)"), QStringLiteral("latency"));
    m_level->setObjectName(QStringLiteral("levelCombo"));
    m_level->addItem(tr("Ops"), QStringLiteral("ops"));
    m_level->addItem(tr("Fused blocks (never split)"), QStringLiteral("blocks"));
    m_level->setCurrentIndex(1); // whole kernels by default: a stage never splits a kernel
    m_flopsRate->setObjectName(QStringLiteral("flopsRateSpin"));
    m_flopsRate->setRange(0.001, 1e9);
    m_flopsRate->setDecimals(3);
    m_flopsRate->setSuffix(tr(" GFLOP/s"));
    m_flopsRate->setValue(current.gflops);
    m_bandwidth->setText(QString::number(current.link.bytesPerSecond / 1e9));
    m_linkLatency->setText(QString::number(current.link.latencyUs));
    if (current.memoryLimit)
        m_memory->setText(QString::number(*current.memoryLimit));
    m_minRegion->setObjectName(QStringLiteral("minRegionSpin"));
    m_minRegion->setRange(1, 100000);
    m_progress->setObjectName(QStringLiteral("autoProgress"));
    m_progress->setRange(0, 100);
    m_progress->setValue(0);
    m_status->setObjectName(QStringLiteral("autoStatus"));
    m_status->setWordWrap(true);
    m_run->setObjectName(QStringLiteral("runButton"));
    m_run->setDefault(true);
    m_cancel->setObjectName(QStringLiteral("cancelButton"));

    // File choosers start in the model's folder, where its side files usually are.
    const QString folder = m_document->filePath().isEmpty()
        ? QString()
        : QFileInfo(m_document->filePath()).absolutePath();
    auto *form = new QFormLayout;
    form->addRow(tr("&Stages:"), m_stages);
    form->addRow(tr("&Devices:"), withBrowse(m_devices, tr("Device File"), folder, this));
    form->addRow(tr("&Objective:"), m_objective);
    form->addRow(tr("&Unit:"), m_level);
    form->addRow(tr("&Latency table:"), withBrowse(m_latency, tr("Latency Table"), folder, this));
    form->addRow(tr("&FLOP rate:"), m_flopsRate);
    form->addRow(tr("&Bandwidth (GB/s):"), m_bandwidth);
    form->addRow(tr("Link l&atency (µs):"), m_linkLatency);
    form->addRow(tr("&Memory limit:"), m_memory);
    form->addRow(tr("Op-support &lists:"), m_targets);
    form->addRow(tr("Mi&n region (ops):"), m_minRegion);
    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_run, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_cancel, QDialogButtonBox::RejectRole);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    connect(m_run, &QPushButton::clicked, this, &AutoPartitionDialog::run);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_worker)
            m_cancelled = true;
        else
            reject();
    });
}

AutoPartitionDialog::~AutoPartitionDialog()
{
    if (m_worker) {
        m_cancelled = true;
        m_worker->wait();
    }
}

bool AutoPartitionDialog::readSettings(BalanceSettings &settings)
{
    bool ok = false;
    settings.gflops = m_flopsRate->value();
    const double bandwidth = m_bandwidth->text().toDouble(&ok);
    if (!ok || bandwidth <= 0) {
        fail(tr("The bandwidth must be a positive number of GB/s."));
        return false;
    }
    settings.link.bytesPerSecond = bandwidth * 1e9;
    const double latency = m_linkLatency->text().toDouble(&ok);
    if (!ok || latency < 0) {
        fail(tr("The link latency must be a number of microseconds (>= 0)."));
        return false;
    }
    settings.link.latencyUs = latency;
    settings.memoryLimit.reset();
    if (!m_memory->text().trimmed().isEmpty()) {
        settings.memoryLimit = cleave::parseByteSize(m_memory->text().trimmed().toStdString());
        if (!settings.memoryLimit) {
            fail(tr("The memory limit must be a size such as 16GiB or 512000000."));
            return false;
        }
    }
    settings.latency.reset();
    if (!m_latency->text().trimmed().isEmpty()) {
        std::vector<cleave::Diagnostic> problems;
        auto table
            = cleave::LatencyTable::load(m_latency->text().trimmed().toStdString(), problems);
        if (!table) {
            fail(problems.empty() ? tr("The latency table cannot be read.")
                                  : QString::fromStdString(problems.front().toString()));
            return false;
        }
        settings.latency = std::make_shared<const cleave::LatencyTable>(std::move(*table));
    }
    return true;
}

void AutoPartitionDialog::fail(const QString &message)
{
    m_status->setText(message);
    m_progress->setValue(0);
}

bool AutoPartitionDialog::readTargets(std::vector<cleave::OpSupportList> &lists,
                                      std::string &fallback)
{
    for (const QString &item : m_targets->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const qsizetype eq = item.indexOf(QLatin1Char('='));
        if (eq < 0) {
            fallback = item.trimmed().toStdString();
            continue;
        }
        std::vector<cleave::Diagnostic> problems;
        cleave::OpSupportList merged { item.left(eq).trimmed().toStdString(), {} };
        for (const auto &l :
             cleave::loadOpSupportFile(item.mid(eq + 1).trimmed().toStdString(), problems))
            merged.ops.insert(l.ops.begin(), l.ops.end());
        if (cleave::hasErrors(problems)) {
            fail(QString::fromStdString(problems.front().toString()));
            return false;
        }
        lists.push_back(std::move(merged));
    }
    return true;
}

void AutoPartitionDialog::run()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan || m_worker)
        return;
    BalanceSettings settings;
    if (!readSettings(settings))
        return;
    m_settings = settings;
    std::shared_ptr<cleave::DeviceSet> devices;
    if (!m_devices->text().trimmed().isEmpty()) {
        std::vector<cleave::Diagnostic> problems;
        auto loaded = cleave::loadDeviceFile(m_devices->text().trimmed().toStdString(), problems);
        if (!loaded) {
            fail(problems.empty() ? tr("The device file cannot be read.")
                                  : QString::fromStdString(problems.front().toString()));
            return;
        }
        devices = std::make_shared<cleave::DeviceSet>(std::move(*loaded));
        if (devices->hasLink)
            m_settings.link = devices->link;
    }
    std::vector<cleave::OpSupportList> lists;
    std::string fallback = "llvm";
    if (!readTargets(lists, fallback))
        return;
    const std::size_t stages
        = devices ? devices->devices.size() : static_cast<std::size_t>(m_stages->value());
    const bool blocks = m_level->currentData().toString() == QStringLiteral("blocks");
    const std::vector<cleave::FusedBlock> fused
        = blocks ? m_document->blocks() : std::vector<cleave::FusedBlock> {};
    const auto objective = m_objective->currentData().toString() == QStringLiteral("latency")
        ? cleave::StageObjective::Latency
        : cleave::StageObjective::Throughput;
    const auto minRegion = static_cast<std::size_t>(m_minRegion->value());
    std::shared_ptr<const cleave::FunctionView> view = plan->sharedView();
    const BalanceSettings cost = m_settings;

    m_cancelled = false;
    m_proposal.clear();
    m_error.clear();
    m_status->setText(tr("Searching…"));
    m_run->setEnabled(false);
    m_worker = QThread::create([=, this] {
        if (!lists.empty()) {
            cleave::RegionOptions options;
            options.targets = lists;
            options.fallback = fallback;
            options.minRegionOps = minRegion;
            options.link = cost.link;
            options.fallbackGflops = cost.gflops;
            const cleave::RegionResult regions = cleave::findTargetRegions(*view, options);
            for (std::size_t r = 0; r < regions.regions.size(); ++r) {
                const cleave::Region &region = regions.regions[r];
                m_proposal.push_back(
                    { region.target + "_" + std::to_string(r), region.target, region.nodes });
            }
            m_description = tr("%n region(s)", nullptr, static_cast<int>(regions.regions.size()));
            return;
        }
        std::vector<cleave::DeviceSpec> specs;
        std::vector<std::optional<std::int64_t>> limits;
        if (devices) {
            for (cleave::DeviceSpec d : devices->devices) {
                if (!d.latency)
                    d.latency = cost.latency.get();
                if (!d.memoryBytes)
                    d.memoryBytes = cost.memoryLimit;
                limits.push_back(d.memoryBytes);
                specs.push_back(d);
            }
        } else {
            cleave::DeviceSpec d;
            d.gflops = cost.gflops;
            d.latency = cost.latency.get();
            specs.push_back(d);
            limits.push_back(cost.memoryLimit);
        }
        const cleave::CostGraph graph = blocks
            ? cleave::CostGraph::buildBlocks(*view, fused, specs, cost.link)
            : cleave::CostGraph::build(*view, specs, cost.link);
        cleave::StageSearchOptions options;
        options.stages = stages;
        options.objective = objective;
        options.progress = [this](double fraction) {
            QMetaObject::invokeMethod(
                m_progress,
                [this, fraction] { m_progress->setValue(static_cast<int>(fraction * 100)); },
                Qt::QueuedConnection);
            return !m_cancelled.load();
        };
        const cleave::StageSearchResult result = cleave::searchStages(graph, options, limits);
        if (!result.ok) {
            m_error = QString::fromStdString(result.error);
            return;
        }
        std::vector<std::string> targets;
        for (std::size_t k = 0; k < stages; ++k)
            targets.push_back(specs[std::min(k, specs.size() - 1)].target);
        const cleave::PartitionPlan proposal
            = cleave::planFromStages(view, graph, result.stageOf, stages, targets);
        if (const auto problem = cleave::stageCountProblem(proposal, graph, stages)) {
            m_error = QString::fromStdString(*problem);
            return;
        }
        for (const cleave::Partition &p : proposal.partitions())
            m_proposal.push_back({ p.name, p.target, proposal.nodesOf(p.id) });
        m_description = tr("%1 stages, bottleneck %2 µs (%3)")
                            .arg(stages)
                            .arg(result.bottleneckUs, 0, 'f', 1)
                            .arg(QString::fromLatin1(cleave::searchModeName(result.mode)));
        if (result.usefulStages > 0)
            m_description += tr("; %1 stages reach this bottleneck and more cannot lower it, so "
                                "%2 stages hold little")
                                 .arg(result.usefulStages)
                                 .arg(stages - result.usefulStages);
    });
    connect(m_worker, &QThread::finished, this, &AutoPartitionDialog::finish);
    m_worker->start();
}

void AutoPartitionDialog::finish()
{
    m_worker->deleteLater();
    m_worker = nullptr;
    m_run->setEnabled(true);
    if (!m_error.isEmpty() || m_proposal.empty()) {
        fail(m_error.isEmpty() ? tr("Nothing to apply.") : m_error);
        return;
    }
    m_progress->setValue(100);
    m_document->undoStack()->push(new ApplyAutoPlan(m_document, std::move(m_proposal),
                                                    tr("Auto-partition: %1").arg(m_description)));
    emit applied(m_settings);
    accept();
}

} // namespace cleave::ui
