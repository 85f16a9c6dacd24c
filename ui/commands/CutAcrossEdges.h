// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Cuts the edges a cut line crossed (PartitionPlan::cutAcrossEdges), keeping `wholeBlocks`
/// (the blocks drawn collapsed, when the line was drawn on the Fused Blocks view) whole.
class CutAcrossEdges : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(CutAcrossEdges)

public:
    CutAcrossEdges(Document *document, std::vector<cleave::EdgeRef> edges,
                   std::vector<std::vector<cleave::NodeId>> wholeBlocks = {})
        : PlanCommand(document,
                      edges.size() == 1 ? tr("Cut 1 edge") : tr("Cut %1 edges").arg(edges.size()))
        , m_edges(std::move(edges))
        , m_wholeBlocks(std::move(wholeBlocks))
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.cutAcrossEdges(m_edges, m_wholeBlocks);
    }

private:
    std::vector<cleave::EdgeRef> m_edges;
    std::vector<std::vector<cleave::NodeId>> m_wholeBlocks;
};

} // namespace cleave::ui
