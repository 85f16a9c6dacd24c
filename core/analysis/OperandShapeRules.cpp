// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The argument types an operator implies (the reverse direction of the shape rules): TVM's
// relations assign the weight of a convolution or dense layer and the per-channel vectors of the
// normalisations from the data type and the attributes, which is how a module whose constants
// live in a missing metadata section still gets typed weights.
#include "core/analysis/OpShapeRules.h"
#include "core/analysis/ShapeRuleSupport.h"

namespace cleave {

using namespace cleave::shapes;

namespace {

/// The weight of a convolution (or its transpose, where the kernel is I-major) from `channels`,
/// `kernel_size`, `groups` and the data's channel count, in `kernel_layout`.
Type convolutionWeight(const OpShapeQuery &q, bool transposed)
{
    const Type &data = q.input(0);
    const std::size_t spatial = spatialRankOf(q.op, 2);
    const std::string letters = spatialLetters(spatial);
    const std::string canonical = "NC" + letters;
    const std::string kernelCanonical = (transposed ? "IO" : "OI") + letters;
    const auto dataLayout = Layout::parse(stringAttr(q.attrs, "data_layout", canonical));
    const auto kernelLayout = Layout::parse(stringAttr(q.attrs, "kernel_layout", kernelCanonical));
    const auto channels = intAttr(q.attrs, "channels");
    const auto kernel = intListAttr(q.attrs, "kernel_size");
    const std::int64_t groups = intAttr(q.attrs, "groups").value_or(1);
    if (!dataLayout || !kernelLayout || !channels || !kernel || kernel->size() != spatial
        || groups <= 0)
        return Type::unknown();
    const auto in = dataLayout->primalExtents(data.shape, canonical);
    if (!in || !(*in)[1].isKnown())
        return Type::unknown();
    const Dim inPerGroup = floorDiv((*in)[1], groups);
    const Dim outPerGroup = Dim::known(*channels / groups);
    // OIHW: (channels, C / groups, k...); IOHW: (C, channels / groups, k...).
    std::vector<Dim> extents { transposed ? (*in)[1] : Dim::known(*channels),
                               transposed ? outPerGroup : inPerGroup };
    for (std::int64_t k : *kernel)
        extents.push_back(Dim::known(k));
    const auto shape = kernelLayout->shapeFromPrimal(extents, kernelCanonical);
    return shape ? Type::tensor(*shape, data.dtype) : Type::unknown();
}

/// A rank-1 (C) vector where C is the data's extent on the `axis` attribute.
Type channelVector(const OpShapeQuery &q, std::int64_t defaultAxis)
{
    const Type &data = q.input(0);
    const auto axis
        = normaliseAxis(intAttr(q.attrs, "axis").value_or(defaultAxis), data.shape.size());
    if (!axis || !data.shape[*axis].isKnown())
        return Type::unknown();
    return Type::tensor({ data.shape[*axis] }, data.dtype);
}

} // namespace

std::vector<Type> impliedOperandTypes(const OpShapeQuery &q)
{
    std::vector<Type> out(q.inputs.size());
    const Type &data = q.input(0);
    if (!data.isTensor() || out.size() < 2)
        return out;
    const std::string_view op = q.op;
    if (op == "nn.conv1d" || op == "nn.conv2d" || op == "nn.conv3d") {
        out[1] = convolutionWeight(q, false);
    } else if (op == "nn.conv1d_transpose" || op == "nn.conv2d_transpose"
               || op == "nn.conv3d_transpose") {
        out[1] = convolutionWeight(q, true);
    } else if (op == "nn.dense") {
        const auto units = intAttr(q.attrs, "units");
        if (units && !data.shape.empty() && data.shape.back().isKnown())
            out[1] = Type::tensor({ Dim::known(*units), data.shape.back() }, data.dtype);
    } else if (op == "nn.batch_norm") {
        // gamma, beta, moving_mean, moving_var.
        const Type vec = channelVector(q, 1);
        for (std::size_t i = 1; i < out.size() && i <= 4; ++i)
            out[i] = vec;
    } else if (op == "nn.layer_norm" || op == "nn.group_norm" || op == "nn.instance_norm") {
        const Type vec = channelVector(q, op == "nn.layer_norm" ? -1 : 1);
        for (std::size_t i = 1; i < out.size() && i <= 2; ++i)
            out[i] = vec;
    } else if (op == "nn.bias_add" || op == "nn.prelu") {
        out[1] = channelVector(q, 1);
    }
    return out;
}

} // namespace cleave
