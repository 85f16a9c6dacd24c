// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/Cost.h"

#include "core/support/Saturating.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

namespace {

bool isElementwise(std::string_view op)
{
    static const std::unordered_set<std::string_view> ops { "add",
                                                            "subtract",
                                                            "multiply",
                                                            "divide",
                                                            "power",
                                                            "maximum",
                                                            "minimum",
                                                            "floor_divide",
                                                            "floor_mod",
                                                            "mod",
                                                            "negative",
                                                            "abs",
                                                            "exp",
                                                            "log",
                                                            "sqrt",
                                                            "rsqrt",
                                                            "sigmoid",
                                                            "tanh",
                                                            "erf",
                                                            "clip",
                                                            "fast_exp",
                                                            "fast_tanh",
                                                            "fast_erf",
                                                            "nn.relu",
                                                            "nn.leaky_relu",
                                                            "nn.prelu",
                                                            "nn.bias_add",
                                                            "nn.softmax",
                                                            "nn.log_softmax",
                                                            "nn.batch_norm",
                                                            "nn.layer_norm",
                                                            "nn.instance_norm",
                                                            "nn.group_norm",
                                                            "nn.l2_normalize",
                                                            "where",
                                                            "round",
                                                            "floor",
                                                            "ceil",
                                                            "sign",
                                                            "cast",
                                                            "greater",
                                                            "less",
                                                            "equal",
                                                            "not_equal",
                                                            "greater_equal",
                                                            "less_equal",
                                                            "logical_and",
                                                            "logical_or",
                                                            "logical_not",
                                                            "qnn.requantize",
                                                            "qnn.add",
                                                            "qnn.mul",
                                                            "nn.hardswish",
                                                            "nn.gelu" };
    return ops.contains(op);
}

std::int64_t elements(const Type &t)
{
    return t.elementCount().value_or(0);
}

/// Extent of a dim of a static tensor, counting negative indices from the end; 0 if unknown.
std::int64_t dimAt(const Type &t, int i)
{
    if (!t.isTensor())
        return 0;
    const int rank = static_cast<int>(t.shape.size());
    if (i < 0)
        i += rank;
    if (i < 0 || i >= rank || !t.shape[static_cast<std::size_t>(i)].isKnown())
        return 0;
    return t.shape[static_cast<std::size_t>(i)].value;
}

const Type &inputType(const Graph &g, const Node &n, std::size_t k)
{
    static const Type unknownType;
    return k < n.inputs.size() && n.inputs[k].isValid() ? g.tensorType(n.inputs[k]) : unknownType;
}

/// The Relay operator whose FLOP formula an ONNX or Relax operator shares. ONNX: TVM's ONNX
/// frontend (python/tvm/relay/frontend/onnx.py) lowers Conv to nn.conv<k>d, MatMul to nn.matmul
/// / batch_matmul, Relu to nn.relu, ... Relax: TVM prints its operators as `relax.<relay name>`
/// (relax.nn.conv2d, relax.add), except for the few Relax renamed (relax.matmul, relax.astype).
std::string_view relayEquivalent(const std::string &op)
{
    static const std::unordered_map<std::string, std::string> renamed {
        { "Conv", "nn.conv2d" },
        { "ConvTranspose", "nn.conv2d_transpose" },
        { "MatMul", "nn.matmul" },
        { "MaxPool", "nn.max_pool2d" },
        { "AveragePool", "nn.avg_pool2d" },
        { "GlobalAveragePool", "nn.global_avg_pool2d" },
        { "GlobalMaxPool", "nn.global_max_pool2d" },
        { "Add", "add" },
        { "Sub", "subtract" },
        { "Mul", "multiply" },
        { "Div", "divide" },
        { "Pow", "power" },
        { "Max", "maximum" },
        { "Min", "minimum" },
        { "Neg", "negative" },
        { "Abs", "abs" },
        { "Exp", "exp" },
        { "Log", "log" },
        { "Sqrt", "sqrt" },
        { "Sigmoid", "sigmoid" },
        { "Tanh", "tanh" },
        { "Erf", "erf" },
        { "Clip", "clip" },
        { "Relu", "nn.relu" },
        { "LeakyRelu", "nn.leaky_relu" },
        { "PRelu", "nn.prelu" },
        { "Softmax", "nn.softmax" },
        { "LogSoftmax", "nn.log_softmax" },
        { "BatchNormalization", "nn.batch_norm" },
        { "LayerNormalization", "nn.layer_norm" },
        { "InstanceNormalization", "nn.instance_norm" },
        { "Where", "where" },
        { "Cast", "cast" },
        { "HardSwish", "nn.hardswish" },
        { "Gelu", "nn.gelu" },
        { "relax.matmul", "nn.matmul" },
        { "relax.astype", "cast" },
        { "relax.nn.silu", "sigmoid" },
    };
    if (const auto it = renamed.find(op); it != renamed.end())
        return it->second;
    constexpr std::string_view relaxPrefix = "relax.";
    const std::string_view name = op;
    return name.substr(0, relaxPrefix.size()) == relaxPrefix ? name.substr(relaxPrefix.size())
                                                             : name;
}

std::int64_t opFlops(const Graph &g, const Node &n)
{
    if (n.op == "Gemm") {
        // Y = alpha·op(A)·op(B) + beta·C: 2·M·N·K like nn.dense (the bias add is not counted).
        const bool transposeA = n.attrs.intOr("transA", 0) != 0;
        return 2 * elements(n.outputType(0)) * dimAt(inputType(g, n, 0), transposeA ? -2 : -1);
    }
    const std::string_view op = relayEquivalent(n.op);
    const std::int64_t out = elements(n.outputType(0));
    if (op == "nn.conv1d" || op == "nn.conv2d" || op == "nn.conv3d") {
        const Type &w = inputType(g, n, 1);
        std::int64_t oc = n.attrs.intOr("channels", 0);
        if (oc <= 0) {
            const std::string layout = n.attrs.stringOr("kernel_layout", "OIHW");
            const auto o = layout.find('O');
            oc = dimAt(w, o == std::string::npos ? 0 : static_cast<int>(o));
        }
        return oc > 0 ? satMul(2, satMul(out, elements(w) / oc)) : 0;
    }
    if (op == "nn.conv2d_transpose" || op == "nn.conv1d_transpose") {
        const Type &w = inputType(g, n, 1);
        const std::int64_t ic = dimAt(w, 0);
        return ic > 0 ? satMul(2, satMul(elements(inputType(g, n, 0)), elements(w) / ic)) : 0;
    }
    if (op == "nn.dense")
        return satMul(2, satMul(out, dimAt(inputType(g, n, 0), -1)));
    if (op == "nn.matmul" || op == "nn.batch_matmul") {
        const bool transposeA = n.attrs.intOr("transpose_a", 0) != 0;
        return satMul(2, satMul(out, dimAt(inputType(g, n, 0), transposeA ? -2 : -1)));
    }
    if (op == "nn.max_pool1d" || op == "nn.max_pool2d" || op == "nn.max_pool3d"
        || op == "nn.avg_pool1d" || op == "nn.avg_pool2d" || op == "nn.avg_pool3d") {
        std::int64_t window = 1;
        auto sizes = n.attrs.intList("pool_size");
        if (!sizes)
            sizes = n.attrs.intList("kernel_shape"); // ONNX MaxPool / AveragePool
        if (sizes) {
            for (std::int64_t s : *sizes)
                window = satMul(window, s);
        }
        return satMul(out, window);
    }
    if (op.rfind("nn.global_", 0) == 0 || op.rfind("nn.adaptive_", 0) == 0)
        return elements(inputType(g, n, 0));
    if (isElementwise(op))
        return op == "nn.batch_norm" || op == "nn.layer_norm"
            ? satMul(2, elements(inputType(g, n, 0)))
            : out;
    return 0;
}

void addBody(const Graph &g, FunctionId f, int depth, NodeCost &cost);

void addNode(const Graph &g, const Node &n, int depth, NodeCost &cost, bool nested)
{
    if (n.kind == NodeKind::OpCall)
        cost.flops = satAdd(cost.flops, opFlops(g, n));
    if ((n.kind == NodeKind::FunctionCall || n.kind == NodeKind::FunctionValue)
        && n.callee.isValid() && depth < 8)
        addBody(g, n.callee, depth + 1, cost);
    if (n.kind == NodeKind::Constant && nested)
        cost.paramBytes = satAdd(cost.paramBytes, n.outputType(0).byteSize().value_or(0));
}

void addBody(const Graph &g, FunctionId f, int depth, NodeCost &cost)
{
    for (NodeId id : g.function(f).nodes)
        addNode(g, g.node(id), depth, cost, true);
}

} // namespace

std::int64_t nodeFlops(const Graph &graph, NodeId node)
{
    return nodeCost(graph, node).flops;
}

NodeCost nodeCost(const Graph &graph, NodeId node)
{
    NodeCost cost;
    const Node &n = graph.node(node);
    if (n.kind == NodeKind::Constant)
        return cost;
    addNode(graph, n, 0, cost, false);
    for (const TensorRef &in : n.inputs) {
        if (in.isValid() && graph.node(in.node).kind == NodeKind::Constant)
            cost.paramBytes = satAdd(cost.paramBytes, graph.tensorType(in).byteSize().value_or(0));
    }
    for (const Type &t : n.outputTypes())
        cost.outputBytes = satAdd(cost.outputBytes, t.byteSize().value_or(0));
    return cost;
}

namespace {

bool staticType(const Type &t)
{
    switch (t.kind) {
    case Type::Kind::Unknown:
    case Type::Kind::Incomplete:
        return false;
    case Type::Kind::Tensor:
        return t.hasStaticShape();
    case Type::Kind::Tuple:
        return std::all_of(t.fields.begin(), t.fields.end(), staticType);
    default:
        return true;
    }
}

} // namespace

bool hasStaticShapes(const Node &node)
{
    return !node.outputTypes().empty()
        && std::all_of(node.outputTypes().begin(), node.outputTypes().end(), staticType);
}

std::string flopsText(std::int64_t flops, std::size_t opsWithoutShapes)
{
    return (opsWithoutShapes ? "\u2265 " : "") + humanFlops(flops);
}

std::string humanBytes(std::int64_t bytes)
{
    static constexpr const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    auto value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    if (unit == 0)
        return std::to_string(bytes) + " B";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
    return buffer;
}

std::string humanFlops(std::int64_t flops)
{
    static constexpr const char *units[] = { "FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP" };
    auto value = static_cast<double>(flops);
    std::size_t unit = 0;
    while (value >= 1000.0 && unit + 1 < std::size(units)) {
        value /= 1000.0;
        ++unit;
    }
    if (unit == 0)
        return std::to_string(flops) + " FLOP";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f %s", value, units[unit]);
    return buffer;
}

} // namespace cleave
