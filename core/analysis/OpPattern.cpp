// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/OpPattern.h"

#include "core/graph/JsonParse.h"
#include "core/support/JsonLocator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <utility>

namespace cleave {

namespace {

std::string lowered(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

void add(OpPatternTable &table, OpPatternKind kind, std::initializer_list<const char *> ops)
{
    for (const char *op : ops)
        table.set(op, kind);
}

/// ONNX operator types, with the pattern of the Relay ops TVM's ONNX frontend lowers them to;
/// BatchNormalization is Broadcast because relay.build runs SimplifyInference before FuseOps
/// (it becomes a multiply and an add), so Conv + BatchNormalization + Relu is one kernel.
void addOnnxPatterns(OpPatternTable &t)
{
    add(t, OpPatternKind::ElemWise,
        { "Relu", "Sigmoid",   "Tanh", "Exp",   "Log",         "Sqrt",      "Reciprocal",
          "Erf",  "Neg",       "Abs",  "Floor", "Ceil",        "Round",     "Sign",
          "Clip", "LeakyRelu", "Elu",  "Selu",  "HardSigmoid", "HardSwish", "Softplus",
          "Cast", "Identity",  "Not",  "Sin",   "Cos" });
    add(t, OpPatternKind::Broadcast,
        { "Add",
          "Sub",
          "Mul",
          "Div",
          "Pow",
          "Max",
          "Min",
          "Mod",
          "PRelu",
          "Where",
          "Equal",
          "Less",
          "Greater",
          "LessOrEqual",
          "GreaterOrEqual",
          "And",
          "Or",
          "Xor",
          "BatchNormalization",
          "Expand" });
    add(t, OpPatternKind::Injective,
        { "Reshape", "Transpose", "Concat", "Flatten", "Squeeze", "Unsqueeze", "Split", "Slice",
          "Gather", "GatherElements", "Pad", "Resize", "Upsample", "Tile", "DepthToSpace",
          "SpaceToDepth", "Shape", "Size" });
    add(t, OpPatternKind::CommReduce,
        { "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ArgMax",
          "ArgMin" });
    add(t, OpPatternKind::OutEWiseFusable,
        { "Conv", "ConvTranspose", "Gemm", "MatMul", "MaxPool", "AveragePool", "GlobalAveragePool",
          "GlobalMaxPool", "Softmax", "LogSoftmax", "InstanceNormalization",
          "LayerNormalization" });
}

// Relay registrations as of TVM v0.14 (src/relay/op/**, TOpPattern), one function per group of
// pattern kinds.

/// Ops computed element by element, with or without broadcasting.
void addRelayElementwise(OpPatternTable &t)
{
    add(t, OpPatternKind::ElemWise,
        { "log",
          "log2",
          "log10",
          "tan",
          "cos",
          "cosh",
          "sin",
          "sinh",
          "acos",
          "acosh",
          "asin",
          "asinh",
          "atan",
          "atanh",
          "exp",
          "fast_exp",
          "fast_tanh",
          "fast_erf",
          "erf",
          "sqrt",
          "rsqrt",
          "sigmoid",
          "floor",
          "ceil",
          "trunc",
          "round",
          "sign",
          "abs",
          "tanh",
          "negative",
          "logical_not",
          "bitwise_not",
          "copy",
          "isnan",
          "isfinite",
          "isinf",
          "nn.relu",
          "nn.leaky_relu",
          "clip",
          "cast",
          "cast_like",
          "reinterpret",
          "full",
          "full_like",
          "zeros",
          "zeros_like",
          "ones",
          "ones_like",
          "fixed_point_multiply",
          "annotation.checkpoint" });
    add(t, OpPatternKind::Broadcast,
        { "add",          "subtract",      "multiply",     "divide",
          "floor_divide", "trunc_divide",  "power",        "mod",
          "floor_mod",    "trunc_mod",     "maximum",      "minimum",
          "logical_and",  "logical_or",    "logical_xor",  "bitwise_and",
          "bitwise_or",   "bitwise_xor",   "right_shift",  "left_shift",
          "equal",        "not_equal",     "less",         "less_equal",
          "greater",      "greater_equal", "atan2",        "nn.bias_add",
          "nn.prelu",     "expand_dims",   "broadcast_to", "broadcast_to_like",
          "where",        "tile",          "repeat" });
}

/// Ops that move data (one output element from one input element) and reductions.
void addRelayInjectiveAndReductions(OpPatternTable &t)
{
    add(t, OpPatternKind::Injective,
        { "reshape",
          "reshape_like",
          "contrib_reverse_reshape",
          "transpose",
          "concatenate",
          "stack",
          "nn.batch_flatten",
          "squeeze",
          "split",
          "strided_slice",
          "strided_set",
          "slice_like",
          "take",
          "gather",
          "gather_nd",
          "nn.pad",
          "nn.mirror_pad",
          "layout_transform",
          "reverse",
          "reverse_sequence",
          "image.resize1d",
          "image.resize2d",
          "image.resize3d",
          "nn.upsampling",
          "nn.upsampling3d",
          "nn.depth_to_space",
          "nn.space_to_depth",
          "nn.space_to_batch_nd",
          "nn.batch_to_space_nd",
          "arange",
          "meshgrid",
          "sequence_mask",
          "adv_index",
          "matrix_set_diag",
          "unravel_index",
          "auto_scheduler_layout_transform" });
    add(t, OpPatternKind::CommReduce,
        { "sum", "mean", "max", "min", "prod", "argmax", "argmin", "all", "any", "variance", "std",
          "collapse_sum_like", "collapse_sum_to" });
}

/// Compute-heavy ops whose output can take an elementwise epilogue.
void addRelayOutEWiseFusable(OpPatternTable &t)
{
    add(t, OpPatternKind::OutEWiseFusable,
        { "nn.conv1d",
          "nn.conv2d",
          "nn.conv3d",
          "nn.conv1d_transpose",
          "nn.conv2d_transpose",
          "nn.conv3d_transpose",
          "nn.contrib_conv2d_NCHWc",
          "nn.contrib_depthwise_conv2d_NCHWc",
          "nn.contrib_conv2d_winograd_without_weight_transform",
          "nn.contrib_conv2d_winograd_weight_transform",
          "nn.deformable_conv2d",
          "nn.bitserial_conv2d",
          "nn.dense",
          "nn.matmul",
          "nn.contrib_dense_pack",
          "nn.batch_matmul",
          "nn.batch_norm",
          "nn.max_pool1d",
          "nn.max_pool2d",
          "nn.max_pool3d",
          "nn.avg_pool1d",
          "nn.avg_pool2d",
          "nn.avg_pool3d",
          "nn.global_avg_pool2d",
          "nn.global_max_pool2d",
          "nn.adaptive_avg_pool1d",
          "nn.adaptive_avg_pool2d",
          "nn.adaptive_avg_pool3d",
          "nn.adaptive_max_pool1d",
          "nn.adaptive_max_pool2d",
          "nn.adaptive_max_pool3d",
          "nn.softmax",
          "nn.log_softmax",
          "nn.fast_softmax",
          "nn.l2_normalize",
          "one_hot" });
}

/// Ops FuseOps never fuses.
void addRelayOpaque(OpPatternTable &t)
{
    add(t, OpPatternKind::Opaque,
        { "nn.dropout",
          "nn.lrn",
          "nn.layer_norm",
          "nn.group_norm",
          "nn.instance_norm",
          "device_copy",
          "on_device",
          "annotation.stop_fusion",
          "sort",
          "argsort",
          "topk",
          "vision.non_max_suppression",
          "vision.all_class_non_max_suppression",
          "vision.get_valid_counts",
          "vision.multibox_prior",
          "vision.multibox_transform_loc",
          "vision.roi_align",
          "vision.roi_pool",
          "vision.yolo_reorg",
          "vision.proposal" });
}

OpPatternTable makeBuiltin()
{
    OpPatternTable t;
    addRelayElementwise(t);
    addRelayInjectiveAndReductions(t);
    addRelayOutEWiseFusable(t);
    addRelayOpaque(t);
    addOnnxPatterns(t);
    return t;
}

} // namespace

const char *opPatternName(OpPatternKind kind)
{
    switch (kind) {
    case OpPatternKind::ElemWise:
        return "elemwise";
    case OpPatternKind::Broadcast:
        return "broadcast";
    case OpPatternKind::Injective:
        return "injective";
    case OpPatternKind::CommReduce:
        return "comm_reduce";
    case OpPatternKind::OutEWiseFusable:
        return "out_elemwise_fusable";
    case OpPatternKind::Tuple:
        return "tuple";
    case OpPatternKind::Opaque:
        return "opaque";
    }
    return "opaque";
}

std::optional<OpPatternKind> opPatternFromName(std::string_view name)
{
    static const std::pair<const char *, OpPatternKind> names[] = {
        { "elemwise", OpPatternKind::ElemWise },
        { "kelemwise", OpPatternKind::ElemWise },
        { "0", OpPatternKind::ElemWise },
        { "broadcast", OpPatternKind::Broadcast },
        { "kbroadcast", OpPatternKind::Broadcast },
        { "1", OpPatternKind::Broadcast },
        { "injective", OpPatternKind::Injective },
        { "kinjective", OpPatternKind::Injective },
        { "2", OpPatternKind::Injective },
        { "comm_reduce", OpPatternKind::CommReduce },
        { "kcommreduce", OpPatternKind::CommReduce },
        { "3", OpPatternKind::CommReduce },
        { "out_elemwise_fusable", OpPatternKind::OutEWiseFusable },
        { "koutewisefusable", OpPatternKind::OutEWiseFusable },
        { "4", OpPatternKind::OutEWiseFusable },
        { "tuple", OpPatternKind::Tuple },
        { "ktuple", OpPatternKind::Tuple },
        { "7", OpPatternKind::Tuple },
        { "opaque", OpPatternKind::Opaque },
        { "kopaque", OpPatternKind::Opaque },
        { "8", OpPatternKind::Opaque },
    };
    const std::string key = lowered(name);
    for (const auto &[n, kind] : names) {
        if (key == n)
            return kind;
    }
    return std::nullopt;
}

const OpPatternTable &OpPatternTable::builtin()
{
    static const OpPatternTable table = makeBuiltin();
    return table;
}

OpPatternKind OpPatternTable::pattern(std::string_view op) const
{
    const auto it = m_patterns.find(std::string(op));
    return it == m_patterns.end() ? OpPatternKind::Opaque : it->second;
}

std::vector<std::string> OpPatternTable::opNames() const
{
    std::vector<std::string> names;
    names.reserve(m_patterns.size());
    for (const auto &[name, kind] : m_patterns)
        names.push_back(name);
    return names;
}

bool OpPatternTable::contains(std::string_view op) const
{
    return m_patterns.contains(std::string(op));
}

void OpPatternTable::set(std::string op, OpPatternKind kind)
{
    m_patterns[std::move(op)] = kind;
}

bool OpPatternTable::loadJson(std::string_view text, const std::string &path,
                              std::vector<Diagnostic> &diagnostics)
{
    auto report = [&](std::string code, std::string message, SourceLocation where) {
        Diagnostic d;
        d.code = std::move(code);
        d.message = std::move(message);
        d.where = std::move(where);
        if (d.where.file.empty())
            d.where.file = path;
        diagnostics.push_back(std::move(d));
    };
    const std::optional<nlohmann::json> parsed
        = parseJsonLocated(text, path, "patterns.syntax", diagnostics);
    if (!parsed)
        return false;
    const nlohmann::json &doc = *parsed;
    if (!doc.is_object()) {
        report("patterns.type", R"(an op pattern file must be a JSON object {"op": "pattern"})",
               {});
        return false;
    }
    bool ok = true;
    for (const auto &[op, value] : doc.items()) {
        std::optional<OpPatternKind> kind;
        if (value.is_string())
            kind = opPatternFromName(value.get<std::string>());
        else if (value.is_number_integer())
            kind = opPatternFromName(std::to_string(value.get<std::int64_t>()));
        if (!kind) {
            report("patterns.unknown_kind",
                   "op " + quoteBounded(op) + ": unknown pattern " + boundedJson(value)
                       + " (expected elemwise, broadcast, injective, comm_reduce, "
                         "out_elemwise_fusable, tuple or opaque)",
                   locateJsonValue(text, path, (nlohmann::json::json_pointer() / op).to_string()));
            ok = false;
            continue;
        }
        set(op, *kind);
    }
    return ok;
}

} // namespace cleave
