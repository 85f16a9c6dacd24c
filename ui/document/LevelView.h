// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/partition/BlockGraph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cleave {
class FunctionView;
class LayoutCache;
struct LayoutGraph;
} // namespace cleave

namespace cleave::ui {

class Document;
class LevelPrefetch;
class RegionGeometryStore;
struct PreparedLevel;

/// What the canvas shows of the document: every operator (Ops level) or one node per fused block
/// (Blocks level, FuseOps kernels, each expandable in place), with the plan converted to that
/// level. Plans, cuts and selections always act on the operators, so ids are translated here:
/// cut edges and selections down to operators (modelEdges(), modelNodes()), plans, partitions
/// and focus requests up (shownNodes(), shownEdges(), shownPartition()).
///
/// The view follows its document: a new graph resets it (blocks collapsed); an edit converts the
/// plan again at Blocks level. Observers (the canvas) follow graphShown() and planShown(). The
/// blocks are the document's (Document::blocks(), computed once per graph).
///
/// The Blocks level (none expanded) can be prepared in the background while Operators are shown
/// (prepareBlocks(): LevelPrefetch collapses, builds the drawn graph and lays it out into the
/// canvas' cache); the switch then takes it as it is. A level made at the switch is kept the
/// same way, so that switching back and forth collapses the blocks once per graph.
class LevelView : public QObject
{
    Q_OBJECT

public:
    enum class Level { Ops, Blocks };

    explicit LevelView(Document *document, QObject *parent = nullptr);
    ~LevelView() override;

    [[nodiscard]] Level level() const { return m_level; }
    /// Switches the level (the shown graph is replaced: graphShown(), planShown()).
    void setLevel(Level level);
    /// At Blocks level: shows the block behind the shown node `shown` as its operators. False
    /// when `shown` is not a collapsed block of several nodes.
    bool expandBlock(cleave::NodeId shown);
    /// Collapses every expanded block again.
    void collapseAllBlocks();
    [[nodiscard]] bool hasExpandedBlocks() const { return !m_expanded.empty(); }
    /// Starts preparing the Blocks level (none expanded) off the UI thread, laid out into
    /// `cache` with its region geometry left in `regions` (may be null), unless it is prepared
    /// or being prepared, or the blocks collapse nothing (every block is one operator). False
    /// when nothing was started.
    bool prepareBlocks(std::shared_ptr<cleave::LayoutCache> cache,
                       std::shared_ptr<RegionGeometryStore> regions = nullptr);
    /// The background preparation of the Blocks level (its ready() says when it is there).
    [[nodiscard]] LevelPrefetch *prefetch() const { return m_prefetch; }
    /// The prepared Blocks level of the open graph (none expanded), or null.
    [[nodiscard]] const PreparedLevel *preparedBlocks() const;
    [[nodiscard]] bool isBlocksPrepared() const { return preparedBlocks() != nullptr; }

    /// The graph shown (the document's, or the block graph), its function and the key its
    /// layout is cached under; nullptr without a document graph.
    [[nodiscard]] const cleave::Graph *shownGraph() const;
    [[nodiscard]] cleave::FunctionId shownFunction() const;
    [[nodiscard]] std::string layoutKey() const;
    /// The shown graph as drawn, when it was made off the UI thread with the document (at Ops
    /// level: Document::preparedLayoutGraph()), else null.
    [[nodiscard]] std::shared_ptr<const cleave::LayoutGraph> shownLayoutGraph() const;
    /// The blocks to frame on the canvas (at Ops level, the document's; none at Blocks level).
    [[nodiscard]] const std::vector<cleave::FusedBlock> &framedBlocks() const;
    /// The plan and boundary at the shown level (nullptr without a plan, or when the plan
    /// cannot be converted).
    [[nodiscard]] const cleave::PartitionPlan *shownPlan() const;
    [[nodiscard]] const cleave::BoundaryTable *shownBoundary() const;
    /// At Blocks level: the block-level graph (nullptr at Ops level).
    [[nodiscard]] const cleave::BlockGraph *blockGraph() const { return m_blockGraph.get(); }

    /// The model's nodes behind shown nodes (identity at Ops level), each once, in order.
    [[nodiscard]] std::vector<cleave::NodeId>
    modelNodes(const std::vector<cleave::NodeId> &shown) const;
    /// The shown nodes showing model nodes (identity at Ops level), each once, in order.
    [[nodiscard]] std::vector<cleave::NodeId>
    shownNodes(const std::vector<cleave::NodeId> &model) const;
    /// The model edges behind shown edges: a crossed block edge stands for every op edge
    /// behind it.
    [[nodiscard]] std::vector<cleave::EdgeRef>
    modelEdges(const std::vector<cleave::EdgeRef> &shown) const;
    /// The shown edges standing for model edges; edges inside a collapsed block have none.
    [[nodiscard]] std::vector<cleave::EdgeRef>
    shownEdges(const std::vector<cleave::EdgeRef> &model) const;
    /// At Blocks level, the model nodes of every block shown collapsed (several operators
    /// drawn as one node): a cut drawn here keeps each of them whole. Empty at Ops level.
    [[nodiscard]] std::vector<std::vector<cleave::NodeId>> collapsedBlocks() const;
    /// The shown plan's partition for a model partition (the same id at Ops level; at Blocks
    /// level the converted partition of the same name). Invalid when there is none.
    [[nodiscard]] cleave::PartitionId shownPartition(cleave::PartitionId model) const;

    /// The shown nodes a finding marks as wrong where they are (an op its partition's target
    /// does not support: `target.unsupported_op`), each with the finding's message.
    [[nodiscard]] std::vector<std::pair<cleave::NodeId, std::string>> shownProblems() const;

signals:
    /// The shown graph was replaced (a new document graph, a level switch, an expanded or
    /// collapsed block): lay out shownGraph() again. planShown() follows.
    void graphShown();
    /// The shown plan changed. `edit` is the document's edit when the shown plan is the
    /// document's own plan (Ops level) and one edit changed it, else nullptr (redraw all).
    void planShown(const cleave::PlanEdit *edit);
    void levelChanged(cleave::ui::LevelView::Level level);
    /// Something the user should know about the shown plan (a cut runs through a block).
    void notice(const QString &message);

private:
    void rebuild(bool graphChanged);
    /// The key the layout of `level` with these blocks expanded is cached under.
    [[nodiscard]] std::string layoutKeyFor(Level level,
                                           const std::vector<std::size_t> &expanded) const;
    void convertPlan();
    void onPlanEdited(const cleave::PlanEdit &edit);

    Document *m_document;
    Level m_level = Level::Ops;
    std::vector<std::size_t> m_expanded; ///< Blocks shown as their ops at Blocks level.
    LevelPrefetch *m_prefetch;
    std::shared_ptr<const cleave::BlockGraph> m_blockGraph;
    std::shared_ptr<const cleave::LayoutGraph> m_blockDrawn; ///< m_blockGraph drawn, when made.
    std::shared_ptr<const cleave::FunctionView> m_blockView; ///< Its main function, for plans.
    std::optional<cleave::PartitionPlan> m_blockPlan;
    cleave::BoundaryTable m_blockBoundary;
};

} // namespace cleave::ui
