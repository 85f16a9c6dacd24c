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
    : WeightFollowers(view, followedWeights(view, marked))
{
}

std::vector<WeightInput> WeightFollowers::followedWeights(const FunctionView &view,
                                                          const std::vector<std::string> &marked)
{
    const Graph &g = view.graph();
    std::vector<WeightInput> weights = weightInputs(g, view.function(), marked);
    // TVM's frontends declare how many leading parameters are runtime inputs
    // (R.func_attr({"num_input": n})): the rest are the model's parameters, even those whose
    // uses are not weight operands (SAM's no-mask embedding is added at full size).
    const Function &f = g.function(view.function());
    const AttrValue *n = f.attrs.find("num_input");
    const auto declared = n ? n->toInt() : std::nullopt;
    if (!declared || *declared < 0)
        return weights;
    for (auto i = static_cast<std::size_t>(*declared); i < f.params.size(); ++i) {
        if (!isWeightInput(weights, f.params[i]))
            weights.push_back({ f.params[i], g.node(f.params[i]).name, WeightReason::Operand });
    }
    return weights;
}

} // namespace cleave
