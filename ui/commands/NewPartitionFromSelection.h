// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Moves the selected nodes into a new partition (PartitionPlan::partitionFromSelection).
class NewPartitionFromSelection : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(NewPartitionFromSelection)

public:
    NewPartitionFromSelection(Document *document, std::vector<cleave::NodeId> nodes)
        : PlanCommand(document,
                      nodes.size() == 1 ? tr("New partition from 1 node")
                                        : tr("New partition from %1 nodes").arg(nodes.size()))
        , m_nodes(std::move(nodes))
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.partitionFromSelection(m_nodes);
    }

private:
    std::vector<cleave::NodeId> m_nodes;
};

} // namespace cleave::ui
