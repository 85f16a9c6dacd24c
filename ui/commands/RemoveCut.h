// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Removes the cut between two partitions by merging them (the Delete key on a boundary).
class RemoveCut : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(RemoveCut)

public:
    RemoveCut(Document *document, cleave::PartitionId before, cleave::PartitionId after)
        : PlanCommand(document, tr("Remove cut"))
        , m_partitions { before, after }
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.mergePartitions(m_partitions);
    }

private:
    std::vector<cleave::PartitionId> m_partitions;
};

} // namespace cleave::ui
