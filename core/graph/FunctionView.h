// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Ids.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace cleave {

/// One dataflow edge of a partitioned function: `tensor` is read by `consumer`, a node of the
/// function. When the actual reader sits in a nested scope (an `if` branch, a `match` clause, a
/// function literal), `consumer` is the node of the function that owns that scope and `user` the
/// nested reader; otherwise both are the same node.
struct FlowEdge
{
    TensorRef tensor;
    NodeId consumer;
    NodeId user;
    std::uint32_t input = 0; ///< Which input of `user` reads the tensor.
};

/// The edges entering one node, as pointers into a FunctionView's edge store (which keeps them as
/// 32-bit indices: half the size of pointers, for a store that lives as long as a plan).
class InEdgeRange
{
public:
    /// Iterates the edges, yielding `const FlowEdge *`.
    class Iterator
    {
    public:
        using value_type = const FlowEdge *; // NOLINT(readability-identifier-naming): std spelling
        using difference_type = std::ptrdiff_t; // NOLINT(readability-identifier-naming)

        Iterator() = default;
        Iterator(const FlowEdge *edges, const std::uint32_t *at)
            : m_edges(edges)
            , m_at(at)
        {
        }
        const FlowEdge *operator*() const { return m_edges + *m_at; }
        Iterator &operator++()
        {
            ++m_at;
            return *this;
        }
        Iterator operator++(int)
        {
            Iterator before = *this;
            ++m_at;
            return before;
        }
        friend bool operator==(const Iterator &a, const Iterator &b) { return a.m_at == b.m_at; }

    private:
        const FlowEdge *m_edges = nullptr;
        const std::uint32_t *m_at = nullptr;
    };

    InEdgeRange(const FlowEdge *edges, std::span<const std::uint32_t> indices)
        : m_edges(edges)
        , m_indices(indices)
    {
    }
    [[nodiscard]] Iterator begin() const { return { m_edges, m_indices.data() }; }
    [[nodiscard]] Iterator end() const { return { m_edges, m_indices.data() + m_indices.size() }; }
    [[nodiscard]] std::size_t size() const { return m_indices.size(); }
    [[nodiscard]] bool empty() const { return m_indices.empty(); }
    [[nodiscard]] const FlowEdge *operator[](std::size_t i) const { return m_edges + m_indices[i]; }

private:
    const FlowEdge *m_edges;
    std::span<const std::uint32_t> m_indices;
};

/// A read-only, precomputed view of ONE function of a Graph for partitioning: which nodes are
/// assignable, their program (topological) order, and the edges between them with reads from
/// nested scopes attributed to the node that owns the scope. Built once in O(nodes + uses); every
/// array is indexed by the global node index, so lookups are O(1) and no graph data is copied.
class FunctionView
{
public:
    /// Builds the view of `function` (the graph's main function when invalid).
    FunctionView(const Graph &graph, FunctionId function);
    FunctionView(const FunctionView &) = delete;
    FunctionView &operator=(const FunctionView &) = delete;
    FunctionView(FunctionView &&) noexcept = default;
    FunctionView &operator=(FunctionView &&) noexcept = default;

    [[nodiscard]] const Graph &graph() const { return *m_graph; }
    [[nodiscard]] FunctionId function() const { return m_function; }

    /// Nodes of the function in program order (a topological order; ties keep source order).
    [[nodiscard]] const std::vector<NodeId> &order() const { return m_order; }
    /// Position of a node of the function in order(), or -1.
    [[nodiscard]] std::int32_t position(NodeId n) const { return m_position[n.index()]; }
    /// True when `n` belongs to the function (not to a nested one).
    [[nodiscard]] bool contains(NodeId n) const { return m_position[n.index()] >= 0; }
    /// True for nodes a plan assigns: operator nodes plus Tuple and TupleGetItem.
    [[nodiscard]] bool isAssignable(NodeId n) const { return m_assignable[n.index()] != 0; }
    /// Assignable nodes in program order.
    [[nodiscard]] const std::vector<NodeId> &assignableNodes() const { return m_assignableNodes; }
    /// Graph inputs (parameters) of the function, in parameter order.
    [[nodiscard]] const std::vector<NodeId> &inputs() const { return m_inputs; }
    /// Constant nodes of the function, in program order.
    [[nodiscard]] const std::vector<NodeId> &constants() const { return m_constants; }

    /// Edges leaving `producer` (any node of the function), ordered by consumer position.
    [[nodiscard]] std::span<const FlowEdge> outEdges(NodeId producer) const;
    /// Edges entering `consumer` (a node of the function), in input order.
    [[nodiscard]] InEdgeRange inEdges(NodeId consumer) const;
    /// Total number of edges.
    [[nodiscard]] std::size_t edgeCount() const { return m_edges.size(); }

    /// Interned name a split point can use for `n`: the op of an OpCall, the callee name of a
    /// FunctionCall; -1 otherwise. `compositeKey` is the callee's Composite name, or for a
    /// primitive (fused) callee its FuseOps-style name (`fused_nn_conv2d_add_nn_relu`), or -1.
    [[nodiscard]] std::int32_t opKey(NodeId n) const { return m_opKey[n.index()]; }
    [[nodiscard]] std::int32_t compositeKey(NodeId n) const { return m_compositeKey[n.index()]; }
    /// The interned id of an op / function name, or -1 when no node of the function uses it.
    [[nodiscard]] std::int32_t findOpKey(const std::string &name) const;

    /// The node of this function that stands for `n`: `n` itself, or the owner of the nested
    /// scope `n` lives in; an invalid id for nodes unrelated to the function.
    [[nodiscard]] NodeId representative(NodeId n) const;

private:
    // The constructor's steps, in order.
    void indexNodes(); ///< order, positions, op keys, assignable nodes, constants, inputs
    void findScopeOwners(); ///< m_functionOwner
    void collectEdges(); ///< m_edges, grouped by producer
    void buildEdgeIndex(); ///< the CSR offsets and m_inEdges

    const Graph *m_graph;
    FunctionId m_function;
    std::vector<NodeId> m_order;
    std::vector<std::int32_t> m_position;
    std::vector<std::uint8_t> m_assignable;
    std::vector<NodeId> m_assignableNodes;
    std::vector<NodeId> m_inputs;
    std::vector<NodeId> m_constants;
    std::vector<std::int32_t> m_opKey;
    std::vector<std::int32_t> m_compositeKey;
    std::unordered_map<std::string, std::int32_t> m_opNames;
    std::vector<NodeId> m_functionOwner; // per function: the node of m_function owning it
    std::vector<FlowEdge> m_edges; // grouped by producer
    std::vector<std::uint32_t> m_outOffsets; // per node, CSR into m_edges
    std::vector<std::uint32_t> m_inEdges; // indices into m_edges, grouped by consumer
    std::vector<std::uint32_t> m_inOffsets; // per node, CSR into m_inEdges
};

/// True when a plan assigns nodes of this kind (operators, Tuple, TupleGetItem).
bool isAssignableKind(NodeKind kind);

/// The FuseOps-style name of a primitive function: `fused_` + its op names in program order
/// with `.` as `_` (`fused_nn_conv2d_add_nn_relu`), as TVM names the lowered kernel (without
/// the `tvmgen_default_` prefix and without TVM's truncation of very long names).
std::string fusedName(const Graph &graph, FunctionId function);

} // namespace cleave
