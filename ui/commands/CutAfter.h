// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/partition/BlockCuts.h"
#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <memory>
#include <utility>
#include <vector>

namespace cleave::ui {

/// *Cut After This Node* and *Cut After This Block*: the cut `--cut-after` and
/// `--cut-after-block` make at the same place (PartitionPlan::cutAfterNode, cutAfterBlock).
class CutAfter : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(CutAfter)

public:
    /// Cuts after operator `node`, in program order.
    CutAfter(Document *document, cleave::NodeId node, const QString &name)
        : PlanCommand(document, tr("Cut after %1").arg(name))
        , m_node(node)
    {
    }
    /// Cuts after block `index` of `blocks` (kept alive for redo).
    CutAfter(Document *document, std::shared_ptr<const std::vector<cleave::FusedBlock>> blocks,
             std::size_t index, const QString &name)
        : PlanCommand(document, tr("Cut after block %1").arg(name))
        , m_blocks(std::move(blocks))
        , m_index(index)
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return m_blocks ? cleave::cutAfterBlock(plan, *m_blocks, m_index)
                        : plan.cutAfterNode(m_node);
    }

private:
    cleave::NodeId m_node;
    std::shared_ptr<const std::vector<cleave::FusedBlock>> m_blocks;
    std::size_t m_index = 0;
};

} // namespace cleave::ui
