// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Merges partitions into the first of them in plan order (PartitionPlan::mergePartitions).
class MergePartitions : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(MergePartitions)

public:
    MergePartitions(Document *document, std::vector<cleave::PartitionId> partitions)
        : PlanCommand(document, tr("Merge %1 partitions").arg(partitions.size()))
        , m_partitions(std::move(partitions))
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
