// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/WeightFollowers.h"

namespace cleave {

WeightFollowers::WeightFollowers(const FunctionView &view, const std::vector<WeightInput> &weights)
{
    const Graph &g = view.graph();
    m_mask.assign(g.nodeCount(), 0);
    m_weightMask.assign(g.nodeCount(), 0);
    for (const WeightInput &w : weights) {
        if (w.input.isValid() && w.input.index() < m_weightMask.size())
            m_weightMask[w.input.index()] = 1;
    }
    // Program order is topological, so a node's producers are classified before it.
    for (NodeId n : view.assignableNodes()) {
        bool weightOnly = true;
        for (const FlowEdge *e : view.inEdges(n)) {
            const NodeId p = e->tensor.node;
            const NodeKind kind = g.node(p).kind;
            if (kind == NodeKind::Constant || kind == NodeKind::FunctionValue || isWeight(p)
                || contains(p))
                continue;
            weightOnly = false;
            break;
        }
        if (weightOnly) {
            m_mask[n.index()] = 1;
            m_nodes.push_back(n);
        }
    }
}

WeightFollowers::WeightFollowers(const FunctionView &view, const std::vector<std::string> &marked)
    : WeightFollowers(view, weightInputs(view.graph(), view.function(), marked))
{
}

} // namespace cleave
