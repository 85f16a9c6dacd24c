// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Moves nodes into an existing partition (PartitionPlan::assignToPartition).
class AssignNodesToPartition : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(AssignNodesToPartition)

public:
    AssignNodesToPartition(Document *document, std::vector<cleave::NodeId> nodes,
                           cleave::PartitionId partition)
        : PlanCommand(document,
                      nodes.size() == 1 ? tr("Assign 1 node to a partition")
                                        : tr("Assign %1 nodes to a partition").arg(nodes.size()))
        , m_nodes(std::move(nodes))
        , m_partition(partition)
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.assignToPartition(m_nodes, m_partition);
    }

private:
    std::vector<cleave::NodeId> m_nodes;
    cleave::PartitionId m_partition;
};

} // namespace cleave::ui
