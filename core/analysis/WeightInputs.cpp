// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/WeightInputs.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

namespace {

/// Operand positions that hold weights, per operator (Relay and ONNX spellings).
const std::vector<std::uint32_t> *weightSlots(std::string_view op)
{
    static const std::unordered_map<std::string_view, std::vector<std::uint32_t>> slots {
        { "nn.conv1d", { 1 } },
        { "nn.conv2d", { 1 } },
        { "nn.conv3d", { 1 } },
        { "nn.conv1d_transpose", { 1 } },
        { "nn.conv2d_transpose", { 1 } },
        { "nn.conv3d_transpose", { 1 } },
        { "nn.contrib_conv2d_NCHWc", { 1 } },
        { "nn.contrib_depthwise_conv2d_NCHWc", { 1 } },
        { "nn.deformable_conv2d", { 2 } },
        { "nn.dense", { 1 } },
        { "nn.contrib_dense_pack", { 1 } },
        { "nn.matmul", { 1 } },
        { "nn.batch_matmul", { 1 } },
        { "nn.bias_add", { 1 } },
        { "nn.prelu", { 1 } },
        { "nn.batch_norm", { 1, 2, 3, 4 } },
        { "nn.layer_norm", { 1, 2 } },
        { "nn.group_norm", { 1, 2 } },
        { "nn.instance_norm", { 1, 2 } },
        { "take", { 0 } },
        { "qnn.conv2d", { 1 } },
        { "qnn.dense", { 1 } },
        { "Conv", { 1, 2 } },
        { "ConvTranspose", { 1, 2 } },
        { "Gemm", { 1, 2 } },
        { "BatchNormalization", { 1, 2, 3, 4 } },
        { "InstanceNormalization", { 1, 2 } },
        { "LayerNormalization", { 1, 2 } },
        { "PRelu", { 1 } },
        { "LSTM", { 1, 2, 3 } },
        { "GRU", { 1, 2, 3 } },
        { "RNN", { 1, 2, 3 } },
    };
    const auto it = slots.find(op);
    return it == slots.end() ? nullptr : &it->second;
}

bool hasWeightSlots(std::string_view op)
{
    return weightSlots(op) != nullptr;
}

bool isWeightSlot(std::string_view op, std::uint32_t slot)
{
    const std::vector<std::uint32_t> *slots = weightSlots(op);
    return slots && std::find(slots->begin(), slots->end(), slot) != slots->end();
}

/// Ops that only rearrange their operands: a weight passed through them is still a weight.
bool isLayoutOp(std::string_view op)
{
    static const std::unordered_set<std::string_view> ops {
        "transpose",     "reshape",   "expand_dims",      "squeeze",          "concatenate",
        "split",         "cast",      "layout_transform", "nn.batch_flatten", "reverse",
        "strided_slice", "copy",      "broadcast_to",     "reshape_like",     "Transpose",
        "Reshape",       "Unsqueeze", "Squeeze",          "Concat",           "Split",
        "Cast",          "Flatten",   "Identity",
    };
    return ops.contains(op);
}

/// Binary ops whose smaller, broadcast operand is a bias or a scale.
bool isBroadcastBinary(std::string_view op)
{
    static const std::unordered_set<std::string_view> ops {
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
        "Add", "Sub",      "Mul",      "Div",    "Max",     "Min",     "Pow",
    };
    return ops.contains(op);
}

bool isFloating(const std::string &dtype)
{
    return dtype.rfind("float", 0) == 0 || dtype.rfind("bfloat", 0) == 0;
}

/// Decides, with memoisation, whether every use of a value is a weight use.
class WeightUseChecker
{
public:
    WeightUseChecker(const Graph &g, const std::unordered_set<std::uint32_t> &candidates)
        : m_graph(g)
        , m_candidates(candidates)
    {
    }

    /// True when every use of (any output of) `node` reads it as a weight; false when unused.
    bool onlyWeightUses(NodeId node, int depth = 0)
    {
        if (auto it = m_memo.find(node.value); it != m_memo.end())
            return it->second;
        m_memo[node.value] = false; // cycles (recursive functions) are not weights
        if (depth > 64)
            return false;
        const auto uses = m_graph.uses(node);
        bool ok = !uses.empty();
        for (const Use &u : uses) {
            if (!(ok = isWeightUse(u, depth)))
                break;
        }
        m_memo[node.value] = ok;
        return ok;
    }

private:
    /// True for a value computed from weights and constants only (the arithmetic that
    /// SimplifyInference leaves on batch-norm statistics, a transposed or reshaped weight): it is
    /// a weight itself. Ops with weight operands (conv, dense, ...) compute activations.
    bool isWeightOnly(NodeId id, int depth)
    {
        if (auto it = m_weightOnly.find(id.value); it != m_weightOnly.end())
            return it->second;
        const Node &n = m_graph.node(id);
        bool ok = depth < 64 && !n.inputs.empty()
            && (n.kind == NodeKind::Tuple || n.kind == NodeKind::TupleGetItem
                || (n.kind == NodeKind::OpCall && !hasWeightSlots(n.op)));
        for (std::size_t i = 0; ok && i < n.inputs.size(); ++i) {
            const TensorRef &in = n.inputs[i];
            ok = in.isValid()
                && (m_graph.node(in.node).kind == NodeKind::Constant
                    || m_candidates.contains(in.node.value) || isWeightOnly(in.node, depth + 1));
        }
        m_weightOnly[id.value] = ok;
        return ok;
    }

    bool isWeightUse(const Use &u, int depth)
    {
        const Node &c = m_graph.node(u.consumer);
        if (isWeightOnly(u.consumer, depth))
            return onlyWeightUses(u.consumer, depth + 1);
        switch (c.kind) {
        case NodeKind::OpCall:
            if (isWeightSlot(c.op, u.input))
                return true;
            if (isLayoutOp(c.op))
                return onlyWeightUses(u.consumer, depth + 1);
            if (isBroadcastBinary(c.op) && c.inputs.size() == 2)
                return isBroadcastOperand(c, u.input);
            return false;
        case NodeKind::Tuple:
        case NodeKind::TupleGetItem:
            return onlyWeightUses(u.consumer, depth + 1);
        case NodeKind::FunctionCall: {
            if (!c.callee.isValid())
                return false;
            const Function &f = m_graph.function(c.callee);
            return u.input < f.params.size() && onlyWeightUses(f.params[u.input], depth + 1);
        }
        default:
            return false;
        }
    }

    /// True when operand `slot` of a binary op is strictly smaller than the op's result (a
    /// broadcast bias or scale) and floating-point.
    bool isBroadcastOperand(const Node &op, std::uint32_t slot)
    {
        const Type &mine = m_graph.tensorType(op.inputs[slot]);
        const Type &out = op.outputType(0);
        if (!mine.isTensor() || !isFloating(mine.dtype))
            return false;
        if (out.isTensor() && mine.shape.size() < out.shape.size())
            return true; // a lower rank is a broadcast whatever the extents
        const auto a = mine.elementCount();
        const auto b = out.elementCount();
        return a && b && *a < *b;
    }

    const Graph &m_graph;
    const std::unordered_set<std::uint32_t> &m_candidates;
    std::unordered_map<std::uint32_t, bool> m_memo;
    std::unordered_map<std::uint32_t, bool> m_weightOnly;
};

std::string bareName(const std::string &name)
{
    return !name.empty() && name.front() == '%' ? name.substr(1) : name;
}

} // namespace

std::vector<WeightInput> weightInputs(const Graph &graph, FunctionId function,
                                      const std::vector<std::string> &marked)
{
    std::vector<WeightInput> out;
    if (!function.isValid())
        return out;
    std::unordered_set<std::string> names;
    for (const std::string &m : marked)
        names.insert(bareName(m));
    // Optimistic fixed point: every input starts as a candidate; inputs with a non-weight use
    // drop out, which can turn values computed from them back into activations.
    const std::vector<NodeId> &params = graph.function(function).params;
    auto nameOf = [&](NodeId p) {
        return bareName(graph.node(p).name.empty() ? graph.key(p) : graph.node(p).name);
    };
    std::unordered_set<std::uint32_t> candidates;
    for (NodeId p : params)
        candidates.insert(p.value);
    for (bool changed = true; changed;) {
        changed = false;
        WeightUseChecker checker(graph, candidates);
        for (NodeId p : params) {
            if (candidates.contains(p.value) && !names.contains(nameOf(p))
                && !checker.onlyWeightUses(p)) {
                candidates.erase(p.value);
                changed = true;
            }
        }
    }
    for (NodeId p : params) {
        if (names.contains(nameOf(p)))
            out.push_back({ p, nameOf(p), WeightReason::Marked });
        else if (candidates.contains(p.value))
            out.push_back({ p, nameOf(p), WeightReason::Operand });
    }
    return out;
}

std::optional<std::vector<std::string>> parseParamNames(const std::string &text, bool isFile,
                                                        std::string &error)
{
    std::vector<std::string> names;
    auto addItem = [&](const std::string &item) {
        const auto b = item.find_first_not_of(" \t\r");
        const auto e = item.find_last_not_of(" \t\r");
        if (b != std::string::npos)
            names.push_back(bareName(item.substr(b, e - b + 1)));
    };
    const auto first = text.find_first_not_of(" \t\r\n");
    if (isFile && first != std::string::npos && (text[first] == '[' || text[first] == '{')) {
        const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
        if (doc.is_object() && !doc.contains("params"))
            return names; // a plan file that marks no parameters
        const nlohmann::json *list = doc.is_object() ? &doc["params"] : &doc;
        if (doc.is_discarded() || !list->is_array()) {
            error = "expected a JSON array of parameter names or an object with a \"params\" array";
            return std::nullopt;
        }
        for (const nlohmann::json &item : *list) {
            if (!item.is_string()) {
                error = "parameter names must be strings, got " + item.dump();
                return std::nullopt;
            }
            addItem(item.get<std::string>());
        }
        return names;
    }
    std::string item;
    for (char c : text) {
        if (c == (isFile ? '\n' : ',')) {
            if (!isFile || item.find_first_not_of(" \t\r") == std::string::npos
                || item[item.find_first_not_of(" \t\r")] != '#')
                addItem(item);
            item.clear();
        } else {
            item += c;
        }
    }
    if (!isFile || item.find_first_not_of(" \t\r") == std::string::npos
        || item[item.find_first_not_of(" \t\r")] != '#')
        addItem(item);
    return names;
}

bool isWeightInput(const std::vector<WeightInput> &weights, NodeId input)
{
    return std::any_of(weights.begin(), weights.end(),
                       [&](const WeightInput &w) { return w.input == input; });
}

} // namespace cleave
