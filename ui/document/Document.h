// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/ModelSummary.h"
#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/session/EngineSettings.h"
#include "core/session/PlanPipeline.h"
#include "core/validation/Validation.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace cleave {
struct LayoutGraph;
} // namespace cleave

namespace cleave::ui {

struct PreparedModel;

/// The model open in the editor: the imported graph, where it came from, its summary, the
/// partition plan over one of its functions (main unless the user chose another), the engine
/// settings (op-support lists, latency table, fusion options, parameters), the plan's boundary
/// and diagnostics, and the undo stack every plan edit is pushed on. A failed load leaves the
/// document unchanged.
///
/// Plans are edited only through commands (ui/commands), which call runEdit() once and then
/// applyEdit() / revertEdit() with the core PlanEdit; after each of them the boundary and the
/// validation are recomputed and planEdited() says what changed, then planChanged(). A new plan
/// (a new graph, an opened project) emits planReset() and planChanged(). Views that can update
/// only what an edit touched follow planEdited() and planReset(); the others planChanged().
class Document : public QObject
{
    Q_OBJECT

public:
    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    /// Imports `path` and, on success, makes it the document's graph. On failure the current graph
    /// stays, and `error` (when given) receives the diagnostics as `file:line:col: error: ...`.
    bool open(const QString &path, QString *error = nullptr);
    /// Makes `graph` (imported from `path`) the document's graph with a one-partition plan and
    /// clears the undo stack.
    void setGraph(std::unique_ptr<cleave::Graph> graph, const QString &path);
    /// Same with a given plan (which must refer to `graph`) and engine settings.
    void setGraph(std::unique_ptr<cleave::Graph> graph, const QString &path,
                  std::optional<cleave::PartitionPlan> plan, EngineSettings settings = {});

    /// Makes a model prepared off the UI thread (ModelLoader) the document's graph, taking its
    /// summary as it is, its blocks when `settings` fuse as the defaults do, and its
    /// one-partition plan with that plan's boundary and findings unless `plan` (which must refer
    /// to the model's graph) or non-default checks are given. Clears the undo stack. `model` is
    /// left empty.
    void setPrepared(PreparedModel &&model, const QString &path,
                     std::optional<cleave::PartitionPlan> plan = std::nullopt,
                     EngineSettings settings = {});

    /// The open graph, or nullptr before the first successful open().
    [[nodiscard]] const cleave::Graph *graph() const { return m_graph.get(); }
    [[nodiscard]] bool hasGraph() const { return m_graph != nullptr; }
    /// The open graph, shared: a background job (LevelPrefetch) holds it while it reads it, so
    /// the graph outlives the job even when another model replaces it meanwhile. The graph is
    /// never modified once it is the document's.
    [[nodiscard]] std::shared_ptr<const cleave::Graph> sharedGraph() const { return m_graph; }
    [[nodiscard]] const QString &filePath() const { return m_filePath; }
    /// The file name without its folder, or an empty string.
    [[nodiscard]] QString fileName() const;
    [[nodiscard]] const cleave::ModelSummary &summary() const { return m_summary; }
    [[nodiscard]] QUndoStack *undoStack() { return &m_undoStack; }

    /// The plan over the partitioned function, or nullptr without a graph.
    [[nodiscard]] const cleave::PartitionPlan *plan() const { return m_plan ? &*m_plan : nullptr; }
    [[nodiscard]] const cleave::BoundaryTable &boundary() const { return m_boundary; }
    /// The findings of the current plan (PlanPipeline::check: every validation rule).
    [[nodiscard]] const std::vector<cleave::Diagnostic> &diagnostics() const
    {
        return m_diagnostics;
    }
    [[nodiscard]] int errorCount() const { return m_errors; }
    [[nodiscard]] int warningCount() const { return m_warnings; }
    /// The FuseOps blocks of the partitioned function under the settings' fusion options
    /// (computed on first use).
    [[nodiscard]] const std::vector<cleave::FusedBlock> &blocks() const;
    /// The same blocks, shared: what a worker reads while the document moves on (a new model
    /// or other settings replace them, never change them in place).
    [[nodiscard]] std::shared_ptr<const std::vector<cleave::FusedBlock>> sharedBlocks() const;
    /// The index into blocks() of the block holding `node`, or -1.
    [[nodiscard]] int blockOf(cleave::NodeId node) const;
    /// The drawn graph of `function` as the loader made it off the UI thread (it makes the
    /// main function's), or null: the canvas then makes it itself.
    [[nodiscard]] std::shared_ptr<const cleave::LayoutGraph>
    preparedLayoutGraph(cleave::FunctionId function) const;

    /// The engine options the plan is validated, costed, fused and exported with.
    [[nodiscard]] const EngineSettings &settings() const { return m_settings; }
    /// The plan pipeline of the open model with the settings (null without a model): what the
    /// plan is checked with, and the only way to export it (PlanPipeline::exportPlan refuses an
    /// invalid plan), as in cleave-cli.
    [[nodiscard]] const cleave::PlanPipeline *pipeline() const
    {
        return m_pipeline ? &*m_pipeline : nullptr;
    }
    /// Replaces the settings (for commands: ChangeEngineSettings): re-validates, recomputes the
    /// blocks when the fusion options changed (blocksChanged()), then settingsChanged(),
    /// planReset() and planChanged().
    void setSettings(EngineSettings settings);
    /// Replaces the plan as a whole (for commands: ChooseFunction), possibly over another
    /// function of the graph: blocksChanged() when the function changed, then planReset() and
    /// planChanged().
    void replacePlan(cleave::PartitionPlan plan);
    /// The functions a plan can be made over: global functions with a dataflow body (not the
    /// TIR PrimFuncs of a Relax module), the main function first.
    [[nodiscard]] std::vector<cleave::FunctionId> partitionableFunctions() const;

    /// The project file the document was loaded from or saved to, or empty.
    [[nodiscard]] const QString &projectPath() const { return m_projectPath; }
    void setProjectPath(const QString &path);
    /// True when there are edits since the last save (or since the model was opened).
    [[nodiscard]] bool isModified() const { return !m_undoStack.isClean(); }

    /// True when `edit` changed only partition records (names, targets) and kept every partition,
    /// its place in the plan and its nodes: views then refresh those rows or labels only.
    [[nodiscard]] static bool changesRecordsOnly(const cleave::PlanEdit &edit);
    /// The partitions whose record changed between before and after `edit` (same ids), for
    /// edits where changesRecordsOnly() holds.
    [[nodiscard]] static std::vector<cleave::PartitionId>
    changedRecords(const cleave::PlanEdit &edit);

    /// Runs a core edit on the plan, then refreshes and emits planChanged() (unless the edit
    /// changed nothing, in which case editRefused() carries its diagnostics). For commands.
    cleave::PlanEdit runEdit(const std::function<cleave::PlanEdit(cleave::PartitionPlan &)> &edit);
    /// Redoes / undoes an edit made by runEdit(). For commands.
    void applyEdit(const cleave::PlanEdit &edit);
    void revertEdit(const cleave::PlanEdit &edit);

signals:
    /// The graph was replaced. The previous graph is still alive while this is emitted, so
    /// listeners may reset models that point into it.
    void graphChanged();
    /// The plan changed (an edit, an undo, a redo, or a new graph): boundary and diagnostics are
    /// up to date. Emitted after planEdited() / planReset().
    void planChanged();
    /// An edit was applied (`undone` false: a first run or a redo) or reverted (`undone` true):
    /// the plan, boundary and diagnostics already reflect it. Partitions the edit touched are
    /// those whose records or nodes `edit` lists.
    void planEdited(const cleave::PlanEdit &edit, bool undone);
    /// The plan was replaced as a whole (a new graph or project).
    void planReset();
    /// A fresh edit cut edges its line did not cross (skip connections, second branches).
    void edgesImplied(const std::vector<cleave::EdgeRef> &edges);
    /// An edit was refused or changed nothing; `message` says why.
    void editRefused(const QString &message);
    void projectPathChanged();
    /// The engine settings changed (planReset() and planChanged() follow).
    void settingsChanged();
    /// The fused blocks or the partitioned function changed: views of the graph lay it out
    /// again (planReset() follows).
    void blocksChanged();

private:
    void refresh();
    /// Replaces the graph and the plan and resets what depends on them (blocks, summary, undo).
    std::shared_ptr<const cleave::Graph> replaceGraph(std::unique_ptr<cleave::Graph> graph,
                                                      const QString &path,
                                                      std::optional<cleave::PartitionPlan> plan,
                                                      EngineSettings settings);
    /// What validation checks with `settings` for the open graph's writer.
    /// Makes the pipeline anew from the graph and the settings.
    void rebuildPipeline();
    void announceNewGraph();
    void indexBlocks() const;

    std::shared_ptr<const cleave::Graph> m_graph;
    QString m_filePath;
    QString m_projectPath;
    cleave::ModelSummary m_summary;
    std::optional<cleave::PartitionPlan> m_plan;
    EngineSettings m_settings;
    std::optional<cleave::PlanPipeline> m_pipeline; // of m_graph with m_settings
    cleave::BoundaryTable m_boundary;
    std::vector<cleave::Diagnostic> m_diagnostics;
    int m_errors = 0;
    int m_warnings = 0;
    mutable std::shared_ptr<const std::vector<cleave::FusedBlock>> m_blocks;
    mutable std::vector<int> m_blockOfNode;
    std::shared_ptr<const cleave::LayoutGraph> m_layoutGraph; // from the loader
    QUndoStack m_undoStack;
};

} // namespace cleave::ui
