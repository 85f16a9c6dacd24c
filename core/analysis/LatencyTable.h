// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cleave {

/// Measured latencies that replace FLOPs as the cost of nodes (docs/DESIGN.md §3.8), for
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
///
/// Tables measured by `cleave-cli profile` (profile.py) also carry where they were measured,
/// `"provenance": {"onnxruntime": "1.30.0", "execution_provider": ..., "intra_op_threads": 1,
/// "runs": 15, "host": ...}`, and what a pipeline stage costs besides its nodes,
/// `"calibration": {"run_overhead_us": 4.4, "handoff_us": 25.0, "copy_bytes_per_second": 1.8e10}`
/// (always in microseconds and bytes per second, whatever `unit` says).
/// The longest latency a table may give one node or op: an hour, in microseconds.
inline constexpr double maxLatencyUs = 3.6e9;

/// What a pipeline stage costs on the measured machine besides its nodes (profile.py's
/// "calibration" block).
struct LatencyCalibration
{
    double runOverheadUs = 0; ///< Fixed cost of one run of a stage's session.
    std::optional<double> handoffUs; ///< Handing a tensor to the next stage (a queue hop).
    std::optional<double> copyBytesPerSecond; ///< Memory copy bandwidth.
};

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

    /// The calibration block, when the table has one.
    [[nodiscard]] const std::optional<LatencyCalibration> &calibration() const
    {
        return m_calibration;
    }
    void setCalibration(LatencyCalibration c) { m_calibration = c; }
    /// Where the table was measured, one line ("onnxruntime 1.30.0, CPUExecutionProvider,
    /// 1 thread, median of 15 runs, host vm"); empty when the table does not say.
    [[nodiscard]] const std::string &provenance() const { return m_provenance; }
    /// True when the table has an entry for the node of this key (not only for its op).
    [[nodiscard]] bool hasNodeEntry(const std::string &key) const { return m_nodes.contains(key); }
    /// The number of node entries.
    [[nodiscard]] std::size_t nodeEntries() const { return m_nodes.size(); }

private:
    static bool readCalibration(const nlohmann::json &c, LatencyTable &table,
                                const std::function<SourceLocation(const std::string &)> &at,
                                const std::string &path, std::vector<Diagnostic> &diagnostics);
    [[nodiscard]] std::optional<double> opLatency(const std::string &op) const;
    [[nodiscard]] std::optional<double> bodyLatency(const Graph &graph, FunctionId f) const;

    std::unordered_map<std::string, double> m_ops;
    std::unordered_map<std::string, double> m_nodes;
    std::optional<LatencyCalibration> m_calibration;
    std::string m_provenance;
};

} // namespace cleave
