// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/formats/ModelProfile.h"

#include <QDialog>
#include <QPointer>
#include <QStringList>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace cleave::ui {

class Document;

/// Model ▸ Measure on this machine…: runs the model in ONNX Runtime with its profiler
/// (core's profileCommand, the profile.py that exports carry) in a separate process, with a
/// progress bar and Cancel, and loads the table it writes as the document's latency table in one
/// undo step (saved in the project like a table loaded from Cost & Targets). The table goes to
/// `<model>.latency.json` beside the model unless the user picks another file; an existing file
/// is replaced only after the user says so, and a failed or cancelled run leaves it as it was.
class MeasureDialog : public QDialog
{
    Q_OBJECT

public:
    MeasureDialog(Document *document, QWidget *parent = nullptr);
    ~MeasureDialog() override;

    /// The file the table is written to.
    [[nodiscard]] QString outputPath() const;
    void setOutputPath(const QString &path);
    /// True while the measurement runs.
    [[nodiscard]] bool isRunning() const;
    /// What the dialog said last (the result or the error).
    [[nodiscard]] QString statusText() const;

signals:
    /// The measurement ended: `loaded` when the table became the document's latency table.
    void finished(bool loaded);

private:
    void start();
    void launch(const cleave::ProfileCommand &command);
    void finish();
    void cancel();
    void say(const QString &text);

    Document *m_document;
    QLineEdit *m_output;
    QSpinBox *m_threads;
    QSpinBox *m_runs;
    QComboBox *m_level;
    QProgressBar *m_progress;
    QLabel *m_status;
    QPlainTextEdit *m_log;
    QPushButton *m_start;
    QPushButton *m_cancel;
    QPointer<QProcess> m_process;
    cleave::ProfileCommand m_command;
    QStringList m_lines;
    bool m_cancelled = false;
    bool m_preparing = false;
};

} // namespace cleave::ui
