// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/commands/ApplyAutoPlan.h"

#include "ui/document/Document.h"

#include <algorithm>

namespace cleave::ui {

ApplyAutoPlan::ApplyAutoPlan(Document *document, std::vector<ProposedPartition> partitions,
                             const QString &text)
    : QUndoCommand(text)
    , m_document(document)
    , m_partitions(std::move(partitions))
{
}

void ApplyAutoPlan::redo()
{
    if (m_performed) {
        for (const cleave::PlanEdit &e : m_edits)
            m_document->applyEdit(e);
        return;
    }
    m_performed = true;
    std::vector<cleave::PartitionSpec> specs;
    for (const ProposedPartition &p : m_partitions)
        specs.push_back({ p.name, p.target, -1, p.nodes });
    m_edits.push_back(m_document->runEdit(
        [&](cleave::PartitionPlan &plan) { return plan.replacePartitions(std::move(specs)); }));
}

void ApplyAutoPlan::undo()
{
    // Reverse iterators, not std::ranges::reverse_view: clang 14 (clang-tidy in CI) cannot
    // parse libstdc++ 12's range views.
    std::for_each(m_edits.rbegin(), m_edits.rend(),
                  [this](const cleave::PlanEdit &edit) { m_document->revertEdit(edit); });
}

} // namespace cleave::ui
