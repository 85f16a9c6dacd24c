// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportOptions.h"
#include "core/export/ModuleExporter.h"
#include "core/formats/RuntimeCheck.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QProgressBar;
class QPushButton;
class QVBoxLayout;

namespace cleave::ui {

class CanvasWidget;
class Document;

/// The export dialog: a folder, the artefacts to write (modules in a format that accepts the model,
/// pipeline_config.json, the partitions.json manifest, build_pipeline.py, BYOC modules, the canvas
/// as SVG / PNG; for Relax the format's own build_relax.py, byoc.relax.py and placed.relax.py),
/// then the core exporter runs, the export is checked by recomposition (verifyExport) when
/// modules, wiring and manifest were written, and the dialog lists what was written. For formats
/// with a runtime check (Relax: TVM; ONNX: ONNX Runtime) it offers "Run in <runtime> after
/// export" once a Python with the runtime is found: the export's build_relax.py or
/// run_pipeline.py --check runs in a separate process with a busy bar and Cancel, and the
/// per-output differences join the summary; a failed or cancelled run keeps the export. An
/// invalid plan is refused: the dialog names the errors and the Export button stays disabled.
class ExportDialog : public QDialog
{
    Q_OBJECT

public:
    ExportDialog(Document *document, CanvasWidget *canvas, QWidget *parent = nullptr);

    void setFolder(const QString &folder);
    [[nodiscard]] QString folder() const;
    /// The exporter options the check boxes select.
    [[nodiscard]] cleave::ExportOptions options() const;

    /// Runs the export (what the Export button does). Returns true when every selected file was
    /// written; the summary shows what happened either way.
    bool runExport();
    /// The files the last export wrote, relative to the folder.
    [[nodiscard]] const QStringList &writtenFiles() const { return m_written; }
    /// True when the last export passed the recomposition check (verifyExport).
    [[nodiscard]] bool verified() const { return m_verified; }
    [[nodiscard]] QPushButton *exportButton() const { return m_exportButton; }
    [[nodiscard]] QPlainTextEdit *summary() const { return m_summary; }
    /// True once the search for a Python with the runtime has ended (found or not).
    [[nodiscard]] bool runtimeProbed() const { return m_runtimeProbed; }
    /// True when the last runtime run matched the source on every output.
    [[nodiscard]] bool runtimePassed() const { return m_runtimePassed; }
    /// True while the runtime run goes on.
    [[nodiscard]] bool runtimeRunning() const { return m_process != nullptr; }

    void done(int result) override;

signals:
    void runtimeProbeFinished();
    void runtimeCheckFinished(bool passed);

private:
    void browse();
    void updateState();
    /// The module formats that can write this model, the artefact boxes worded for the first
    /// one; returns the artefacts it always writes (listed, not optional).
    std::vector<cleave::ModuleExporter::Artefact> setUpFormat();
    /// The "lift constants" box: a project setting, changed as one undoable step.
    void setUpLiftConstants();
    void setUpRuntimeCheck(QVBoxLayout *artefacts);
    void startRuntimeCheck(const QString &dir);
    void finishRuntimeCheck();
    void cancelRuntimeCheck();

    Document *m_document;
    CanvasWidget *m_canvas;
    QLineEdit *m_folder;
    QCheckBox *m_modules;
    QComboBox *m_format;
    QCheckBox *m_pipelineConfig;
    QCheckBox *m_manifest;
    QCheckBox *m_buildScript;
    QCheckBox *m_byoc;
    QCheckBox *m_liftConstants;
    QCheckBox *m_svg;
    QCheckBox *m_png;
    QLabel *m_refusal;
    QPlainTextEdit *m_summary;
    QDialogButtonBox *m_buttons;
    QPushButton *m_exportButton;
    QStringList m_written;
    bool m_verified = false;
    const cleave::ModuleExporter *m_writer = nullptr;
    QCheckBox *m_runtime;
    QProgressBar *m_progress;
    QLabel *m_runtimeStatus;
    QPushButton *m_cancelRuntime;
    QProcess *m_process = nullptr;
    QString m_python;
    QString m_runtimeTitle; ///< "TVM", "ONNX Runtime".
    QStringList m_runtimeLog;
    cleave::RuntimeCheckCommand m_command;
    bool m_runtimeProbed = false;
    bool m_runtimePassed = false;
    bool m_runtimeCancelled = false;
};

} // namespace cleave::ui
