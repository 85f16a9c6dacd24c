// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/ModelSummary.h"
#include "core/graph/Graph.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>

namespace cleave::ui {

/// The model open in the editor: the imported graph, where it came from, its summary, and the
/// undo stack that plan edits will be pushed on. A failed load leaves the document unchanged.
class Document : public QObject
{
    Q_OBJECT

public:
    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    /// Imports `path` and, on success, makes it the document's graph. On failure the current graph
    /// stays, and `error` (when given) receives the diagnostics as `file:line:col: error: ...`.
    bool open(const QString &path, QString *error = nullptr);
    /// Makes `graph` (imported from `path`) the document's graph and clears the undo stack.
    void setGraph(std::unique_ptr<cleave::Graph> graph, const QString &path);

    /// The open graph, or nullptr before the first successful open().
    [[nodiscard]] const cleave::Graph *graph() const { return m_graph.get(); }
    [[nodiscard]] bool hasGraph() const { return m_graph != nullptr; }
    [[nodiscard]] const QString &filePath() const { return m_filePath; }
    /// The file name without its folder, or an empty string.
    [[nodiscard]] QString fileName() const;
    [[nodiscard]] const cleave::ModelSummary &summary() const { return m_summary; }
    [[nodiscard]] QUndoStack *undoStack() { return &m_undoStack; }

signals:
    /// The graph was replaced. The previous graph is still alive while this is emitted, so
    /// listeners may reset models that point into it.
    void graphChanged();

private:
    std::unique_ptr<cleave::Graph> m_graph;
    QString m_filePath;
    cleave::ModelSummary m_summary;
    QUndoStack m_undoStack;
};

} // namespace cleave::ui
