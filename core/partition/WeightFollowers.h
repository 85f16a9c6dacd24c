// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/WeightInputs.h"
#include "core/graph/FunctionView.h"

#include <cstdint>
#include <vector>

namespace cleave {

/// The assignable nodes of a function that are computed from weights and constants only: every
/// value they read is a weight input (WeightInputs), a constant, or another such node, and nodes
/// that read nothing at all (`R.ones`, `arange`). They do not depend on any activation, so a plan
/// places each of them with its first consumer instead of where a cut or a selection happened to
/// leave it (docs/DESIGN.md §3.7: "nodes computed only from weights and constants go with their
/// first consumer"). On models whose weights arrive as inputs (unrolled RNNs, transformers imported
/// without bound params) these are the transposes, concatenations and casts of every layer's
/// weights; left behind, they would ship weights between stages and split stages into pieces.
class WeightFollowers
{
public:
    /// Classifies the nodes of `view`; `weights` are the function's weight inputs.
    WeightFollowers(const FunctionView &view, const std::vector<WeightInput> &weights);
    /// Classifies with followedWeights(view, marked).
    explicit WeightFollowers(const FunctionView &view, const std::vector<std::string> &marked = {});

    /// The weights whose preprocessing follows its consumers: weightInputs(), plus the
    /// parameters after a function's declared `num_input` leading inputs (Relax modules from
    /// TVM's frontends), which are the model's parameters whatever reads them.
    static std::vector<WeightInput> followedWeights(const FunctionView &view,
                                                    const std::vector<std::string> &marked = {});

    /// The weight-only nodes in program order.
    [[nodiscard]] const std::vector<NodeId> &nodes() const { return m_nodes; }
    /// True when `n` is one of nodes().
    [[nodiscard]] bool contains(NodeId n) const
    {
        return n.index() < m_mask.size() && m_mask[n.index()] != 0;
    }
    /// True when `n` is a weight input of the function.
    [[nodiscard]] bool isWeight(NodeId n) const
    {
        return n.index() < m_weightMask.size() && m_weightMask[n.index()] != 0;
    }

private:
    std::vector<NodeId> m_nodes;
    std::vector<std::uint8_t> m_mask; // per node index
    std::vector<std::uint8_t> m_weightMask; // per node index: weight inputs
};

} // namespace cleave
