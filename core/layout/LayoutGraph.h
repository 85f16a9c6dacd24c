// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Ids.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cleave {

class FunctionView;

/// How a drawn node looks; the canvas picks its shape and colour from it.
enum class LayoutNodeRole : std::uint8_t {
    Operator, ///< An operator call, function call, If/Match, constructor.
    Input, ///< A parameter of the function (a graph input of @main).
    Output, ///< An operator whose value the function returns.
    Constant, ///< A constant (only drawn when LayoutGraphOptions::showConstants is set).
    Structural, ///< Tuple and tuple projection (`%1.0`): drawn small.
};

/// The text a node carries: the operator (or input name) and its output shape.
struct NodeLabel
{
    std::string title; ///< `nn.conv2d`, `data`, `.0`, `tuple`, `@fused_add`.
    std::string subtitle; ///< `1×64×56×56` (the output shape), empty when unknown.
};

/// The label of a node as the canvas draws it.
NodeLabel nodeLabel(const Graph &graph, NodeId node);
/// A tensor type's shape as `1×64×56×56` (`?` for dynamic dims), `(3 fields)` for tuples.
std::string shapeText(const Type &type);

/// Options of the drawn graph.
struct LayoutGraphOptions
{
    /// Draw constants (weights, scalars) as nodes. Off by default: a DNN's weights double the
    /// node count and add nothing to the data flow; the Properties dock lists them per node.
    bool showConstants = false;
    /// Values with more consumers than this (attention masks, shared scales, recurrent
    /// weights) are drawn as a local stub beside each consumer: one node with hundreds of long
    /// edges makes `dot` crawl (80 s at 1k nodes) and the drawing unreadable. Inputs and
    /// constants become stubs at every consumer; an operator's output keeps a real edge to its
    /// first consumer (in program order), the chain that carries the data flow (DenseNet's
    /// dense blocks, where each layer is read by all later ones, stay top to bottom).
    std::size_t stubFanout = 8;
};

/// What the layout engine lays out: a snapshot of one function's drawn nodes and edges with
/// their sizes. Built on the caller's thread from the Graph (cheap, O(nodes + edges)), so the
/// layout can run on a worker thread without touching the model.
struct LayoutGraph
{
    struct Node
    {
        NodeId id;
        LayoutNodeRole role = LayoutNodeRole::Operator;
        float width = 0; ///< Points (a box's size is a few hundred at most).
        float height = 0;
    };
    struct Edge
    {
        TensorRef tensor;
        NodeId consumer;
        std::uint32_t from = 0; ///< Index into nodes of the producer.
        std::uint32_t to = 0; ///< Index into nodes of the consumer.
        bool stub = false; ///< Drawn from a local stub (see LayoutGraphOptions::stubFanout).
    };

    FunctionId function;
    std::vector<Node> nodes; ///< Program order.
    std::vector<Edge> edges; ///< By consumer, in input order.

    /// A fingerprint of the structure (node ids, sizes, edges) for cache keys.
    [[nodiscard]] std::uint64_t fingerprint() const;
};

/// Builds the drawn graph of `function` (the main function when invalid).
LayoutGraph buildLayoutGraph(const Graph &graph, FunctionId function,
                             const LayoutGraphOptions &options = {});
/// The same for the function of `view`, reading its edges from that view (a plan's or a level's,
/// which the caller keeps anyway) instead of building one of its own for the while.
LayoutGraph buildLayoutGraph(const FunctionView &view, const LayoutGraphOptions &options = {});

/// Estimated size of a node box for its label, in points (the canvas draws the title at 10 px
/// and the subtitle at 9 px, which these widths accommodate).
void nodeBoxSize(const NodeLabel &label, LayoutNodeRole role, double &width, double &height);

} // namespace cleave
