// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/validation/Validation.h"
#include "ui/commands/ApplyAutoPlan.h"
#include "ui/docks/BalanceDock.h"

#include <QDialog>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QThread;

namespace cleave::ui {

class Document;

/// Partition ▸ Auto-partition…: K stages (or a device file) with the objective, cost source,
/// link and memory limit, or BYOC regions from op-support lists. The search runs on a worker
/// thread with progress and can be cancelled; its plan replaces the current one as ONE
/// undoable command, and applied() hands the cost settings to the Balance dock.
class AutoPartitionDialog : public QDialog
{
    Q_OBJECT

public:
    AutoPartitionDialog(Document *document, const BalanceSettings &current,
                        QWidget *parent = nullptr);
    ~AutoPartitionDialog() override;

signals:
    /// The proposal was applied with these cost settings.
    void applied(const cleave::ui::BalanceSettings &settings);

private:
    void run();
    /// The BYOC targets field ("dnnl=ops.json,llvm"): op-support lists per target and the fallback
    /// target; false (after fail()) when a list cannot be read.
    bool readTargets(std::vector<cleave::OpSupportList> &lists, std::string &fallback);
    void finish();
    void fail(const QString &message);
    bool readSettings(BalanceSettings &settings);

    Document *m_document;
    QSpinBox *m_stages;
    QLineEdit *m_devices;
    QComboBox *m_objective;
    QComboBox *m_level;
    QLineEdit *m_latency;
    QDoubleSpinBox *m_flopsRate;
    QLineEdit *m_bandwidth;
    QLineEdit *m_linkLatency;
    QLineEdit *m_memory;
    QLineEdit *m_targets;
    QSpinBox *m_minRegion;
    QProgressBar *m_progress;
    QLabel *m_status;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QThread *m_worker = nullptr;
    std::atomic<bool> m_cancelled { false };
    // What the worker produces (read after it finished).
    std::vector<ProposedPartition> m_proposal;
    QString m_error;
    QString m_description;
    BalanceSettings m_settings;
};

} // namespace cleave::ui
