// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>
#include <QString>

#include <string>
#include <utility>

namespace cleave::ui {

/// Sets one property of one partition (Tiled's ChangeValue<Object, Value>): `Property` names the
/// value type, the core mutation that sets it and the command's text. Each property is a small
/// traits struct below; the command itself exists once.
///
/// A property traits type provides `using Value = ...;`,
/// `static cleave::PlanEdit set(cleave::PartitionPlan &, cleave::PartitionId, Value)` and
/// `static QString text(const Value &)`.
template <typename Property>
class ChangePartitionValue : public PlanCommand
{
public:
    using Value = typename Property::Value;

    ChangePartitionValue(Document *document, cleave::PartitionId partition, Value value)
        : PlanCommand(document, Property::text(value))
        , m_partition(partition)
        , m_value(std::move(value))
    {
    }

    [[nodiscard]] cleave::PartitionId partition() const { return m_partition; }
    [[nodiscard]] const Value &value() const { return m_value; }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return Property::set(plan, m_partition, m_value);
    }

private:
    cleave::PartitionId m_partition;
    Value m_value;
};

/// A partition's user-visible name (PartitionPlan::renamePartition).
struct PartitionName
{
    Q_DECLARE_TR_FUNCTIONS(RenamePartition)

public:
    using Value = std::string;
    static cleave::PlanEdit set(cleave::PartitionPlan &plan, cleave::PartitionId id,
                                const Value &name)
    {
        return plan.renamePartition(id, name);
    }
    static QString text(const Value &name)
    {
        return tr("Rename partition to %1").arg(QString::fromStdString(name));
    }
};

/// The target a partition is compiled for (PartitionPlan::setTarget).
struct PartitionTarget
{
    Q_DECLARE_TR_FUNCTIONS(SetPartitionTarget)

public:
    using Value = std::string;
    static cleave::PlanEdit set(cleave::PartitionPlan &plan, cleave::PartitionId id,
                                const Value &target)
    {
        return plan.setTarget(id, target);
    }
    static QString text(const Value &target)
    {
        return tr("Set target to %1").arg(QString::fromStdString(target));
    }
};

using RenamePartition = ChangePartitionValue<PartitionName>;
using SetPartitionTarget = ChangePartitionValue<PartitionTarget>;

} // namespace cleave::ui
