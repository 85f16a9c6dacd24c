// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/session/EngineSettings.h"

#include <QDialog>
#include <QString>

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTableView;

namespace cleave::ui {

class Document;
class FunctionChooser;
class PartitionListModel;

/// Model ▸ Cost & Targets: every engine option cleave-cli takes as a flag, in one non-modal
/// page over the open document — the function to partition (`--function`), op-support lists
/// (`--op-support`), the latency table (`--latency`), the FuseOps options (`--fold-batch-norm`,
/// `--transparent-stop-fusion`, `--op-patterns`), each partition's target, the inputs marked as
/// parameters (`--params`) and lifted constants (`--lift-constants`).
///
/// Every change is one undo step on the document (ChangeEngineSettings, ChooseFunction,
/// SetPartitionTarget), so it marks the document modified and is saved in the project. A file
/// that cannot be read is refused with its diagnostics (file:line:col) shown on the page; the
/// settings stay as they were.
class CostTargetsDialog : public QDialog
{
    Q_OBJECT

public:
    explicit CostTargetsDialog(Document *document, QWidget *parent = nullptr);

    /// Shows the page of `parent`'s window (one per window, kept while the window lives),
    /// creating it on first use; returns it.
    static CostTargetsDialog *showFor(Document *document, QWidget *parent);

    /// Loads an op-support list file (what "Load…" does after its file dialog); false with
    /// the reasons in errorText() when it cannot be read.
    bool loadOpSupport(const QString &path);
    /// Loads a latency table; false with the reasons in errorText().
    bool loadLatency(const QString &path);
    /// Loads an op-pattern file over the built-in patterns; false with the reasons in
    /// errorText().
    bool loadOpPatterns(const QString &path);
    /// What the last failed load said (file:line:col lines), or empty.
    [[nodiscard]] QString errorText() const;

    [[nodiscard]] FunctionChooser *functionChooser() const { return m_function; }
    [[nodiscard]] QTableView *targetsView() const { return m_targets; }

private:
    QWidget *createModelPage();
    QWidget *createCostPage();
    QWidget *createExportPage();
    void refresh();
    void change(EngineSettings settings, const QString &text);
    bool reportProblems(const std::vector<cleave::Diagnostic> &problems);
    QString askForFile(const QString &title, const QString &filter);
    void addParam();

    Document *m_document;
    FunctionChooser *m_function;
    QListWidget *m_opSupport;
    QPushButton *m_unloadOpSupport;
    QLabel *m_latency;
    QPushButton *m_unloadLatency;
    QCheckBox *m_foldBatchNorm;
    QCheckBox *m_transparentStopFusion;
    QLabel *m_opPatterns;
    QPushButton *m_unloadOpPatterns;
    QLabel *m_blocks;
    PartitionListModel *m_partitions;
    QTableView *m_targets;
    QListWidget *m_params;
    QComboBox *m_paramName;
    QPushButton *m_removeParam;
    QCheckBox *m_liftConstants;
    QLabel *m_errors;
};

} // namespace cleave::ui
