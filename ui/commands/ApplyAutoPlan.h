// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"

#include <QUndoCommand>

#include <string>
#include <vector>

namespace cleave::ui {

class Document;

/// One partition of a proposed plan: its name, target and nodes.
struct ProposedPartition
{
    std::string name;
    std::string target;
    std::vector<cleave::NodeId> nodes;
};

/// Replaces the whole plan by an automatic proposal as ONE undo step
/// (PartitionPlan::replacePartitions: the proposal's names are kept as they are); undo reverts
/// it, redo re-applies it.
class ApplyAutoPlan : public QUndoCommand
{
public:
    ApplyAutoPlan(Document *document, std::vector<ProposedPartition> partitions,
                  const QString &text);

    void redo() override;
    void undo() override;

private:
    Document *m_document;
    std::vector<ProposedPartition> m_partitions;
    std::vector<cleave::PlanEdit> m_edits;
    bool m_performed = false;
};

} // namespace cleave::ui
