// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Moves a convex selection into its own partition, splitting what surrounds it
/// (PartitionPlan::isolateSelection).
class IsolateSelection : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(IsolateSelection)

public:
    IsolateSelection(Document *document, std::vector<cleave::NodeId> nodes)
        : PlanCommand(document,
                      nodes.size() == 1 ? tr("Isolate 1 node")
                                        : tr("Isolate %1 nodes").arg(nodes.size()))
        , m_nodes(std::move(nodes))
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.isolateSelection(m_nodes);
    }

private:
    std::vector<cleave::NodeId> m_nodes;
};

} // namespace cleave::ui
