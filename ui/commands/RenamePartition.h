// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Renames a partition (PartitionPlan::renamePartition).
class RenamePartition : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(RenamePartition)

public:
    RenamePartition(Document *document, cleave::PartitionId partition, std::string name)
        : PlanCommand(document, tr("Rename partition to %1").arg(QString::fromStdString(name)))
        , m_partition(partition)
        , m_name(std::move(name))
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.renamePartition(m_partition, m_name);
    }

private:
    cleave::PartitionId m_partition;
    std::string m_name;
};

} // namespace cleave::ui
