// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"

#include <algorithm>

namespace cleave {

/// Internal to the partition engine: records the assignment delta of an edit while it mutates
/// the plan, and fills the undo record (partition lists before / after, crossed edges) at the end.
class PartitionPlan::Recorder
{
public:
    Recorder(PartitionPlan &plan, PlanEdit &edit)
        : m_plan(plan)
        , m_edit(edit)
    {
        m_edit.partitionsBefore = plan.m_partitions;
        m_edit.crossedBefore = plan.m_crossed;
        m_edit.nextIdBefore = plan.m_nextId;
    }

    /// Assigns `node` to `p`, remembering the previous partition.
    void set(NodeId node, PartitionId p)
    {
        const PartitionId old = m_plan.m_assignment[node.index()];
        if (old == p)
            return;
        m_edit.changes.push_back(PlanEdit::Change { node, old, p });
        m_plan.setAssignment(node, p);
    }

    /// Completes the undo record: one change per node (first `before`, final `after`).
    PlanEdit finish()
    {
        auto &changes = m_edit.changes;
        if (!changes.empty())
            m_plan.followConsumers(*this);
        const auto byNode
            = [](const PlanEdit::Change &a, const PlanEdit::Change &b) { return a.node < b.node; };
        if (!std::is_sorted(changes.begin(), changes.end(), byNode))
            std::stable_sort(changes.begin(), changes.end(), byNode);
        std::size_t kept = 0;
        for (std::size_t i = 0; i < changes.size(); ++i) {
            if (kept > 0 && changes[kept - 1].node == changes[i].node)
                changes[kept - 1].after = changes[i].after;
            else
                changes[kept++] = changes[i];
        }
        changes.resize(kept);
        std::erase_if(changes, [](const PlanEdit::Change &c) { return c.before == c.after; });
        // Explicitly cut edges are remembered only while they still cross partitions.
        const auto insideOne = [this](const EdgeRef &e) {
            const PartitionId from = m_plan.partitionOf(e.tensor.node);
            const PartitionId to = m_plan.partitionOf(e.consumer);
            return !from.isValid() || !to.isValid() || from == to;
        };
        std::erase_if(m_plan.m_crossed, insideOne);
        // Weight-only producers moved to their consumers: those edges are no longer severed.
        std::erase_if(m_edit.impliedEdges, insideOne);
        m_edit.partitionsAfter = m_plan.m_partitions;
        m_edit.crossedAfter = m_plan.m_crossed;
        m_edit.crossedChanged = m_edit.crossedAfter != m_edit.crossedBefore;
        if (!m_edit.crossedChanged) {
            m_edit.crossedBefore.clear();
            m_edit.crossedAfter.clear();
        }
        m_edit.nextIdAfter = m_plan.m_nextId;
        return std::move(m_edit);
    }

private:
    PartitionPlan &m_plan;
    PlanEdit &m_edit;
};

} // namespace cleave
