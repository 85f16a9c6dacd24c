// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/graph/ModelDiff.h"

#include <QColor>
#include <QDockWidget>

#include <functional>
#include <memory>
#include <vector>

class QAction;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace cleave::ui {

class CanvasWidget;
class Document;
class LevelView;

/// File ▸ Compare with…: the open model against a second one (another export, the re-import
/// after a pass), matched by diffModels (core/graph/ModelDiff). The dock lists the added,
/// removed and changed nodes (op, attributes, types, inputs: before → after), with a legend;
/// the canvas rings removed and changed nodes in their kind's colour (added nodes exist only
/// in the other model: clicking one focuses the nodes it reads). Clicking an entry focuses its
/// node; Clear (or opening another model) ends the comparison.
class CompareDock : public QDockWidget
{
    Q_OBJECT

public:
    CompareDock(Document *document, LevelView *levels, CanvasWidget *canvas,
                QWidget *parent = nullptr);
    ~CompareDock() override;

    /// File ▸ Compare with…: asks for the other model (pathProvider) and compares.
    [[nodiscard]] QAction *compareAction() const { return m_compareAction; }
    /// Who picks the other model (default: a file dialog); returns an empty path to cancel.
    void setPathProvider(std::function<QString()> provider)
    {
        m_pathProvider = std::move(provider);
    }
    /// Compares the open model with the model at `path` and shows the dock; false (and the
    /// reason, with file:line:column, in the dock) when that model cannot be read.
    bool compareWith(const QString &path);
    /// Ends the comparison: empty list, no marks on the canvas.
    void clear();

    [[nodiscard]] const cleave::ModelDiff &diff() const { return m_diff; }
    [[nodiscard]] bool isComparing() const { return m_other != nullptr; }
    [[nodiscard]] QTreeWidget *list() const { return m_list; }
    [[nodiscard]] QPushButton *clearButton() const { return m_clear; }
    /// The legend's text for each kind ("removed 1"), in the order added, removed, changed.
    [[nodiscard]] QStringList legend() const;
    /// The colour of a kind's ring and legend chip.
    static QColor kindColour(cleave::NodeDifference::Kind kind);

signals:
    /// Asks the editor to select and centre these nodes of the open model.
    void focusRequested(const std::vector<cleave::NodeId> &nodes);

private:
    void askAndCompare();
    void fill();
    void applyMarks();
    void activate(QTreeWidgetItem *item);
    /// The nodes of the open model an entry points at: its own node, or for an added node the
    /// nodes (same keys) that produce its inputs.
    [[nodiscard]] std::vector<cleave::NodeId> focusNodes(const cleave::NodeDifference &d) const;

    Document *m_document;
    LevelView *m_levels;
    CanvasWidget *m_canvas;
    std::unique_ptr<cleave::Graph> m_other;
    cleave::ModelDiff m_diff;
    std::function<QString()> m_pathProvider;
    QAction *m_compareAction;
    QLabel *m_header;
    std::vector<QLabel *> m_legend;
    QTreeWidget *m_list;
    QPushButton *m_clear;
};

} // namespace cleave::ui
