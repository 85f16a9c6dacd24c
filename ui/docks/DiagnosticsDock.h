// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QDockWidget>

#include <vector>

class QTableView;

namespace cleave::ui {

class DiagnosticListModel;
class Document;

/// The "Diagnostics" dock: the plan's validation findings (severity icon, code, message).
/// Double-clicking (or Enter on) a row asks the canvas to focus the nodes it names.
class DiagnosticsDock : public QDockWidget
{
    Q_OBJECT

public:
    explicit DiagnosticsDock(Document *document, QWidget *parent = nullptr);

    [[nodiscard]] DiagnosticListModel *model() const { return m_model; }
    [[nodiscard]] QTableView *view() const { return m_view; }

signals:
    void focusRequested(const std::vector<cleave::NodeId> &nodes);

private:
    DiagnosticListModel *m_model;
    QTableView *m_view;
};

} // namespace cleave::ui
