// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/OpShapeRules.h"

#include <algorithm>
#include <unordered_map>

namespace cleave {

const Type &OpShapeQuery::input(std::size_t i) const
{
    static const Type unknownType;
    return i < inputs.size() ? inputs[i] : unknownType;
}

const AttrValue *OpShapeQuery::scalarInput(std::size_t i) const
{
    return i < scalarInputs.size() ? scalarInputs[i] : nullptr;
}

namespace {

using namespace shaperules;

struct RuleEntry
{
    std::string_view op;
    OpShapeRule rule;
};

// The one place where operator names meet rule families.
constexpr RuleEntry ruleTable[] = {
    // convolutions and dense layers
    { "nn.conv1d", convolution },
    { "nn.conv2d", convolution },
    { "nn.conv3d", convolution },
    { "nn.conv1d_transpose", convolutionTranspose },
    { "nn.conv2d_transpose", convolutionTranspose },
    { "nn.conv3d_transpose", convolutionTranspose },
    { "nn.dense", dense },
    { "nn.matmul", dense },
    { "nn.batch_matmul", batchMatmul },
    // pooling
    { "nn.max_pool1d", pool },
    { "nn.max_pool2d", pool },
    { "nn.max_pool3d", pool },
    { "nn.avg_pool1d", pool },
    { "nn.avg_pool2d", pool },
    { "nn.avg_pool3d", pool },
    { "nn.global_avg_pool1d", globalPool },
    { "nn.global_avg_pool2d", globalPool },
    { "nn.global_avg_pool3d", globalPool },
    { "nn.global_max_pool1d", globalPool },
    { "nn.global_max_pool2d", globalPool },
    { "nn.global_max_pool3d", globalPool },
    { "nn.adaptive_avg_pool1d", adaptivePool },
    { "nn.adaptive_avg_pool2d", adaptivePool },
    { "nn.adaptive_avg_pool3d", adaptivePool },
    { "nn.adaptive_max_pool1d", adaptivePool },
    { "nn.adaptive_max_pool2d", adaptivePool },
    { "nn.adaptive_max_pool3d", adaptivePool },
    // multi-result and shape-changing nn ops
    { "nn.batch_norm", batchNorm },
    { "nn.dropout", dropout },
    { "image.resize", resize },
    { "image.resize1d", resize },
    { "image.resize2d", resize },
    { "image.resize3d", resize },
    { "nn.upsampling", upsampling },
    { "nn.upsampling3d", upsampling },
    { "nn.batch_flatten", batchFlatten },
    { "nn.pad", pad },
    { "nn.mirror_pad", pad },
    // transforms
    { "reshape", reshape },
    { "reshape_like", reshapeLike },
    { "transpose", transpose },
    { "concatenate", concatenate },
    { "stack", stack },
    { "squeeze", squeeze },
    { "expand_dims", expandDims },
    { "split", split },
    { "strided_slice", stridedSlice },
    { "slice_like", sliceLike },
    { "take", take },
    { "gather", gather },
    { "one_hot", oneHot },
    { "tile", tile },
    { "repeat", repeat },
    { "broadcast_to", broadcastTo },
    { "layout_transform", layoutTransform },
    { "dyn.reshape", dynamicShape },
    { "dyn.broadcast_to", dynamicShape },
    { "dyn.zeros", dynamicShape },
    { "dyn.ones", dynamicShape },
    { "dyn.full", dynamicShape },
    { "dyn.strided_slice", dynamicStridedSlice },
    // unary and layout-preserving: the result is the data type
    { "nn.relu", identity },
    { "nn.leaky_relu", identity },
    { "nn.prelu", identity },
    { "nn.softmax", identity },
    { "nn.fast_softmax", identity },
    { "nn.log_softmax", identity },
    { "nn.bias_add", identity },
    { "nn.layer_norm", identity },
    { "nn.group_norm", identity },
    { "nn.instance_norm", identity },
    { "nn.lrn", identity },
    { "nn.l2_normalize", identity },
    { "sigmoid", identity },
    { "tanh", identity },
    { "fast_tanh", identity },
    { "exp", identity },
    { "fast_exp", identity },
    { "log", identity },
    { "log2", identity },
    { "log10", identity },
    { "sqrt", identity },
    { "rsqrt", identity },
    { "erf", identity },
    { "fast_erf", identity },
    { "negative", identity },
    { "abs", identity },
    { "sign", identity },
    { "floor", identity },
    { "ceil", identity },
    { "round", identity },
    { "trunc", identity },
    { "sin", identity },
    { "cos", identity },
    { "tan", identity },
    { "atan", identity },
    { "clip", identity },
    { "copy", identity },
    { "reverse", identity },
    { "logical_not", identity },
    { "bitwise_not", identity },
    { "zeros_like", identity },
    { "ones_like", identity },
    { "full_like", identity },
    { "stop_gradient", identity },
    { "fixed_point_multiply", identity },
    { "scatter", identity },
    { "scatter_add", identity },
    { "scatter_elements", identity },
    { "scatter_nd", identity },
    { "annotation.stop_fusion", identity },
    { "annotation.compiler_begin", identity },
    { "annotation.compiler_end", identity },
    { "annotation.checkpoint", identity },
    { "on_device", identity },
    { "device_copy", identity },
    { "isnan", unaryPredicate },
    { "isinf", unaryPredicate },
    { "isfinite", unaryPredicate },
    { "cast", cast },
    { "reinterpret", cast },
    { "cast_like", castLike },
    { "broadcast_to_like", likeSecond },
    { "collapse_sum_like", likeSecond },
    { "nn.avg_pool2d_grad", secondArgument },
    { "nn.max_pool2d_grad", secondArgument },
    // binary broadcast
    { "add", binaryBroadcast },
    { "subtract", binaryBroadcast },
    { "multiply", binaryBroadcast },
    { "divide", binaryBroadcast },
    { "floor_divide", binaryBroadcast },
    { "trunc_divide", binaryBroadcast },
    { "mod", binaryBroadcast },
    { "floor_mod", binaryBroadcast },
    { "trunc_mod", binaryBroadcast },
    { "power", binaryBroadcast },
    { "maximum", binaryBroadcast },
    { "minimum", binaryBroadcast },
    { "atan2", binaryBroadcast },
    { "bitwise_and", binaryBroadcast },
    { "bitwise_or", binaryBroadcast },
    { "bitwise_xor", binaryBroadcast },
    { "left_shift", binaryBroadcast },
    { "right_shift", binaryBroadcast },
    { "logical_and", binaryBroadcast },
    { "logical_or", binaryBroadcast },
    { "logical_xor", binaryBroadcast },
    { "equal", comparison },
    { "not_equal", comparison },
    { "less", comparison },
    { "less_equal", comparison },
    { "greater", comparison },
    { "greater_equal", comparison },
    { "where", where },
    // reductions
    { "sum", reduction },
    { "mean", reduction },
    { "max", reduction },
    { "min", reduction },
    { "prod", reduction },
    { "variance", reduction },
    { "std", reduction },
    { "all", reduction },
    { "any", reduction },
    { "argmax", reduction },
    { "argmin", reduction },
    // creation and shape queries
    { "zeros", initialiser },
    { "ones", initialiser },
    { "full", initialiser },
    { "arange", arange },
    { "shape_of", shapeOf },
};

const std::unordered_map<std::string_view, OpShapeRule> &ruleIndex()
{
    static const std::unordered_map<std::string_view, OpShapeRule> index = [] {
        std::unordered_map<std::string_view, OpShapeRule> map;
        for (const RuleEntry &e : ruleTable)
            map.emplace(e.op, e.rule);
        return map;
    }();
    return index;
}

} // namespace

OpShapeRule findOpShapeRule(std::string_view op)
{
    const auto &index = ruleIndex();
    const auto it = index.find(op);
    if (it == index.end())
        return op.starts_with("relax.") ? findRelaxShapeRule(op) : nullptr;
    return it->second;
}

Type inferOpCallType(const OpShapeQuery &query)
{
    const OpShapeRule rule = findOpShapeRule(query.op);
    return rule ? rule(query) : Type::unknown();
}

std::vector<std::string> opsWithShapeRules()
{
    std::vector<std::string> ops;
    for (const RuleEntry &e : ruleTable)
        ops.emplace_back(e.op);
    std::sort(ops.begin(), ops.end());
    return ops;
}

} // namespace cleave
