// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/FunctionView.h"
#include "core/graph/Graph.h"
#include "core/graph/Ids.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cleave {

class WeightFollowers;

/// One partition of a plan: a stable id (never reused within a plan, except that undoing the
/// edit that created it frees it again), a user-visible name, the
/// target it is compiled for ("llvm", "cuda", a BYOC compiler name) and a colour index.
struct Partition
{
    PartitionId id;
    std::string name;
    std::string target = "llvm";
    int colour = 0;

    friend bool operator==(const Partition &, const Partition &) = default;
};

/// A partition for PartitionPlan::appendPartitions: its name, target, colour index (-1: the
/// palette's next) and the nodes it takes.
struct PartitionSpec
{
    std::string name;
    std::string target = "llvm";
    int colour = -1;
    std::vector<NodeId> nodes;
};

/// A `graph_split` split point: cut after the `index`-th (0-based) call of `op` in program order.
struct SplitPoint
{
    std::string op;
    std::size_t index = 0;
};

/// The undo record of one plan edit, returned by every editing function after the edit has been
/// applied. `revert()` undoes it and `apply()` redoes it; both cost O(changes + partitions).
/// Besides the delta it carries what the edit has to tell the user (implied and ignored cut
/// edges, diagnostics explaining a refused edit).
struct PlanEdit
{
    struct Change
    {
        NodeId node;
        PartitionId before;
        PartitionId after;
        friend bool operator==(const Change &, const Change &) = default;
    };

    std::vector<Change> changes;
    std::vector<Partition> partitionsBefore;
    std::vector<Partition> partitionsAfter;
    std::vector<EdgeRef> crossedBefore; ///< Explicitly cut edges before (when crossedChanged).
    std::vector<EdgeRef> crossedAfter;
    bool crossedChanged = false;
    std::uint32_t nextIdBefore = 0; ///< The id counter before the edit (restored by revert()).
    std::uint32_t nextIdAfter = 0;

    std::vector<EdgeRef> impliedEdges; ///< Cuts: severed edges the line did not cross.
    std::vector<EdgeRef> ignoredEdges; ///< Cuts: crossed edges whose ends stay on one side.
    /// Cuts with whole groups: the operators moved only to keep a group whole (the cut snapped).
    std::size_t snappedNodes = 0;
    std::vector<Diagnostic> diagnostics; ///< Why an edit was refused, or what it noticed.

    /// True when the edit changed nothing (a refused edit, or a no-op).
    [[nodiscard]] bool isEmpty() const;
    /// The partitions that exist after the edit but not before, in plan order.
    [[nodiscard]] std::vector<PartitionId> createdPartitions() const;
};

/// A partition plan over ONE function of a Graph (its main function by default): ordered
/// partitions and the partition of every assignable node (operator calls, If, Match, Tuple,
/// TupleGetItem). Inputs, constants and function values are not assigned: constants follow their
/// consumers. The plan refers to the graph (which must outlive it) and never copies it; the
/// assignment is a vector indexed by node index.
///
/// Structural nodes: Tuple and TupleGetItem are assigned like operators, so every edit follows
/// docs/DESIGN.md §3.2 on the plain DAG (a cut after `nn.batch_norm` leaves its `%n.0` projection
/// in the later partition, as graph_split does). When a tuple value crosses, the boundary carries
/// its fields instead (BoundaryTensor::field) and validation warns (`partition.tuple_crossing`).
/// Reads from nested scopes (`if` branches, `match` clauses, fused function literals) count as
/// reads by the node that owns the scope (see FunctionView).
class PartitionPlan
{
public:
    /// A plan with one partition ("stage0") holding every assignable node of `function`.
    explicit PartitionPlan(const Graph &graph, FunctionId function = {});
    /// A plan sharing a prebuilt view; with `assignAll` false it starts with no partitions.
    PartitionPlan(std::shared_ptr<const FunctionView> view, bool assignAll);

    [[nodiscard]] const Graph &graph() const { return m_view->graph(); }
    [[nodiscard]] FunctionId function() const { return m_view->function(); }
    [[nodiscard]] const FunctionView &view() const { return *m_view; }
    /// The view shared, for work that outlives the plan (a background search).
    [[nodiscard]] const std::shared_ptr<const FunctionView> &sharedView() const { return m_view; }

    /// Partitions in plan (pipeline) order.
    [[nodiscard]] const std::vector<Partition> &partitions() const { return m_partitions; }
    [[nodiscard]] std::size_t partitionCount() const { return m_partitions.size(); }
    /// The partition with `id`, or nullptr.
    [[nodiscard]] const Partition *partition(PartitionId id) const;
    /// Position of `id` in partitions(), or -1.
    [[nodiscard]] int indexOf(PartitionId id) const
    {
        return id.isValid() && id.index() < m_indexOf.size() ? m_indexOf[id.index()] : -1;
    }
    /// The partition of an assignable node, or an invalid id (unassigned or not assignable).
    [[nodiscard]] PartitionId partitionOf(NodeId node) const { return m_assignment[node.index()]; }
    /// Number of nodes assigned to `id`.
    [[nodiscard]] std::size_t nodeCount(PartitionId id) const;
    /// The nodes of a partition in program order (O(nodes of the function)).
    [[nodiscard]] std::vector<NodeId> nodesOf(PartitionId id) const;
    /// Edges explicitly crossed by cut lines that are still boundary edges (sorted).
    [[nodiscard]] const std::vector<EdgeRef> &crossedEdges() const { return m_crossed; }
    /// The edge from `from` to `to`: the first output of `from` that `to` (or a node nested in
    /// it) reads; an invalid edge when they are not adjacent.
    [[nodiscard]] EdgeRef edgeBetween(NodeId from, NodeId to) const;

    // --- edits: each applies itself and returns its undo record ------------------------------
    /// Cuts the given edges exactly as docs/DESIGN.md §3.2 says (D = targets + descendants; every
    /// partition holding an end of a crossed edge splits into P∖D followed by P∩D).
    ///
    /// `wholeGroups` (fused blocks shown collapsed) snaps the cut to their boundaries: a group
    /// that D reaches joins D whole, with its descendants, until no group straddles the cut, so
    /// a stroke never splits a kernel. The severed edges the line did not cross are reported as
    /// implied edges, as for any other cut.
    PlanEdit cutAcrossEdges(const std::vector<EdgeRef> &edges,
                            const std::vector<std::vector<NodeId>> &wholeGroups = {});
    /// Cuts after `node` in program order, as `--cut-after` at that node does: every assignable
    /// node after it moves to a new partition after its own (cutAfterOp at a node). Nothing
    /// changes when `node` is the last node or not a node of the function (a `cut.not_a_node`
    /// error then says why).
    PlanEdit cutAfterNode(NodeId node);
    /// `graph_split` compatible: cut after the `index`-th call of `op` in program order.
    PlanEdit cutAfterOp(const std::string &op, std::size_t index);
    /// Several split points at once: one more partition per distinct point.
    PlanEdit cutAfterOps(const std::vector<SplitPoint> &points);
    /// Cuts before each group of nodes: for every group, D is the group plus all its
    /// descendants, and every partition holding nodes on both sides of D splits into P∖D
    /// followed by P∩D (as a cut line does, but without recording crossed edges). Used to cut
    /// after fused blocks: a group is everything that comes after the chosen block.
    PlanEdit cutBeforeNodes(const std::vector<std::vector<NodeId>> &groups);
    /// Moves the nodes into a new partition placed after the partitions that feed them.
    /// Partitions left empty are removed.
    PlanEdit partitionFromSelection(const std::vector<NodeId> &nodes);
    /// Moves the nodes into partition `target`. Partitions left empty are removed.
    PlanEdit assignToPartition(const std::vector<NodeId> &nodes, PartitionId target);
    /// Moves a convex selection into a new partition; the rest of each partition it came from
    /// splits into a before-part (kept in place) and an after-part (its descendants, placed
    /// after the new partition), so the order stays acyclic. Refuses non-convex selections.
    PlanEdit isolateSelection(const std::vector<NodeId> &nodes);
    /// Merges the partitions into the first of them (in plan order); the others are removed.
    PlanEdit mergePartitions(const std::vector<PartitionId> &ids);
    PlanEdit renamePartition(PartitionId id, std::string name);
    PlanEdit setTarget(PartitionId id, std::string target);
    /// Records edges as crossed by a cut line without moving nodes (restoring a saved plan);
    /// edges that do not cross between two partitions are dropped.
    PlanEdit markCrossedEdges(const std::vector<EdgeRef> &edges);
    /// Appends an empty partition (used when loading plan files). A `colour` index >= 0 keeps
    /// the colour the partition had where it came from (a saved project, the other level).
    PlanEdit appendPartition(const std::string &name, std::string target = "llvm", int colour = -1);
    /// Appends `specs` in order, each taking its assignable nodes, as one edit in
    /// O(nodes + partitions) (plan files may hold tens of thousands of partitions). Names are
    /// made unique as appendPartition makes them; partitions the nodes leave empty are removed.
    PlanEdit appendPartitions(std::vector<PartitionSpec> specs);
    /// Replaces every partition by `specs` (in order, names as given: a proposal named
    /// `stage0` does not become `stage0_1` beside the partition it replaces), as one edit;
    /// nodes no spec lists are left unassigned, specs that take no node are dropped.
    PlanEdit replacePartitions(std::vector<PartitionSpec> specs);

    /// Redoes an edit (the plan must be in the state the edit started from).
    void apply(const PlanEdit &edit);
    /// Undoes an edit (the plan must be in the state the edit left).
    void revert(const PlanEdit &edit);

    // --- selection analysis ------------------------------------------------------------------
    /// The smallest convex set containing the nodes: every node on a path between two of them.
    [[nodiscard]] std::vector<NodeId> convexClosure(const std::vector<NodeId> &nodes) const;
    /// A path that leaves the set and re-enters it (first and last node in the set), or empty
    /// when the set is convex.
    [[nodiscard]] std::vector<NodeId> nonConvexWitness(const std::vector<NodeId> &nodes) const;

    /// The nodes computed from weights and constants only, which every edit places with their
    /// first consumer (made on first use from the function's weight inputs; shared by copies).
    [[nodiscard]] const WeightFollowers &weightFollowers() const;

    /// Plans are equal when partitions, assignment and crossed edges are equal.
    friend bool operator==(const PartitionPlan &a, const PartitionPlan &b);

private:
    class Recorder;
    friend class Recorder;

    void setAssignment(NodeId node, PartitionId p);
    void rebuildIndex();
    PartitionId newPartitionId();
    Partition makePartition(const std::string &name = {});
    std::string uniqueName(const std::string &base) const;
    std::vector<NodeId> assignableSubset(const std::vector<NodeId> &nodes) const;
    /// Splits every candidate partition P holding nodes in and out of D into P∖D followed by
    /// P∩D placed right after it; `split` receives the partitions that were split.
    void splitByMask(const std::vector<NodeId> &dNodes, const std::vector<PartitionId> &candidates,
                     Recorder &rec, std::vector<PartitionId> &split);
    void removeEmptiedPartitions(const PlanEdit &edit, PartitionId keep);
    /// Appends the partitions of `specs` and assigns their nodes (appendPartitions' work).
    void appendSpecs(std::vector<PartitionSpec> specs, Recorder &rec);
    /// Places every weight-only node (weightFollowers()) in the earliest partition among those
    /// of its consumers when that partition has the same target, so weights never travel
    /// between stages because of where an edit left their preprocessing (and a BYOC region gets
    /// no op it was not given); partitions this leaves empty are removed. Run by every edit.
    void followConsumers(Recorder &rec);
    /// Positions in the view's order of the split points, ascending and distinct; an error per
    /// point that names no call.
    [[nodiscard]] std::vector<std::int32_t>
    splitPositions(const std::vector<SplitPoint> &points,
                   std::vector<Diagnostic> &diagnostics) const;
    /// Cuts after each position (ascending), as successive cutAfterOp calls would, in O(N + P).
    void cutAfterPositions(const std::vector<std::int32_t> &positions, Recorder &rec);

    std::shared_ptr<const FunctionView> m_view;
    std::vector<Partition> m_partitions;
    std::vector<PartitionId> m_assignment; // per node
    std::vector<std::uint32_t> m_counts; // per PartitionId value
    std::vector<int> m_indexOf; // per PartitionId value
    std::vector<EdgeRef> m_crossed;
    std::uint32_t m_nextId = 0;
    mutable std::shared_ptr<const WeightFollowers> m_followers;
};

} // namespace cleave
