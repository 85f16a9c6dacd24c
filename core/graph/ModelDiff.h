// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <string>
#include <vector>

namespace cleave {

/// What differs between a node of the first model and the node with the same key in the second.
struct NodeChange
{
    std::string what; ///< "kind", "op", "attribute strides", "type", "inputs".
    std::string before; ///< As the first model has it (empty when absent).
    std::string after; ///< As the second model has it (empty when absent).
};

/// One node that differs between two models, named by its key (`%3`, `@f:%0`, an ONNX name).
struct NodeDifference
{
    enum class Kind { Added, Removed, Changed };
    Kind kind = Kind::Changed;
    std::string key;
    std::string op; ///< The op (or kind) in the model that has the node (the second when both).
    NodeId before; ///< The node in the first model (invalid when added).
    NodeId after; ///< The node in the second model (invalid when removed).
    std::vector<NodeChange> changes; ///< Changed nodes only: each differing property.
};

/// The node-level difference of two models: nodes are matched by their stable keys (the binding
/// names `%N`, `@fn:%N`, ONNX node names), then compared by kind, op, attributes (each key),
/// output types and inputs (producer keys and output indices). Source locations, spans and
/// binding comments are ignored. Nodes are listed in the order of the first model, then the
/// added ones in the order of the second.
struct ModelDiff
{
    std::vector<NodeDifference> nodes;

    [[nodiscard]] bool isEmpty() const { return nodes.empty(); }
    [[nodiscard]] std::size_t count(NodeDifference::Kind kind) const;
};

/// Compares `a` with `b` (both finalized).
ModelDiff diffModels(const Graph &a, const Graph &b);

/// "added", "removed", "changed".
const char *differenceKindName(NodeDifference::Kind kind);

} // namespace cleave
