// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The cutting and selection edits of PartitionPlan (docs/DESIGN.md §3.2–3.4).
#include "core/graph/NodeText.h"
#include "core/partition/PartitionPlan.h"
#include "core/partition/PlanRecorder.h"
#include "core/partition/Reachability.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace cleave {

namespace {

Diagnostic makeDiagnostic(Severity s, std::string code, std::string message,
                          std::vector<NodeId> nodes = {})
{
    return Diagnostic::make(s, std::move(code), std::move(message), std::move(nodes));
}

/// Per node index, the index of the group in `groups` holding it (-1: none); empty when there
/// are no groups.
std::vector<std::int32_t> groupIndex(const FunctionView &view,
                                     const std::vector<std::vector<NodeId>> &groups)
{
    std::vector<std::int32_t> groupOf;
    if (groups.empty())
        return groupOf;
    groupOf.assign(view.graph().nodeCount(), -1);
    for (std::size_t k = 0; k < groups.size(); ++k) {
        for (NodeId n : groups[k]) {
            if (n.isValid() && n.index() < groupOf.size() && view.contains(n))
                groupOf[n.index()] = static_cast<std::int32_t>(k);
        }
    }
    return groupOf;
}

/// D of a cut: the `seeds` (nodes of the function; others are skipped) and all their
/// descendants, marked in `inD` and listed in `queue` (both reset). With `groupOf` (groupIndex
/// of `groups`), a group any node of D belongs to joins D whole, with the descendants of its
/// members.
void descendantClosure(const FunctionView &view, const std::vector<NodeId> &seeds,
                       const std::vector<std::vector<NodeId>> &groups,
                       const std::vector<std::int32_t> &groupOf, std::vector<std::uint8_t> &inD,
                       std::vector<NodeId> &queue)
{
    std::fill(inD.begin(), inD.end(), 0);
    queue.clear();
    std::vector<std::uint8_t> groupTaken(groupOf.empty() ? 0 : groups.size(), 0);
    const auto enter = [&](NodeId n) {
        if (inD[n.index()])
            return;
        inD[n.index()] = 1;
        queue.push_back(n);
        const std::int32_t k = groupOf.empty() ? -1 : groupOf[n.index()];
        if (k < 0 || groupTaken[static_cast<std::size_t>(k)])
            return;
        groupTaken[static_cast<std::size_t>(k)] = 1;
        for (NodeId member : groups[static_cast<std::size_t>(k)]) {
            if (member.isValid() && member.index() < inD.size() && view.contains(member)
                && !inD[member.index()]) {
                inD[member.index()] = 1;
                queue.push_back(member);
            }
        }
    };
    for (NodeId n : seeds) {
        if (n.isValid() && n.index() < inD.size() && view.contains(n))
            enter(n);
    }
    // The queue grows while it is walked: an index, not an iterator.
    for (std::size_t head = 0; head < queue.size(); ++head) { // NOLINT(modernize-loop-convert)
        for (const FlowEdge &e : view.outEdges(queue[head]))
            enter(e.consumer);
    }
}

/// Appends the edges entering D (`inD`) at the members of `group` that are in D.
void appendEntryEdges(const FunctionView &view, const std::vector<NodeId> &group,
                      const std::vector<std::uint8_t> &inD, std::vector<EdgeRef> &out)
{
    for (NodeId member : group) {
        if (!member.isValid() || member.index() >= inD.size() || !inD[member.index()])
            continue;
        for (const FlowEdge *in : view.inEdges(member)) {
            if (!inD[in->tensor.node.index()])
                out.push_back({ in->tensor, member });
        }
    }
}

} // namespace

void PartitionPlan::splitByMask(const std::vector<NodeId> &dNodes,
                                const std::vector<PartitionId> &candidates, Recorder &rec,
                                std::vector<PartitionId> &split)
{
    std::vector<std::uint32_t> dCount(m_nextId, 0);
    for (NodeId n : dNodes) {
        const PartitionId p = m_assignment[n.index()];
        if (p.isValid())
            ++dCount[p.index()];
    }
    std::unordered_map<std::uint32_t, PartitionId> target;
    std::vector<Partition> ordered;
    ordered.reserve(m_partitions.size() * 2);
    for (const Partition &p : m_partitions) {
        ordered.push_back(p);
        const bool candidate
            = std::find(candidates.begin(), candidates.end(), p.id) != candidates.end();
        const std::uint32_t inD = dCount[p.id.index()];
        if (!candidate || inD == 0 || inD == nodeCount(p.id))
            continue;
        Partition q = makePartition();
        q.target = p.target;
        target[p.id.value] = q.id;
        split.push_back(p.id);
        ordered.push_back(std::move(q));
    }
    if (target.empty())
        return;
    m_partitions = std::move(ordered);
    rebuildIndex();
    for (NodeId n : dNodes) {
        const PartitionId p = m_assignment[n.index()];
        if (!p.isValid())
            continue;
        const auto it = target.find(p.value);
        if (it != target.end())
            rec.set(n, it->second);
    }
}

PlanEdit PartitionPlan::cutAcrossEdges(const std::vector<EdgeRef> &edges,
                                       const std::vector<std::vector<NodeId>> &wholeGroups)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    const Graph &g = graph();
    std::vector<EdgeRef> cut;
    for (const EdgeRef &e : edges) {
        const bool known = e.consumer.isValid() && e.tensor.node.isValid()
            && e.tensor.node.index() < m_assignment.size() && m_view->contains(e.tensor.node)
            && edgeBetween(e.tensor.node, e.consumer).consumer.isValid()
            && m_view->isAssignable(e.consumer);
        if (!known) {
            edit.diagnostics.push_back(makeDiagnostic(Severity::Warning, "cut.unknown_edge",
                                                      "the cut names an edge that does not "
                                                      "exist in the function; ignored"));
            continue;
        }
        cut.push_back(e);
    }
    std::sort(cut.begin(), cut.end());
    cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
    if (cut.empty())
        return rec.finish();

    // D: the targets of the crossed edges and all their descendants. With whole groups, every
    // group D reaches joins it whole, and the descendants of its members in turn; `plain` keeps
    // D without them, to tell a crossed edge on one side of the line from one a group absorbed.
    const std::vector<std::int32_t> groupOf = groupIndex(*m_view, wholeGroups);
    std::vector<NodeId> targets;
    targets.reserve(cut.size());
    for (const EdgeRef &e : cut)
        targets.push_back(e.consumer);
    std::vector<std::uint8_t> inD(m_assignment.size(), 0);
    std::vector<NodeId> queue;
    std::vector<std::uint8_t> plain;
    if (!groupOf.empty()) {
        descendantClosure(*m_view, targets, {}, {}, inD, queue);
        plain = inD;
    }
    descendantClosure(*m_view, targets, wholeGroups, groupOf, inD, queue);
    const std::vector<std::uint8_t> &sameSide = groupOf.empty() ? inD : plain;
    std::vector<NodeId> dNodes;
    dNodes.reserve(queue.size());
    for (NodeId n : queue) {
        if (!m_view->isAssignable(n))
            continue;
        dNodes.push_back(n);
        if (!sameSide[n.index()])
            ++edit.snappedNodes;
    }

    std::vector<PartitionId> touched;
    std::vector<EdgeRef> effective;
    for (const EdgeRef &e : cut) {
        const NodeId p = e.tensor.node;
        if (!sameSide[p.index()] && inD[p.index()]) {
            // Inside a group the cut snapped past: the line now runs along the group's entry
            // edges, which count as crossed.
            const std::int32_t k = groupOf[e.consumer.index()] >= 0 ? groupOf[e.consumer.index()]
                                                                    : groupOf[p.index()];
            touched.push_back(m_assignment[e.consumer.index()]);
            if (k >= 0)
                appendEntryEdges(*m_view, wholeGroups[static_cast<std::size_t>(k)], inD, effective);
            continue;
        }
        if (inD[p.index()]) {
            edit.ignoredEdges.push_back(e);
            edit.diagnostics.push_back(
                makeDiagnostic(Severity::Warning, "cut.same_side",
                               "crossed edge " + g.key(p) + " -> " + g.key(e.consumer)
                                   + " has both ends on the same side of the cut; ignored",
                               { p, e.consumer }));
            continue;
        }
        effective.push_back(e);
        touched.push_back(m_assignment[e.consumer.index()]);
        if (m_view->isAssignable(p))
            touched.push_back(m_assignment[p.index()]);
    }

    std::sort(effective.begin(), effective.end());
    effective.erase(std::unique(effective.begin(), effective.end()), effective.end());

    // Remember which P∖D → P∩D edges exist before moving anything.
    std::vector<PartitionId> originalOf;
    originalOf.reserve(dNodes.size());
    for (NodeId n : dNodes)
        originalOf.push_back(m_assignment[n.index()]);

    std::vector<PartitionId> split;
    if (!touched.empty())
        splitByMask(dNodes, touched, rec, split);

    for (std::size_t i = 0; i < dNodes.size(); ++i) {
        const NodeId n = dNodes[i];
        const PartitionId from = originalOf[i];
        if (std::find(split.begin(), split.end(), from) == split.end())
            continue;
        for (const FlowEdge *e : m_view->inEdges(n)) {
            const NodeId p = e->tensor.node;
            if (!m_view->isAssignable(p) || inD[p.index()] || m_assignment[p.index()] != from)
                continue;
            const EdgeRef pe { e->tensor, n };
            if (std::binary_search(effective.begin(), effective.end(), pe))
                continue;
            if (std::find(edit.impliedEdges.begin(), edit.impliedEdges.end(), pe)
                == edit.impliedEdges.end())
                edit.impliedEdges.push_back(pe);
        }
    }

    for (const EdgeRef &e : effective) {
        if (m_view->isAssignable(e.tensor.node))
            m_crossed.push_back(e);
    }
    std::sort(m_crossed.begin(), m_crossed.end());
    m_crossed.erase(std::unique(m_crossed.begin(), m_crossed.end()), m_crossed.end());
    return rec.finish();
}

PlanEdit PartitionPlan::cutBeforeNodes(const std::vector<std::vector<NodeId>> &groups)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    std::vector<std::uint8_t> inD(m_assignment.size(), 0);
    std::vector<NodeId> queue;
    std::vector<NodeId> dNodes;
    std::vector<PartitionId> all;
    std::vector<PartitionId> split;
    for (const std::vector<NodeId> &group : groups) {
        descendantClosure(*m_view, group, {}, {}, inD, queue);
        dNodes.clear();
        for (NodeId n : queue) {
            if (m_view->isAssignable(n))
                dNodes.push_back(n);
        }
        all.clear();
        for (const Partition &p : m_partitions)
            all.push_back(p.id);
        splitByMask(dNodes, all, rec, split);
    }
    return rec.finish();
}

PlanEdit PartitionPlan::cutAfterNode(NodeId node)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    if (!node.isValid() || node.index() >= m_assignment.size() || !m_view->contains(node)
        || !m_view->isAssignable(node)) {
        edit.diagnostics.push_back(
            makeDiagnostic(Severity::Error, "cut.not_a_node",
                           "there is no operator node of the function to cut after"));
        return rec.finish();
    }
    cutAfterPositions({ m_view->position(node) }, rec);
    return rec.finish();
}

PlanEdit PartitionPlan::cutAfterOp(const std::string &op, std::size_t index)
{
    return cutAfterOps({ SplitPoint { op, index } });
}

std::vector<std::int32_t> PartitionPlan::splitPositions(const std::vector<SplitPoint> &points,
                                                        std::vector<Diagnostic> &diagnostics) const
{
    // One sweep over the order collects the positions of every requested operator (fused,
    // composite and BYOC calls can be named by their function or composite name).
    const auto &order = m_view->order();
    std::unordered_map<std::int32_t, std::vector<std::int32_t>> calls;
    std::vector<std::int32_t> keys;
    keys.reserve(points.size());
    for (const SplitPoint &sp : points) {
        keys.push_back(m_view->findOpKey(sp.op));
        if (keys.back() >= 0)
            calls.try_emplace(keys.back());
    }
    for (std::size_t i = 0; i < order.size() && !calls.empty(); ++i) {
        const std::int32_t op = m_view->opKey(order[i]);
        const std::int32_t composite = m_view->compositeKey(order[i]);
        if (const auto it = calls.find(op); it != calls.end())
            it->second.push_back(static_cast<std::int32_t>(i));
        if (composite != op) {
            if (const auto it = calls.find(composite); it != calls.end())
                it->second.push_back(static_cast<std::int32_t>(i));
        }
    }
    std::vector<std::int32_t> positions;
    for (std::size_t k = 0; k < points.size(); ++k) {
        const SplitPoint &sp = points[k];
        const auto it = calls.find(keys[k]);
        const std::size_t seen = it == calls.end() ? 0 : it->second.size();
        if (sp.index >= seen) {
            diagnostics.push_back(makeDiagnostic(
                Severity::Error, "cut.split_point_not_found",
                "no " + sp.op + ":" + std::to_string(sp.index) + " split point: the function has "
                    + std::to_string(seen) + " call(s) of " + sp.op));
            continue;
        }
        positions.push_back(it->second[sp.index]);
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    return positions;
}

void PartitionPlan::cutAfterPositions(const std::vector<std::int32_t> &positions, Recorder &rec)
{
    // Applied one after the other, ascending, each cut moves the part of every straddling
    // partition that lies after it into a new partition placed right after it. Computed in one
    // sweep, O(N + P): a partition's current last piece is split exactly when at least one cut
    // falls between two of its consecutive nodes, by the first such cut; the new pieces are made
    // in the order the sequential cuts would make them (by cut, then by partition order).
    const auto &order = m_view->order();
    struct Piece
    {
        std::size_t cut;
        int rank;
        PartitionId source;
        PartitionId id;
    };
    std::vector<int> rank(m_nextId, -1);
    for (std::size_t i = 0; i < m_partitions.size(); ++i)
        rank[m_partitions[i].id.index()] = static_cast<int>(i);
    std::vector<std::int64_t> cutsBeforeLast(m_nextId, -1); // cuts passed at the last node seen
    std::vector<std::int64_t> currentPiece(m_nextId, -1);
    std::vector<Piece> pieces;
    std::vector<std::pair<NodeId, std::size_t>> moved;
    std::size_t passed = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        while (passed < positions.size() && static_cast<std::size_t>(positions[passed]) < i)
            ++passed;
        const PartitionId p = m_assignment[order[i].index()];
        if (!p.isValid())
            continue;
        const std::int64_t last = cutsBeforeLast[p.index()];
        if (last >= 0 && static_cast<std::size_t>(last) < passed) {
            pieces.push_back({ static_cast<std::size_t>(last), rank[p.index()], p, {} });
            currentPiece[p.index()] = static_cast<std::int64_t>(pieces.size() - 1);
        }
        cutsBeforeLast[p.index()] = static_cast<std::int64_t>(passed);
        if (currentPiece[p.index()] >= 0)
            moved.emplace_back(order[i], static_cast<std::size_t>(currentPiece[p.index()]));
    }
    if (pieces.empty())
        return;
    std::vector<std::size_t> creation(pieces.size());
    for (std::size_t k = 0; k < creation.size(); ++k)
        creation[k] = k;
    std::stable_sort(creation.begin(), creation.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(pieces[a].cut, pieces[a].rank) < std::tie(pieces[b].cut, pieces[b].rank);
    });
    std::vector<std::vector<Partition>> after(m_partitions.size());
    for (std::size_t k : creation) {
        Partition q = makePartition();
        q.target = m_partitions[static_cast<std::size_t>(pieces[k].rank)].target;
        pieces[k].id = q.id;
        after[static_cast<std::size_t>(pieces[k].rank)].push_back(std::move(q));
    }
    // Each partition is followed by its pieces in the order they were cut off (ascending ids).
    std::vector<Partition> ordered;
    ordered.reserve(m_partitions.size() + pieces.size());
    for (std::size_t i = 0; i < m_partitions.size(); ++i) {
        ordered.push_back(m_partitions[i]);
        for (Partition &q : after[i])
            ordered.push_back(std::move(q));
    }
    m_partitions = std::move(ordered);
    rebuildIndex();
    for (const auto &[node, piece] : moved)
        rec.set(node, pieces[piece].id);
}

PlanEdit PartitionPlan::cutAfterOps(const std::vector<SplitPoint> &points)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    const std::vector<std::int32_t> positions = splitPositions(points, edit.diagnostics);
    if (edit.diagnostics.empty())
        cutAfterPositions(positions, rec);
    return rec.finish();
}

PlanEdit PartitionPlan::isolateSelection(const std::vector<NodeId> &nodes)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    const std::vector<NodeId> sel = assignableSubset(nodes);
    if (sel.empty()) {
        edit.diagnostics.push_back(makeDiagnostic(Severity::Error, "plan.empty_selection",
                                                  "the selection holds no operator node"));
        return rec.finish();
    }
    std::vector<NodeId> witness = nonConvexWitness(sel);
    if (!witness.empty()) {
        edit.diagnostics.push_back(makeDiagnostic(
            Severity::Error, "partition.nonconvex",
            "the selection is not convex: the path " + text::pathText(graph(), witness)
                + " leaves it and comes back; isolate its convex closure instead",
            witness));
        return rec.finish();
    }

    std::vector<std::uint8_t> mark(m_assignment.size(), 0); // 1 = selected, 2 = after-part
    std::vector<PartitionId> touched;
    for (NodeId n : sel) {
        mark[n.index()] = 1;
        const PartitionId p = m_assignment[n.index()];
        if (p.isValid() && std::find(touched.begin(), touched.end(), p) == touched.end())
            touched.push_back(p);
    }
    // The after-part: descendants of the selection inside the partitions it came from.
    std::vector<NodeId> queue(sel.begin(), sel.end());
    std::vector<NodeId> after;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        for (const FlowEdge &e : m_view->outEdges(queue[head])) {
            const NodeId c = e.consumer;
            if (mark[c.index()] || !m_view->isAssignable(c))
                continue;
            const PartitionId p = m_assignment[c.index()];
            if (std::find(touched.begin(), touched.end(), p) == touched.end())
                continue;
            mark[c.index()] = 2;
            after.push_back(c);
            queue.push_back(c);
        }
    }
    std::unordered_map<std::uint32_t, std::size_t> selCount;
    std::unordered_map<std::uint32_t, std::size_t> afterCount;
    for (NodeId n : sel) {
        if (m_assignment[n.index()].isValid())
            ++selCount[m_assignment[n.index()].value];
    }
    for (NodeId n : after)
        ++afterCount[m_assignment[n.index()].value];

    int lastTouched = -1;
    for (PartitionId p : touched)
        lastTouched = std::max(lastTouched, indexOf(p));

    const Partition fresh = makePartition();
    std::unordered_map<std::uint32_t, PartitionId> afterPart;
    std::vector<Partition> ordered;
    for (std::size_t i = 0; i < m_partitions.size(); ++i) {
        const Partition &p = m_partitions[i];
        const bool isTouched = std::find(touched.begin(), touched.end(), p.id) != touched.end();
        const std::size_t rest
            = isTouched ? nodeCount(p.id) - selCount[p.id.value] - afterCount[p.id.value] : 1;
        if (rest > 0)
            ordered.push_back(p);
        if (static_cast<int>(i) != lastTouched)
            continue;
        ordered.push_back(fresh);
        for (const Partition &q : m_partitions) {
            if (afterCount[q.id.value] == 0)
                continue;
            Partition a = makePartition();
            a.target = q.target;
            afterPart[q.id.value] = a.id;
            ordered.push_back(std::move(a));
        }
    }
    // Unassigned selected nodes: append the new partition at the end.
    if (lastTouched < 0)
        ordered.push_back(fresh);
    m_partitions = std::move(ordered);
    rebuildIndex();
    for (NodeId n : after)
        rec.set(n, afterPart[m_assignment[n.index()].value]);
    for (NodeId n : sel)
        rec.set(n, fresh.id);
    return rec.finish();
}

std::vector<NodeId> PartitionPlan::convexClosure(const std::vector<NodeId> &nodes) const
{
    const std::vector<NodeId> sel = assignableSubset(nodes);
    if (sel.empty())
        return {};
    const std::int32_t minPos = m_view->position(sel.front());
    const std::int32_t maxPos = m_view->position(sel.back());
    std::vector<std::uint8_t> mark(m_assignment.size(), 0); // bit 1 forward, bit 2 backward
    std::vector<NodeId> queue(sel.begin(), sel.end());
    for (NodeId n : sel)
        mark[n.index()] = 3;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        for (const FlowEdge &e : m_view->outEdges(queue[head])) {
            const NodeId c = e.consumer;
            if ((mark[c.index()] & 1U) || m_view->position(c) > maxPos)
                continue;
            mark[c.index()] |= 1U;
            queue.push_back(c);
        }
    }
    queue.assign(sel.begin(), sel.end());
    for (std::size_t head = 0; head < queue.size(); ++head) {
        for (const FlowEdge *e : m_view->inEdges(queue[head])) {
            const NodeId p = e->tensor.node;
            if ((mark[p.index()] & 2U) || m_view->position(p) < minPos)
                continue;
            mark[p.index()] |= 2U;
            queue.push_back(p);
        }
    }
    std::vector<NodeId> closure;
    const auto &order = m_view->order();
    for (std::int32_t i = minPos; i <= maxPos; ++i) {
        const NodeId n = order[static_cast<std::size_t>(i)];
        if (mark[n.index()] == 3 && m_view->isAssignable(n))
            closure.push_back(n);
    }
    return closure;
}

std::vector<NodeId> PartitionPlan::nonConvexWitness(const std::vector<NodeId> &nodes) const
{
    const std::vector<NodeId> sel = assignableSubset(nodes);
    std::vector<std::uint8_t> in(m_assignment.size(), 0);
    for (NodeId n : sel)
        in[n.index()] = 1;
    return reentryWitness(*m_view, sel, [&](NodeId n) { return in[n.index()] != 0; });
}

} // namespace cleave
