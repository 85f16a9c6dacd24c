// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/dialogs/ExportDialog.h"

#include "core/analysis/Cost.h"
#include "core/export/ModuleExporter.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/formats/RuntimeCheck.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/commands/ChangeEngineSettings.h"
#include "ui/document/Document.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

namespace cleave::ui {

namespace {

const QString lastExportParentKey = QStringLiteral("export/lastParentFolder");
const QString runInRuntimeKey = QStringLiteral("export/runInRuntime");

QString sizeText(qint64 bytes)
{
    return QString::fromStdString(cleave::humanBytes(bytes));
}

} // namespace

ExportDialog::ExportDialog(Document *document, CanvasWidget *canvas, QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_canvas(canvas)
    , m_folder(new QLineEdit)
    , m_modules(new QCheckBox(tr("Modules, one per partition (mod<k>)")))
    , m_format(new QComboBox)
    , m_pipelineConfig(new QCheckBox(tr("Pipeline configuration (pipeline_config.json)")))
    , m_manifest(new QCheckBox(tr("Manifest (partitions.json, needed by verify)")))
    , m_buildScript(new QCheckBox(tr("Build script (build_pipeline.py)")))
    , m_byoc(new QCheckBox(tr("BYOC modules (byoc.relay, for BYOC targets)")))
    , m_liftConstants(new QCheckBox(tr("Lift constants to module parameters")))
    , m_svg(new QCheckBox(tr("Canvas as SVG (graph.svg)")))
    , m_png(new QCheckBox(tr("Canvas as PNG (graph.png)")))
    , m_refusal(new QLabel)
    , m_summary(new QPlainTextEdit)
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Close))
    , m_exportButton(new QPushButton(tr("Export")))
    , m_runtime(new QCheckBox(tr("Run in TVM after export")))
    , m_progress(new QProgressBar)
    , m_runtimeStatus(new QLabel)
    , m_cancelRuntime(new QPushButton(tr("Cancel Run")))
{
    setObjectName(QStringLiteral("exportDialog"));
    setWindowTitle(tr("Export Partitions"));
    setMinimumWidth(560);

    m_folder->setObjectName(QStringLiteral("exportFolder"));
    auto *browse = new QPushButton(tr("Browse…"));
    browse->setAutoDefault(false); // Enter exports; it does not open the folder chooser
    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    auto *folderNote = new QLabel(tr("The folder is replaced by the export as a whole."));
    folderNote->setEnabled(false);

    for (QCheckBox *box : { m_modules, m_pipelineConfig, m_manifest, m_buildScript, m_byoc })
        box->setChecked(true);
    m_modules->setObjectName(QStringLiteral("exportModules"));
    m_pipelineConfig->setObjectName(QStringLiteral("exportPipelineConfig"));
    m_buildScript->setObjectName(QStringLiteral("exportBuildScript"));
    m_byoc->setObjectName(QStringLiteral("exportByoc"));
    m_svg->setObjectName(QStringLiteral("exportSvg"));
    m_png->setObjectName(QStringLiteral("exportPng"));
    m_svg->setEnabled(m_canvas != nullptr);
    m_png->setEnabled(m_canvas != nullptr);
    const std::vector<cleave::ModuleExporter::Artefact> always = setUpFormat();
    auto *modulesRow = new QHBoxLayout;
    modulesRow->addWidget(m_modules);
    modulesRow->addWidget(m_format);
    modulesRow->addStretch(1);
    auto *artefacts = new QGroupBox(tr("Artefacts"));
    auto *artefactLayout = new QVBoxLayout(artefacts);
    artefactLayout->addLayout(modulesRow);
    for (QCheckBox *box :
         { m_pipelineConfig, m_manifest, m_buildScript, m_byoc, m_liftConstants, m_svg, m_png })
        artefactLayout->addWidget(box);
    for (const cleave::ModuleExporter::Artefact &a : always) {
        // Written with every export of this format: listed, not optional.
        auto *box = new QCheckBox(QStringLiteral("%1 (%2)").arg(
            QString::fromStdString(a.file), QString::fromStdString(a.description)));
        box->setObjectName(QStringLiteral("exportAlways"));
        box->setChecked(true);
        box->setEnabled(false);
        artefactLayout->addWidget(box);
    }
    setUpRuntimeCheck(artefactLayout);

    m_refusal->setObjectName(QStringLiteral("exportRefusal"));
    m_refusal->setWordWrap(true);
    m_refusal->setTextFormat(Qt::PlainText);
    m_refusal->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_summary->setObjectName(QStringLiteral("exportSummary"));
    m_summary->setReadOnly(true);
    m_summary->setPlaceholderText(tr("What the export writes is listed here."));
    m_summary->setMinimumHeight(140);

    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setDefault(true);
    m_buttons->addButton(m_exportButton, QDialogButtonBox::ActionRole);

    auto *form = new QFormLayout;
    form->addRow(tr("Folder:"), folderRow);
    form->addRow(QString(), folderNote);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(artefacts);
    layout->addWidget(m_refusal);
    layout->addWidget(m_summary, 1);
    auto *runtimeRow = new QHBoxLayout;
    runtimeRow->addWidget(m_progress, 1);
    runtimeRow->addWidget(m_cancelRuntime);
    layout->addWidget(m_runtimeStatus);
    layout->addLayout(runtimeRow);
    layout->addWidget(m_buttons);

    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_folder, &QLineEdit::textChanged, this, &ExportDialog::updateState);
    connect(m_exportButton, &QPushButton::clicked, this, &ExportDialog::runExport);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_document, &Document::planChanged, this, &ExportDialog::updateState);
    setUpLiftConstants();

    // A sensible default: `<model>_partitions` in the folder of the last export, else beside
    // the model.
    if (m_document->hasGraph()) {
        const QFileInfo model(m_document->filePath());
        const QDir parent(QSettings().value(lastExportParentKey, model.absolutePath()).toString());
        setFolder(parent.filePath(model.completeBaseName() + QStringLiteral("_partitions")));
    }
    updateState();
}

void ExportDialog::setFolder(const QString &folder)
{
    m_folder->setText(QDir::toNativeSeparators(folder));
}

QString ExportDialog::folder() const
{
    return QDir::fromNativeSeparators(m_folder->text().trimmed());
}

cleave::ExportOptions ExportDialog::options() const
{
    cleave::ExportOptions o;
    o.modules = m_modules->isChecked();
    o.pipelineConfig = m_pipelineConfig->isChecked();
    o.manifest = m_manifest->isChecked();
    o.buildScript = m_buildScript->isChecked();
    o.byoc = m_byoc->isChecked();
    // As the document's pipeline exports them (its settings; the tick box changes them).
    o.liftConstants = m_document->settings().liftConstants;
    o.params = m_document->settings().params;
    if (m_format->count() > 0)
        o.moduleFormat = m_format->currentData().toString().toStdString();
    return o;
}

void ExportDialog::browse()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export Into"), folder());
    if (!dir.isEmpty())
        setFolder(dir);
}

void ExportDialog::updateState()
{
    QStringList errors;
    for (const cleave::Diagnostic &d : m_document->diagnostics()) {
        if (d.severity == cleave::Severity::Error)
            errors.append(
                QStringLiteral("• %1 [%2]")
                    .arg(QString::fromStdString(d.message), QString::fromStdString(d.code)));
    }
    const bool writable = m_format->count() > 0;
    const bool valid = m_document->plan() && errors.isEmpty() && writable;
    if (!m_document->plan())
        m_refusal->setText(tr("Open a model first."));
    else if (!writable)
        m_refusal->setText(tr("Cleave has no module writer for %1 models yet, so this model "
                              "cannot be exported (Relay models can).")
                               .arg(QString::fromStdString(m_document->graph()->format())));
    else if (!errors.isEmpty())
        m_refusal->setText((errors.size() == 1
                                ? tr("The plan is invalid, so it cannot be exported. Fix this "
                                     "error first (see the Diagnostics dock):")
                                : tr("The plan is invalid, so it cannot be exported. Fix these "
                                     "%1 errors first (see the Diagnostics dock):")
                                      .arg(errors.size()))
                           + QLatin1Char('\n') + errors.join(QLatin1Char('\n')));
    else
        m_refusal->clear();
    m_refusal->setVisible(!valid);
    m_exportButton->setEnabled(valid && !folder().isEmpty() && !m_process);
}

bool ExportDialog::runExport()
{
    m_written.clear();
    m_verified = false;
    updateState();
    if (!m_exportButton->isEnabled())
        return false;
    const QString dir = QDir::cleanPath(QFileInfo(folder()).absoluteFilePath());
    QStringList lines;

    QApplication::setOverrideCursor(Qt::WaitCursor);
    // The document's pipeline checks the plan again and refuses it when invalid.
    const cleave::ExportResult result
        = m_document->pipeline()->exportPlan(*m_document->plan(), options(), dir.toStdString());
    QApplication::restoreOverrideCursor();
    bool ok = result.ok;
    for (const std::string &file : result.files)
        m_written.append(QString::fromStdString(file));

    // The exporter replaces the folder, so the pictures go in afterwards.
    QStringList images;
    if (ok && m_canvas) {
        if (m_svg->isChecked())
            images.append(QStringLiteral("graph.svg"));
        if (m_png->isChecked())
            images.append(QStringLiteral("graph.png"));
    }
    for (const QString &image : images) {
        QString error;
        if (m_canvas->exportImage(QDir(dir).filePath(image), &error)) {
            m_written.append(image);
        } else {
            ok = false;
            lines.append(tr("error: %1: %2").arg(image, error));
        }
    }

    QStringList summary;
    if (result.ok) {
        const std::size_t count = m_document->plan()->partitionCount();
        summary.append((count == 1 ? tr("Exported 1 partition into %1:")
                                   : tr("Exported %1 partitions into %2:").arg(count))
                           .arg(QDir::toNativeSeparators(dir)));
        for (const QString &file : std::as_const(m_written)) {
            const QFileInfo info(QDir(dir).filePath(file));
            summary.append(QStringLiteral("  %1  (%2)").arg(file, sizeText(info.size())));
        }
    } else {
        summary.append(
            tr("The export failed; %1 was left as it was.").arg(QDir::toNativeSeparators(dir)));
    }
    for (const cleave::Diagnostic &d : result.diagnostics)
        summary.append(QString::fromStdString(d.toString()));
    summary.append(lines);
    if (result.ok) {
        QSettings().setValue(lastExportParentKey, QFileInfo(dir).absolutePath());
        // With modules, configuration and manifest on disk the export can check itself: the
        // modules wired by the configuration must recompose the original model.
        const cleave::ExportOptions o = options();
        const bool wired = o.pipelineConfig || (m_writer && !m_writer->usesPipelineExecutor());
        if (o.modules && wired && o.manifest) {
            QApplication::setOverrideCursor(Qt::WaitCursor);
            const cleave::VerifyResult check = cleave::verifyExport(dir.toStdString());
            QApplication::restoreOverrideCursor();
            m_verified = check.ok;
            summary.append(check.ok ? tr("Recomposition check passed: the modules wired by "
                                         "pipeline_config.json rebuild the model.")
                                    : tr("Recomposition check FAILED: %1")
                                          .arg(QString::fromStdString(check.firstDifference)));
            ok = ok && check.ok;
        }
    }
    m_summary->setPlainText(summary.join(QLatin1Char('\n')));
    const cleave::ExportOptions o = options();
    if (ok && m_runtime->isEnabled() && m_runtime->isChecked() && o.modules && o.manifest
        && o.buildScript)
        startRuntimeCheck(dir);
    return ok;
}

std::vector<cleave::ModuleExporter::Artefact> ExportDialog::setUpFormat()
{
    // Module formats that can write this model's partitions.
    m_format->setObjectName(QStringLiteral("exportFormat"));
    if (const cleave::Graph *graph = m_document->graph()) {
        for (const auto &exporter : cleave::moduleExporters()) {
            if (exporter->acceptsSource(*graph))
                m_format->addItem(QStringLiteral("%1 (.%2)")
                                      .arg(QString::fromStdString(exporter->formatName()),
                                           QString::fromStdString(exporter->extension())),
                                  QString::fromStdString(exporter->formatName()));
        }
        m_format->setEnabled(m_format->count() > 1);
    }
    // Say up front what this source format produces: compiled models get a run script, and
    // byoc.relay exists only for Relay modules (ONNX names execution providers instead); Relax
    // modules have their own script, BYOC module and placed module, and no pipeline executor.
    std::vector<cleave::ModuleExporter::Artefact> always;
    if (const cleave::ModuleExporter *writer = m_format->count() > 0
            ? cleave::moduleExporterFor(m_format->itemData(0).toString().toStdString())
            : nullptr) {
        m_writer = writer;
        const auto artefacts = writer->modelArtefacts();
        if (!writer->usesPipelineExecutor()) {
            m_pipelineConfig->setChecked(false);
            m_pipelineConfig->setEnabled(false);
            m_pipelineConfig->setText(tr("Pipeline configuration: none for %1 modules (TVM ≥ "
                                         "0.20 has no pipeline executor; partitions.json wires "
                                         "the modules)")
                                          .arg(QString::fromStdString(writer->formatName())));
        }
        for (const cleave::ModuleExporter::Artefact &a : artefacts) {
            const QString text = QStringLiteral("%1 (%2)").arg(
                QString::fromStdString(a.file), QString::fromStdString(a.description));
            if (a.option == "buildScript")
                m_buildScript->setText(tr("Build and check script: %1").arg(text));
            else if (a.option == "byoc")
                m_byoc->setText(tr("BYOC module: %1").arg(text));
            else
                always.push_back(a);
        }
        if (writer->modulesAreCompiled())
            m_buildScript->setText(
                tr("Run script (run_pipeline.py: runs mod<k>.json on the compiled library)"));
        const bool ownByoc = std::any_of(artefacts.begin(), artefacts.end(),
                                         [](const auto &a) { return a.option == "byoc"; });
        if (!writer->writesRelayByoc() && !ownByoc) {
            m_byoc->setChecked(false);
            m_byoc->setEnabled(false);
            m_byoc->setText(!writer->executionProvider("llvm").empty()
                                ? tr("BYOC: partitions.json names each partition's ONNX Runtime "
                                     "execution provider")
                                : tr("BYOC modules (byoc.relay): only for Relay models"));
        }
    }
    return always;
}

void ExportDialog::setUpLiftConstants()
{
    // Lifting constants is a setting of the project (Model ▸ Cost & Targets shows it too).
    m_liftConstants->setObjectName(QStringLiteral("exportLiftConstants"));
    m_liftConstants->setChecked(m_document->settings().liftConstants);
    connect(m_liftConstants, &QCheckBox::toggled, this, [this](bool on) {
        if (on == m_document->settings().liftConstants)
            return;
        EngineSettings settings = m_document->settings();
        settings.liftConstants = on;
        m_document->undoStack()->push(new ChangeEngineSettings(
            m_document, std::move(settings),
            on ? tr("Lift constants to parameters") : tr("Keep constants in the modules")));
    });
    connect(m_document, &Document::settingsChanged, this,
            [this] { m_liftConstants->setChecked(m_document->settings().liftConstants); });
}

void ExportDialog::setUpRuntimeCheck(QVBoxLayout *artefacts)
{
    m_runtime->setObjectName(QStringLiteral("exportRunRuntime"));
    m_progress->setObjectName(QStringLiteral("exportRuntimeProgress"));
    m_runtimeStatus->setObjectName(QStringLiteral("exportRuntimeStatus"));
    m_cancelRuntime->setObjectName(QStringLiteral("exportCancelRuntime"));
    m_cancelRuntime->setAutoDefault(false);
    m_progress->setRange(0, 0); // busy: the scripts print no fraction done
    m_progress->hide();
    m_cancelRuntime->hide();
    m_runtimeStatus->hide();
    m_runtimeStatus->setTextFormat(Qt::PlainText);
    connect(m_cancelRuntime, &QPushButton::clicked, this, &ExportDialog::cancelRuntimeCheck);
    const auto check = m_writer ? m_writer->runtimeCheck() : std::nullopt;
    if (!check) {
        m_runtime->hide();
        return;
    }
    m_runtimeTitle = QString::fromStdString(check->title);
    artefacts->addWidget(m_runtime);
    m_runtime->setEnabled(false);
    m_runtime->setChecked(QSettings().value(runInRuntimeKey, false).toBool());
    m_runtime->setText(
        tr("Run in %1 after export (looking for a Python with %1…)").arg(m_runtimeTitle));
    connect(m_runtime, &QCheckBox::toggled, this,
            [](bool on) { QSettings().setValue(runInRuntimeKey, on); });
    // Finding the runtime starts Python a few times: off the UI thread.
    auto found = std::make_shared<std::pair<std::string, std::string>>();
    QThread *probe = QThread::create([found, modules = check->pythonModules] {
        found->first = cleave::findPythonWith(modules, found->second);
    });
    connect(probe, &QThread::finished, this, [this, found, probe] {
        probe->deleteLater();
        m_python = QString::fromStdString(found->first);
        m_runtimeProbed = true;
        if (m_python.isEmpty()) {
            m_runtime->setText(tr("Run in %1 after export: no Python with %1 was found (tried "
                                  "%2; run packaging/pydeps.sh, pip install it, or set "
                                  "CLEAVE_PYTHON)")
                                   .arg(m_runtimeTitle, QString::fromStdString(found->second)));
        } else {
            m_runtime->setEnabled(true);
            m_runtime->setText(tr("Run in %1 after export (%2)").arg(m_runtimeTitle, m_python));
        }
        emit runtimeProbeFinished();
    });
    connect(this, &QObject::destroyed, probe, [probe] {
        probe->wait();
        probe->deleteLater();
    });
    probe->start();
}

void ExportDialog::startRuntimeCheck(const QString &dir)
{
    cleave::RuntimeCheckOptions options;
    options.python = m_python.toStdString();
    m_command = cleave::runtimeCheckCommand(dir.toStdString(), options);
    if (!m_command.error.empty()) {
        m_summary->appendPlainText(
            tr("The %1 run did not start: %2")
                .arg(m_runtimeTitle, QString::fromStdString(m_command.error)));
        emit runtimeCheckFinished(false);
        return;
    }
    m_runtimePassed = false;
    m_process = new QProcess(this);
    m_process->setProgram(QString::fromStdString(m_command.program));
    QStringList args;
    for (const std::string &a : m_command.args)
        args.append(QString::fromStdString(a));
    m_process->setArguments(args);
    m_process->setWorkingDirectory(QString::fromStdString(m_command.workingDir));
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::readyRead, this, [this] {
        const QStringList lines
            = QString::fromUtf8(m_process->readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        m_runtimeLog.append(lines);
        if (!lines.isEmpty())
            m_runtimeStatus->setText(lines.back().left(160));
    });
    connect(m_process, &QProcess::finished, this, &ExportDialog::finishRuntimeCheck);
    m_summary->appendPlainText(tr("Running the export in %1 (%2)…").arg(m_runtimeTitle, m_python));
    m_runtimeStatus->setText(tr("Loading the modules in %1…").arg(m_runtimeTitle));
    m_runtimeStatus->show();
    m_progress->show();
    m_cancelRuntime->show();
    m_exportButton->setEnabled(false);
    m_runtimeLog.clear();
    m_process->start();
}

void ExportDialog::finishRuntimeCheck()
{
    QProcess *process = m_process;
    m_process = nullptr;
    const bool cancelled = m_runtimeCancelled;
    m_runtimeCancelled = false;
    m_progress->hide();
    m_cancelRuntime->hide();
    m_runtimeStatus->hide();
    updateState();
    const int status = process->exitStatus() == QProcess::NormalExit ? process->exitCode() : -1;
    m_runtimeLog.append(
        QString::fromUtf8(process->readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts));
    process->deleteLater();
    std::string error;
    const auto report = cleave::readRuntimeReport(m_command.reportPath, error);
    QFile::remove(QString::fromStdString(m_command.reportPath));
    if (cancelled) {
        m_summary->appendPlainText(tr("%1 run cancelled; the export is kept.").arg(m_runtimeTitle));
    } else if (!report) {
        // Not run to the end (a module does not build, no inputs): say what the runtime said.
        m_summary->appendPlainText(tr("%1 run FAILED (exit %2); the export is kept. Its last "
                                      "lines:")
                                       .arg(m_runtimeTitle)
                                       .arg(status));
        m_summary->appendPlainText(
            m_runtimeLog.mid(std::max(0, int(m_runtimeLog.size()) - 6)).join(QLatin1Char('\n')));
    } else {
        m_runtimePassed = report->ok;
        m_summary->appendPlainText(
            report->ok ? tr("%1 %2 ran %3 partition(s): every output matches the source "
                            "model's.")
                             .arg(m_runtimeTitle, QString::fromStdString(report->runtimeVersion))
                             .arg(report->partitions)
                       : tr("%1 %2 run FAILED: the partitions' outputs differ from the source "
                            "model's; the export is kept.")
                             .arg(m_runtimeTitle, QString::fromStdString(report->runtimeVersion)));
        for (const cleave::RuntimeOutputCheck &c : report->outputs) {
            m_summary->appendPlainText(
                c.error.empty()
                    ? (c.object ? tr("  %1: %2 (not a tensor)")
                                      .arg(QString::fromStdString(c.output),
                                           c.ok ? tr("ok") : tr("MISMATCH"))
                                : tr("  %1: %2, max relative difference %3")
                                      .arg(QString::fromStdString(c.output),
                                           c.ok ? tr("ok") : tr("MISMATCH"))
                                      .arg(c.maxRelDiff, 0, 'g', 3))
                    : tr("  %1: MISMATCH, %2")
                          .arg(QString::fromStdString(c.output), QString::fromStdString(c.error)));
        }
    }
    emit runtimeCheckFinished(m_runtimePassed);
}

void ExportDialog::cancelRuntimeCheck()
{
    if (!m_process)
        return;
    m_runtimeCancelled = true;
    m_process->kill();
}

void ExportDialog::done(int result)
{
    if (m_process) { // closing stops the run; the export stays
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(3000);
        QFile::remove(QString::fromStdString(m_command.reportPath));
    }
    QDialog::done(result);
}

} // namespace cleave::ui
