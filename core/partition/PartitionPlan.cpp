// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/PartitionPlan.h"

#include "core/partition/PlanRecorder.h"
#include "core/partition/WeightFollowers.h"

#include <algorithm>
#include <unordered_set>

namespace cleave {

namespace {
constexpr int paletteSize = 12;
} // namespace

bool PlanEdit::isEmpty() const
{
    return changes.empty() && partitionsBefore == partitionsAfter
        && (!crossedChanged || crossedBefore == crossedAfter);
}

std::vector<PartitionId> PlanEdit::createdPartitions() const
{
    std::vector<PartitionId> created;
    for (const Partition &p : partitionsAfter) {
        const bool existed = std::any_of(partitionsBefore.begin(), partitionsBefore.end(),
                                         [&](const Partition &q) { return q.id == p.id; });
        if (!existed)
            created.push_back(p.id);
    }
    return created;
}

PartitionPlan::PartitionPlan(const Graph &graph, FunctionId function)
    : PartitionPlan(std::make_shared<const FunctionView>(graph, function), true)
{
}

PartitionPlan::PartitionPlan(std::shared_ptr<const FunctionView> view, bool assignAll)
    : m_view(std::move(view))
{
    m_assignment.assign(m_view->graph().nodeCount(), PartitionId {});
    if (assignAll) {
        m_partitions.push_back(makePartition());
        const PartitionId id = m_partitions.front().id;
        for (NodeId n : m_view->assignableNodes())
            setAssignment(n, id);
    }
    rebuildIndex();
}

const Partition *PartitionPlan::partition(PartitionId id) const
{
    const int i = indexOf(id);
    return i < 0 ? nullptr : &m_partitions[static_cast<std::size_t>(i)];
}

std::size_t PartitionPlan::nodeCount(PartitionId id) const
{
    if (!id.isValid() || id.index() >= m_counts.size())
        return 0;
    return m_counts[id.index()];
}

std::vector<NodeId> PartitionPlan::nodesOf(PartitionId id) const
{
    std::vector<NodeId> nodes;
    nodes.reserve(nodeCount(id));
    for (NodeId n : m_view->assignableNodes()) {
        if (m_assignment[n.index()] == id)
            nodes.push_back(n);
    }
    return nodes;
}

EdgeRef PartitionPlan::edgeBetween(NodeId from, NodeId to) const
{
    if (!from.isValid() || !to.isValid() || from.index() >= m_assignment.size()
        || !m_view->contains(from))
        return {};
    for (const FlowEdge &e : m_view->outEdges(from)) {
        if (e.consumer == to)
            return EdgeRef { e.tensor, e.consumer };
    }
    return {};
}

void PartitionPlan::setAssignment(NodeId node, PartitionId p)
{
    PartitionId &slot = m_assignment[node.index()];
    if (slot == p)
        return;
    if (slot.isValid() && slot.index() < m_counts.size())
        --m_counts[slot.index()];
    if (p.isValid()) {
        if (p.index() >= m_counts.size())
            m_counts.resize(p.index() + 1, 0);
        ++m_counts[p.index()];
    }
    slot = p;
}

void PartitionPlan::rebuildIndex()
{
    m_indexOf.assign(m_nextId, -1);
    for (std::size_t i = 0; i < m_partitions.size(); ++i) {
        const PartitionId id = m_partitions[i].id;
        if (id.index() >= m_indexOf.size())
            m_indexOf.resize(id.index() + 1, -1);
        m_indexOf[id.index()] = static_cast<int>(i);
    }
    if (m_counts.size() < m_nextId)
        m_counts.resize(m_nextId, 0);
}

PartitionId PartitionPlan::newPartitionId()
{
    return PartitionId(m_nextId++);
}

std::string PartitionPlan::uniqueName(const std::string &base) const
{
    auto taken = [this](const std::string &n) {
        return std::any_of(m_partitions.begin(), m_partitions.end(),
                           [&](const Partition &p) { return p.name == n; });
    };
    if (!taken(base))
        return base;
    for (int k = 1;; ++k) {
        std::string candidate = base + "_" + std::to_string(k);
        if (!taken(candidate))
            return candidate;
    }
}

Partition PartitionPlan::makePartition(const std::string &name)
{
    Partition p;
    p.id = newPartitionId();
    p.name = uniqueName(name.empty() ? "stage" + std::to_string(p.id.value) : name);
    p.colour = static_cast<int>(p.id.value % paletteSize);
    if (m_counts.size() <= p.id.index())
        m_counts.resize(p.id.index() + 1, 0);
    return p;
}

std::vector<NodeId> PartitionPlan::assignableSubset(const std::vector<NodeId> &nodes) const
{
    std::vector<NodeId> out;
    out.reserve(nodes.size());
    for (NodeId n : nodes) {
        if (n.isValid() && n.index() < m_assignment.size() && m_view->isAssignable(n))
            out.push_back(n);
    }
    std::sort(out.begin(), out.end(),
              [this](NodeId a, NodeId b) { return m_view->position(a) < m_view->position(b); });
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void PartitionPlan::removeEmptiedPartitions(const PlanEdit &edit, PartitionId keep)
{
    // Only partitions this edit took nodes from; empty partitions made on purpose stay.
    std::vector<PartitionId> sources;
    for (const PlanEdit::Change &c : edit.changes) {
        if (c.before.isValid() && (sources.empty() || sources.back() != c.before)
            && std::find(sources.begin(), sources.end(), c.before) == sources.end())
            sources.push_back(c.before);
    }
    std::erase_if(m_partitions, [&](const Partition &p) {
        return p.id != keep && nodeCount(p.id) == 0
            && std::find(sources.begin(), sources.end(), p.id) != sources.end();
    });
    rebuildIndex();
}

const WeightFollowers &PartitionPlan::weightFollowers() const
{
    if (!m_followers)
        m_followers = std::make_shared<const WeightFollowers>(*m_view);
    return *m_followers;
}

void PartitionPlan::followConsumers(Recorder &rec)
{
    const std::vector<NodeId> &followers = weightFollowers().nodes();
    std::vector<PartitionId> sources;
    // Reverse program order: a follower's consumers that follow too are placed before it.
    for (std::size_t k = followers.size(); k-- > 0;) {
        const NodeId n = followers[k];
        const PartitionId current = m_assignment[n.index()];
        if (!current.isValid())
            continue; // unassigned stays unassigned: validation reports it
        int first = -1;
        for (const FlowEdge &e : m_view->outEdges(n)) {
            const int i = indexOf(m_assignment[e.consumer.index()]);
            if (i >= 0 && (first < 0 || i < first))
                first = i;
        }
        if (first < 0 || m_partitions[static_cast<std::size_t>(first)].id == current)
            continue;
        // Only between partitions of one target: a BYOC region gets no op its compiler was not
        // given (TVM's pattern partitioning leaves a weight's reshape outside the region too).
        if (m_partitions[static_cast<std::size_t>(first)].target != partition(current)->target)
            continue;
        if (std::find(sources.begin(), sources.end(), current) == sources.end())
            sources.push_back(current);
        rec.set(n, m_partitions[static_cast<std::size_t>(first)].id);
    }
    const auto before = m_partitions.size();
    std::erase_if(m_partitions, [&](const Partition &p) {
        return nodeCount(p.id) == 0
            && std::find(sources.begin(), sources.end(), p.id) != sources.end();
    });
    if (m_partitions.size() != before)
        rebuildIndex();
}

void PartitionPlan::apply(const PlanEdit &edit)
{
    for (const PlanEdit::Change &c : edit.changes)
        setAssignment(c.node, c.after);
    m_partitions = edit.partitionsAfter;
    if (edit.crossedChanged)
        m_crossed = edit.crossedAfter;
    m_nextId = std::max(m_nextId, edit.nextIdAfter);
    rebuildIndex();
}

void PartitionPlan::revert(const PlanEdit &edit)
{
    for (std::size_t i = edit.changes.size(); i-- > 0;)
        setAssignment(edit.changes[i].node, edit.changes[i].before);
    m_partitions = edit.partitionsBefore;
    if (edit.crossedChanged)
        m_crossed = edit.crossedBefore;
    // The id counter goes back too, so the next edit names and colours its new partitions as
    // this one did (stage1 again after cut, undo, cut). Ids the edit created are free again:
    // only a redo of this very edit could refer to them, and it re-creates them.
    m_nextId = std::min(m_nextId, edit.nextIdBefore);
    rebuildIndex();
}

bool operator==(const PartitionPlan &a, const PartitionPlan &b)
{
    return a.m_view == b.m_view && a.m_partitions == b.m_partitions
        && a.m_assignment == b.m_assignment && a.m_crossed == b.m_crossed;
}

// --- simple edits -------------------------------------------------------------------------------

PlanEdit PartitionPlan::assignToPartition(const std::vector<NodeId> &nodes, PartitionId target)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    if (indexOf(target) < 0) {
        edit.diagnostics.push_back({ Severity::Error,
                                     "plan.unknown_partition",
                                     "assign: no partition with id " + std::to_string(target.value),
                                     {},
                                     std::nullopt,
                                     {} });
        return rec.finish();
    }
    for (NodeId n : assignableSubset(nodes))
        rec.set(n, target);
    removeEmptiedPartitions(edit, target);
    return rec.finish();
}

PlanEdit PartitionPlan::partitionFromSelection(const std::vector<NodeId> &nodes)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    const std::vector<NodeId> sel = assignableSubset(nodes);
    if (sel.empty()) {
        edit.diagnostics.push_back({ Severity::Error,
                                     "plan.empty_selection",
                                     "the selection holds no operator node",
                                     {},
                                     std::nullopt,
                                     {} });
        return rec.finish();
    }
    Partition fresh = makePartition();
    m_partitions.push_back(fresh); // temporarily last so that counts and indices exist
    rebuildIndex();
    for (NodeId n : sel)
        rec.set(n, fresh.id);
    m_partitions.pop_back();
    removeEmptiedPartitions(edit, fresh.id);

    // Place it right after the last partition that feeds it, so the order stays topological
    // whenever that is possible without splitting a partition.
    int insertAt = 0;
    for (NodeId n : sel) {
        for (const FlowEdge *e : m_view->inEdges(n)) {
            const NodeId p = e->tensor.node;
            if (!m_view->isAssignable(p))
                continue;
            const int i = indexOf(m_assignment[p.index()]);
            if (i >= 0)
                insertAt = std::max(insertAt, i + 1);
        }
    }
    m_partitions.insert(m_partitions.begin() + insertAt, fresh);
    rebuildIndex();
    return rec.finish();
}

PlanEdit PartitionPlan::mergePartitions(const std::vector<PartitionId> &ids)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    std::vector<PartitionId> valid;
    for (PartitionId id : ids) {
        if (indexOf(id) >= 0 && std::find(valid.begin(), valid.end(), id) == valid.end())
            valid.push_back(id);
    }
    if (valid.size() < 2) {
        edit.diagnostics.push_back({ Severity::Error,
                                     "plan.merge_needs_two",
                                     "merge needs at least two existing partitions",
                                     {},
                                     std::nullopt,
                                     {} });
        return rec.finish();
    }
    std::sort(valid.begin(), valid.end(),
              [this](PartitionId a, PartitionId b) { return indexOf(a) < indexOf(b); });
    const PartitionId into = valid.front();
    for (NodeId n : m_view->assignableNodes()) {
        const PartitionId p = m_assignment[n.index()];
        if (p != into && std::find(valid.begin() + 1, valid.end(), p) != valid.end())
            rec.set(n, into);
    }
    std::erase_if(m_partitions, [&](const Partition &p) {
        return p.id != into && std::find(valid.begin(), valid.end(), p.id) != valid.end();
    });
    rebuildIndex();
    return rec.finish();
}

PlanEdit PartitionPlan::renamePartition(PartitionId id, std::string name)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    const int i = indexOf(id);
    if (i < 0 || name.empty()) {
        edit.diagnostics.push_back(
            { Severity::Error,
              "plan.rename",
              i < 0 ? "rename: no such partition" : "rename: a partition name cannot be empty",
              {},
              std::nullopt,
              {} });
        return rec.finish();
    }
    m_partitions[static_cast<std::size_t>(i)].name = std::move(name);
    return rec.finish();
}

PlanEdit PartitionPlan::setTarget(PartitionId id, std::string target)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    const int i = indexOf(id);
    if (i < 0 || target.empty()) {
        edit.diagnostics.push_back(
            { Severity::Error,
              "plan.target",
              i < 0 ? "set target: no such partition" : "set target: the target cannot be empty",
              {},
              std::nullopt,
              {} });
        return rec.finish();
    }
    m_partitions[static_cast<std::size_t>(i)].target = std::move(target);
    return rec.finish();
}

PlanEdit PartitionPlan::markCrossedEdges(const std::vector<EdgeRef> &edges)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    for (const EdgeRef &e : edges) {
        if (edgeBetween(e.tensor.node, e.consumer).consumer.isValid()
            && m_view->isAssignable(e.tensor.node))
            m_crossed.push_back(e);
    }
    std::sort(m_crossed.begin(), m_crossed.end());
    m_crossed.erase(std::unique(m_crossed.begin(), m_crossed.end()), m_crossed.end());
    return rec.finish(); // drops the edges that do not cross
}

PlanEdit PartitionPlan::appendPartition(const std::string &name, std::string target, int colour)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    Partition p = makePartition(name);
    if (!target.empty())
        p.target = std::move(target);
    if (colour >= 0)
        p.colour = colour;
    m_partitions.push_back(std::move(p));
    rebuildIndex();
    return rec.finish();
}

PlanEdit PartitionPlan::appendPartitions(std::vector<PartitionSpec> specs)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    appendSpecs(std::move(specs), rec);
    removeEmptiedPartitions(edit, PartitionId());
    return rec.finish();
}

PlanEdit PartitionPlan::replacePartitions(std::vector<PartitionSpec> specs)
{
    PlanEdit edit;
    Recorder rec(*this, edit);
    for (NodeId n : m_view->assignableNodes())
        rec.set(n, PartitionId());
    m_partitions.clear();
    rebuildIndex();
    appendSpecs(std::move(specs), rec);
    std::erase_if(m_partitions, [this](const Partition &p) { return nodeCount(p.id) == 0; });
    rebuildIndex();
    return rec.finish();
}

void PartitionPlan::appendSpecs(std::vector<PartitionSpec> specs, Recorder &rec)
{
    // uniqueName() scans the partitions: a set of the names taken keeps this linear.
    std::unordered_set<std::string> taken;
    for (const Partition &p : m_partitions)
        taken.insert(p.name);
    std::vector<PartitionId> ids;
    ids.reserve(specs.size());
    for (PartitionSpec &spec : specs) {
        Partition p;
        p.id = newPartitionId();
        const std::string base
            = spec.name.empty() ? "stage" + std::to_string(p.id.value) : spec.name;
        p.name = base;
        for (int k = 1; taken.contains(p.name); ++k)
            p.name = base + "_" + std::to_string(k);
        taken.insert(p.name);
        p.colour = spec.colour >= 0 ? spec.colour : static_cast<int>(p.id.value % paletteSize);
        if (!spec.target.empty())
            p.target = std::move(spec.target);
        ids.push_back(p.id);
        m_partitions.push_back(std::move(p));
    }
    rebuildIndex();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        for (NodeId n : assignableSubset(specs[i].nodes))
            rec.set(n, ids[i]);
    }
}

} // namespace cleave
