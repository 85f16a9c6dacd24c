// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/dialogs/MeasureDialog.h"

#include "core/formats/RuntimeCheck.h"
#include "ui/commands/ChangeEngineSettings.h"
#include "ui/document/Document.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

namespace cleave::ui {

MeasureDialog::MeasureDialog(Document *document, QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_output(new QLineEdit)
    , m_threads(new QSpinBox)
    , m_runs(new QSpinBox)
    , m_level(new QComboBox)
    , m_progress(new QProgressBar)
    , m_status(new QLabel)
    , m_log(new QPlainTextEdit)
    , m_start(new QPushButton(tr("&Measure")))
    , m_cancel(new QPushButton(tr("Cancel")))
{
    setObjectName(QStringLiteral("measureDialog"));
    setWindowTitle(tr("Measure on This Machine"));
    const QFileInfo model(document->filePath());
    auto *intro = new QLabel(
        tr("Runs %1 in ONNX Runtime with its profiler and loads every node's median time as the "
           "latency table: the Partitions dock, the Balance dock and Auto-partition then cost "
           "stages by what this machine measured. Export folders carry the same script "
           "(profile.py) to measure on the deployment machine.")
            .arg(model.fileName()));
    intro->setWordWrap(true);
    m_output->setObjectName(QStringLiteral("measureOutput"));
    m_output->setText(model.absolutePath() + QLatin1Char('/') + model.completeBaseName()
                      + QStringLiteral(".latency.json"));
    auto *browse = new QPushButton(tr("Browse…"));
    browse->setObjectName(QStringLiteral("measureBrowse"));
    browse->setAutoDefault(false);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Latency Table"), m_output->text(), tr("JSON files (*.json)"));
        if (!path.isEmpty())
            m_output->setText(path);
    });
    auto *outputRow = new QHBoxLayout;
    outputRow->addWidget(m_output, 1);
    outputRow->addWidget(browse);
    m_threads->setObjectName(QStringLiteral("measureThreads"));
    m_threads->setRange(1, std::max(1, QThread::idealThreadCount()));
    m_threads->setValue(1);
    m_threads->setToolTip(tr("Intra-op threads: 1 measures what one pipeline stage per core gets"));
    m_runs->setObjectName(QStringLiteral("measureRuns"));
    m_runs->setRange(1, 10000);
    m_runs->setValue(15);
    m_level->setObjectName(QStringLiteral("measureLevel"));
    m_level->addItem(tr("All (ONNX Runtime's default)"), QStringLiteral("all"));
    m_level->addItem(tr("Extended"), QStringLiteral("extended"));
    m_level->addItem(tr("Basic"), QStringLiteral("basic"));
    m_level->addItem(tr("None (one kernel per node)"), QStringLiteral("disable"));
    auto *form = new QFormLayout;
    form->addRow(tr("Latency table:"), outputRow);
    form->addRow(tr("Threads:"), m_threads);
    form->addRow(tr("Measured runs:"), m_runs);
    form->addRow(tr("Graph optimisations:"), m_level);

    m_progress->setObjectName(QStringLiteral("measureProgress"));
    m_progress->hide();
    m_status->setObjectName(QStringLiteral("measureStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_log->setObjectName(QStringLiteral("measureLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(200);
    m_log->hide();
    m_start->setObjectName(QStringLiteral("measureStart"));
    m_cancel->setObjectName(QStringLiteral("measureCancel"));
    m_cancel->setAutoDefault(false);
    m_cancel->setEnabled(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_start, &QPushButton::clicked, this, &MeasureDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &MeasureDialog::cancel);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_log, 1);
    layout->addWidget(buttons);
    // Enter measures (set once the button is in the dialog: a button is its dialog's default
    // only then; Close keeps Escape).
    buttons->button(QDialogButtonBox::Close)->setAutoDefault(false);
    m_start->setDefault(true);
    resize(560, 320);
}

MeasureDialog::~MeasureDialog()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(3000);
    }
    removeProfileScript(m_command);
}

QString MeasureDialog::outputPath() const
{
    return m_output->text();
}

void MeasureDialog::setOutputPath(const QString &path)
{
    m_output->setText(path);
}

bool MeasureDialog::isRunning() const
{
    return m_preparing || m_process;
}

QString MeasureDialog::statusText() const
{
    return m_status->text();
}

void MeasureDialog::say(const QString &text)
{
    m_status->setText(text);
}

void MeasureDialog::start()
{
    const cleave::Graph *graph = m_document->graph();
    if (!graph || isRunning())
        return;
    if (!cleave::canProfile(*graph)) {
        say(tr("Measuring runs ONNX models in ONNX Runtime; this model is not one. Measure it "
               "with its own runtime's profiler and load the table in Model ▸ Cost & Targets."));
        emit finished(false);
        return;
    }
    const QString output = m_output->text().trimmed();
    if (output.isEmpty()) {
        say(tr("Say where the latency table goes."));
        return;
    }
    if (QFileInfo::exists(output)
        && QMessageBox::question(this, tr("Replace Latency Table"),
                                 tr("%1 exists. Replace it with the new measurement?")
                                     .arg(QFileInfo(output).fileName()))
            != QMessageBox::Yes)
        return;
    cleave::ProfileOptions options;
    options.threads = m_threads->value();
    options.runs = m_runs->value();
    options.level = m_level->currentData().toString().toStdString();
    // Finding a Python with ONNX Runtime starts Python a few times: off the UI thread.
    m_preparing = true;
    m_start->setEnabled(false);
    m_cancelled = false;
    say(tr("Looking for a Python with ONNX Runtime…"));
    auto command = std::make_shared<cleave::ProfileCommand>();
    QThread *probe = QThread::create(
        [command, path = graph->sourcePath(), format = graph->format(), out = output.toStdString(),
         options] { *command = cleave::profileCommand(path, format, out, options); });
    connect(probe, &QThread::finished, this, [this, command, probe] {
        probe->deleteLater();
        m_preparing = false;
        if (!command->error.empty()) {
            removeProfileScript(*command);
            m_start->setEnabled(true);
            say(tr("Cannot measure: %1").arg(QString::fromStdString(command->error)));
            emit finished(false);
            return;
        }
        launch(*command);
    });
    connect(this, &QObject::destroyed, probe, [probe] {
        probe->wait();
        probe->deleteLater();
    });
    probe->start();
}

void MeasureDialog::launch(const cleave::ProfileCommand &command)
{
    m_command = command;
    m_lines.clear();
    m_log->clear();
    m_process = new QProcess(this);
    m_process->setProgram(QString::fromStdString(command.program));
    QStringList args;
    for (const std::string &a : command.args)
        args.append(QString::fromStdString(a));
    m_process->setArguments(args);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::readyRead, this, [this] {
        const QStringList lines
            = QString::fromUtf8(m_process->readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QString &line : lines) {
            int done = 0;
            int total = 0;
            if (cleave::parseProfileProgress(line.toStdString(), done, total)) {
                m_progress->setRange(0, total);
                m_progress->setValue(done);
            } else {
                m_lines.append(line);
                m_log->appendPlainText(line);
            }
        }
    });
    connect(m_process, &QProcess::finished, this, &MeasureDialog::finish);
    m_progress->setRange(0, 0);
    m_progress->show();
    m_cancel->setEnabled(true);
    say(tr("Measuring %1 runs in ONNX Runtime (%2)…")
            .arg(m_runs->value())
            .arg(QString::fromStdString(command.program)));
    m_process->start();
}

void MeasureDialog::finish()
{
    QProcess *process = m_process;
    m_process = nullptr;
    const bool ok = process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0;
    const int code = process->exitCode();
    process->deleteLater();
    removeProfileScript(m_command);
    m_progress->hide();
    m_cancel->setEnabled(false);
    m_start->setEnabled(true);
    if (m_cancelled) {
        say(tr("Measurement cancelled; the latency table is unchanged."));
        emit finished(false);
        return;
    }
    if (!ok) {
        m_log->show();
        say(tr("The measurement FAILED (exit %1); the latency table is unchanged. Its last "
               "lines:\n%2")
                .arg(code)
                .arg(m_lines.mid(std::max(0, int(m_lines.size()) - 4)).join(QLatin1Char('\n'))));
        emit finished(false);
        return;
    }
    std::vector<cleave::Diagnostic> problems;
    const QString path = QString::fromStdString(m_command.output);
    auto table = EngineSettings::loadLatency(m_command.output, problems);
    if (!table || !m_document->hasGraph()) {
        say(tr("The measurement wrote %1, which does not load: %2")
                .arg(path,
                     problems.empty() ? QString()
                                      : QString::fromStdString(problems.front().toString())));
        emit finished(false);
        return;
    }
    const QString provenance = QString::fromStdString(table->provenance());
    const std::size_t nodes = table->nodeEntries();
    EngineSettings settings = m_document->settings();
    settings.latency = std::move(table);
    settings.latencyPath = m_command.output;
    m_document->undoStack()->push(new ChangeEngineSettings(
        m_document, std::move(settings),
        tr("Measure on this machine (%1)").arg(QFileInfo(path).fileName())));
    say(tr("Measured %1 nodes (%2); the table %3 is loaded.")
            .arg(nodes)
            .arg(provenance, QFileInfo(path).fileName()));
    emit finished(true);
}

void MeasureDialog::cancel()
{
    if (!m_process)
        return;
    m_cancelled = true;
    m_process->kill();
}

} // namespace cleave::ui
