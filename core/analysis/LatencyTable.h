// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cleave {

/// Measured latencies that replace FLOPs as the cost of nodes (DESIGN.md §2, Cost), for
/// balancing pipeline stages on what a device really does. The file is JSON:
/// ```
/// {"cleave_latency": 1, "unit": "us",
///  "ops":   {"nn.conv2d": 85.0, "tvmgen_default_fused_nn_conv2d_add_nn_relu": 120.5},
///  "nodes": {"%12": 40.0}}
/// ```
/// `unit` is `ns`, `us` (the default) or `ms`; values are non-negative numbers. `nodes` (by node
/// key) wins over `ops` (by op name: a Relay op, a fused function's name, a graph.json
/// `func_name`, an ONNX op_type). A call of a fused or composite function without an entry of
/// its own costs the sum of its body's ops.
/// The longest latency a table may give one node or op: an hour, in microseconds.
inline constexpr double maxLatencyUs = 3.6e9;

class LatencyTable
{
public:
    /// Parses a latency file; nullopt with diagnostics (file:line:column for syntax errors,
    /// codes `latency.*`) when it is not one. Never throws.
    static std::optional<LatencyTable> fromJson(std::string_view text, const std::string &path,
                                                std::vector<Diagnostic> &diagnostics);
    /// Reads and parses a latency file from disk.
    static std::optional<LatencyTable> load(const std::string &path,
                                            std::vector<Diagnostic> &diagnostics);

    /// Sets the latency of an op name, in microseconds.
    void setOp(std::string op, double microseconds) { m_ops[std::move(op)] = microseconds; }
    /// Sets the latency of one node (by key), in microseconds.
    void setNode(std::string key, double microseconds) { m_nodes[std::move(key)] = microseconds; }

    /// The latency of an operator node in microseconds, or nullopt when neither the node, its
    /// op, nor (for a function call) every op of the body has an entry. Tuples, projections,
    /// inputs and constants cost nothing (0).
    [[nodiscard]] std::optional<double> latency(const Graph &graph, NodeId node) const;

    [[nodiscard]] bool isEmpty() const { return m_ops.empty() && m_nodes.empty(); }

private:
    [[nodiscard]] std::optional<double> opLatency(const std::string &op) const;
    [[nodiscard]] std::optional<double> bodyLatency(const Graph &graph, FunctionId f) const;

    std::unordered_map<std::string, double> m_ops;
    std::unordered_map<std::string, double> m_nodes;
};

} // namespace cleave
