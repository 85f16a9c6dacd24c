// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/AttrValue.h"
#include "core/graph/Type.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// Everything a shape rule may look at for one operator call: the operator name, the types of
/// its arguments (Unknown where not known), the call attributes, and the values of arguments
/// that are inline scalar constants (`1f`, `0i64`; null elsewhere), which `arange` needs.
struct OpShapeQuery
{
    std::string_view op;
    std::span<const Type> inputs;
    const Attributes &attrs;
    std::span<const AttrValue *const> scalarInputs = {};

    /// The type of argument `i`, or an Unknown type when absent.
    [[nodiscard]] const Type &input(std::size_t i) const;
    /// The value of argument `i` when it is an inline scalar constant, else nullptr.
    [[nodiscard]] const AttrValue *scalarInput(std::size_t i) const;
};

/// A shape rule: the output type of a call (a tensor, or a tuple for multi-result operators), or
/// an Unknown type when the arguments it needs are not known or the attributes are unusable.
/// Rules never throw and never assert on user data.
using OpShapeRule = Type (*)(const OpShapeQuery &query);

/// The rule registered for `op` (`nn.conv2d`, `add`, ...), or nullptr when Cleave has none.
OpShapeRule findOpShapeRule(std::string_view op);

/// Runs the rule for `query.op`; Unknown when there is no rule or it cannot decide.
Type inferOpCallType(const OpShapeQuery &query);

/// The types an operator implies for some of its arguments, as TVM's type relations assign
/// them: a convolution's or dense layer's weight from the data type and the `channels` /
/// `kernel_size` / `units` attributes, the (C) vectors of batch_norm, bias_add, layer_norm and
/// prelu. One entry per argument, Unknown where the operator implies nothing. Inference uses it
/// to type tensor constants that have no metadata (OperandShapeRules.cpp).
std::vector<Type> impliedOperandTypes(const OpShapeQuery &query);

/// Every operator name that has a rule, sorted (for documentation and tests).
std::vector<std::string> opsWithShapeRules();

/// The rule families, one function per family (TVM v0.14 type relations, src/relay/op/).
/// Each is registered under every operator name it serves in OpShapeRules.cpp.
namespace shaperules {

// nn: NnShapeRules.cpp
Type convolution(const OpShapeQuery &q); ///< nn.conv1d / conv2d / conv3d.
Type convolutionTranspose(const OpShapeQuery &q); ///< nn.conv1d_transpose / conv2d_transpose.
Type dense(const OpShapeQuery &q); ///< nn.dense and nn.matmul.
Type batchMatmul(const OpShapeQuery &q); ///< nn.batch_matmul.
Type pool(const OpShapeQuery &q); ///< nn.{max,avg}_pool{1,2,3}d.
Type globalPool(const OpShapeQuery &q); ///< nn.global_{avg,max}_pool{1,2,3}d.
Type adaptivePool(const OpShapeQuery &q); ///< nn.adaptive_{avg,max}_pool{1,2,3}d.
Type batchNorm(const OpShapeQuery &q); ///< nn.batch_norm: (data, mean, var).
Type dropout(const OpShapeQuery &q); ///< nn.dropout: (data, mask).
Type resize(const OpShapeQuery &q); ///< image.resize1d / resize2d / resize3d / resize.
Type upsampling(const OpShapeQuery &q); ///< nn.upsampling / nn.upsampling3d.
Type batchFlatten(const OpShapeQuery &q); ///< nn.batch_flatten.
Type pad(const OpShapeQuery &q); ///< nn.pad / nn.mirror_pad.

// tensor transforms: TransformShapeRules.cpp
Type reshape(const OpShapeQuery &q); ///< reshape with the 0/-1/-2/-3/-4 codes.
Type reshapeLike(const OpShapeQuery &q); ///< reshape_like.
Type transpose(const OpShapeQuery &q); ///< transpose.
Type concatenate(const OpShapeQuery &q); ///< concatenate of a tuple.
Type stack(const OpShapeQuery &q); ///< stack of a tuple.
Type squeeze(const OpShapeQuery &q); ///< squeeze.
Type expandDims(const OpShapeQuery &q); ///< expand_dims.
Type split(const OpShapeQuery &q); ///< split: a tuple of sections.
Type stridedSlice(const OpShapeQuery &q); ///< strided_slice (begin/end/strides/axes/slice_mode).
Type sliceLike(const OpShapeQuery &q); ///< slice_like.
Type take(const OpShapeQuery &q); ///< take (axis or flattened, batch_dims).
Type gather(const OpShapeQuery &q); ///< gather: the indices' shape.
Type oneHot(const OpShapeQuery &q); ///< one_hot.
Type tile(const OpShapeQuery &q); ///< tile.
Type repeat(const OpShapeQuery &q); ///< repeat.
Type broadcastTo(const OpShapeQuery &q); ///< broadcast_to (static shape attr).
Type layoutTransform(const OpShapeQuery &q); ///< layout_transform (src_layout → dst_layout).
Type dynamicShape(const OpShapeQuery &q); ///< dyn.reshape / broadcast_to / zeros / ones / full.
Type dynamicStridedSlice(const OpShapeQuery &q); ///< dyn.strided_slice.

// elementwise, reductions, creation: ElementwiseShapeRules.cpp
Type identity(const OpShapeQuery &q); ///< Unary and layout-preserving ops: the data type.
Type unaryPredicate(const OpShapeQuery &q); ///< isnan / isinf / isfinite: bool of data shape.
Type cast(const OpShapeQuery &q); ///< cast / reinterpret (dtype attr).
Type castLike(const OpShapeQuery &q); ///< cast_like: second argument's dtype.
Type likeSecond(const OpShapeQuery &q); ///< *_like ops shaped by the second argument.
Type secondArgument(const OpShapeQuery &q); ///< Gradient ops whose result is the second type.
Type binaryBroadcast(const OpShapeQuery &q); ///< add, multiply, ...: NumPy broadcasting.
Type comparison(const OpShapeQuery &q); ///< equal, less, ...: broadcast, bool result.
Type where(const OpShapeQuery &q); ///< where(cond, x, y): three-way broadcast.
Type reduction(const OpShapeQuery &q); ///< sum, mean, max, ..., argmax (int32).
Type initialiser(const OpShapeQuery &q); ///< zeros / ones / full (shape + dtype attrs).
Type arange(const OpShapeQuery &q); ///< arange with scalar constant start/stop/step.
Type shapeOf(const OpShapeQuery &q); ///< shape_of: rank-1 of the data rank.

// Relax operators whose spelling differs from Relay's: RelaxShapeRules.cpp
Type relaxMatmul(const OpShapeQuery &q); ///< relax.matmul: NumPy matmul (batch broadcast).
Type relaxReshape(const OpShapeQuery &q); ///< relax.reshape: the `R.shape` argument, one -1.
Type relaxShapeFill(const OpShapeQuery &q); ///< relax.zeros / ones / full: `R.shape` argument.
Type relaxBroadcastTo(const OpShapeQuery &q); ///< relax.broadcast_to: `R.shape` argument.
Type relaxExpandDims(const OpShapeQuery &q); ///< relax.expand_dims: a list of new axes.
Type relaxPad(const OpShapeQuery &q); ///< relax.nn.pad: flat (before, after) pad_width.
Type relaxTile(const OpShapeQuery &q); ///< relax.tile: NumPy tile of `repeats`.
Type relaxEinsum(const OpShapeQuery &q); ///< relax.einsum with an explicit `->` output.
Type relaxNonzero(const OpShapeQuery &q); ///< relax.nonzero: int64 (rank, count), both unknown.
Type relaxCumulative(const OpShapeQuery &q); ///< relax.cumsum / cumprod (axis, or flattened).
Type relaxLike(const OpShapeQuery &q); ///< relax.*_like: the data shape, `dtype` when set.

} // namespace shaperules

/// The rule for a Relax operator (`relax.nn.conv2d`, `relax.matmul`, ...): the Relay rule where
/// the attributes mean the same, a Relax rule above where they differ; nullptr when none.
OpShapeRule findRelaxShapeRule(std::string_view op);

} // namespace cleave
