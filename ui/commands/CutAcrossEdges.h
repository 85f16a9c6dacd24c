// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/commands/PlanCommand.h"

#include <QCoreApplication>

#include <string>
#include <utility>
#include <vector>

namespace cleave::ui {

/// Cuts the edges a cut line crossed (PartitionPlan::cutAcrossEdges).
class CutAcrossEdges : public PlanCommand
{
    Q_DECLARE_TR_FUNCTIONS(CutAcrossEdges)

public:
    CutAcrossEdges(Document *document, std::vector<cleave::EdgeRef> edges)
        : PlanCommand(document,
                      edges.size() == 1 ? tr("Cut 1 edge") : tr("Cut %1 edges").arg(edges.size()))
        , m_edges(std::move(edges))
    {
    }

protected:
    cleave::PlanEdit perform(cleave::PartitionPlan &plan) override
    {
        return plan.cutAcrossEdges(m_edges);
    }

private:
    std::vector<cleave::EdgeRef> m_edges;
};

} // namespace cleave::ui
