// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Sets the target a partition is compiled for (PartitionPlan::setTarget).
class SetPartitionTarget : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(SetPartitionTarget)

public:
    SetPartitionTarget(Document *document, cleave::PartitionId partition, std::string target)
        : PlanCommand(document, tr("Set target to %1").arg(QString::fromStdString(target)))
        , m_partition(partition)
        , m_target(std::move(target))
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.setTarget(m_partition, m_target);
    }

private:
    cleave::PartitionId m_partition;
    std::string m_target;
};

} // namespace cleave::ui
