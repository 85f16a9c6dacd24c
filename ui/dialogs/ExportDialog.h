// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportOptions.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace cleave::ui {

class CanvasWidget;
class Document;

/// The export dialog: a folder, the artefacts to write (modules in a format that accepts the model,
/// pipeline_config.json, the partitions.json manifest, build_pipeline.py, BYOC modules, the canvas
/// as SVG / PNG), then the core exporter runs, the export is checked by recomposition
/// (verifyExport) when modules, configuration and manifest were written, and the dialog lists what
/// was written. An invalid plan is refused: the dialog names the errors and the Export button stays
/// disabled.
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

private:
    void browse();
    void updateState();

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
};

} // namespace cleave::ui
