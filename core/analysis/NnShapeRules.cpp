// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Shape rules of the nn.* operators: convolutions, dense/matmul, pooling, normalisation, resizing.
#include "core/analysis/OpShapeRules.h"
#include "core/analysis/ShapeRuleSupport.h"

#include <cmath>

namespace cleave::shaperules {

using namespace cleave::shapes;

namespace {

/// Where a rule reads its data-layout attribute and which canonical primal order it computes in.
struct SpatialLayouts
{
    Layout data;
    Layout out;
    std::string canonical; ///< "NC" followed by the spatial letters.
};

/// Parses `layoutKey` (default NC + spatial letters) and `out_layout` (default: the data layout).
std::optional<SpatialLayouts> spatialLayouts(const OpShapeQuery &q, std::size_t spatial,
                                             const std::string &layoutKey)
{
    const std::string canonical = "NC" + spatialLetters(spatial);
    const std::string dataText = stringAttr(q.attrs, layoutKey, canonical);
    const std::optional<Layout> data = Layout::parse(dataText);
    const std::optional<Layout> out = Layout::parse(stringAttr(q.attrs, "out_layout", dataText));
    if (!data || !out)
        return std::nullopt;
    return SpatialLayouts { *data, *out, canonical };
}

std::optional<std::vector<std::int64_t>> paddingOf(const Attributes &attrs, std::size_t spatial)
{
    return totalPadding(intListAttr(attrs, "padding").value_or(std::vector<std::int64_t> {}),
                        spatial);
}

Type tensorIn(const std::optional<std::vector<Dim>> &shape, const std::string &dtype)
{
    return shape ? Type::tensor(*shape, dtype) : Type::unknown();
}

/// Shared by convolution and its transpose: the output channel count and the kernel extents,
/// from the `channels`/`kernel_size` attributes or else from the weight in `kernelCanonical`
/// primal order (where `outIndex` is the position of O).
struct KernelInfo
{
    Dim channels;
    std::vector<Dim> kernel;
};

std::optional<KernelInfo> kernelInfo(const OpShapeQuery &q, std::size_t spatial,
                                     const std::string &kernelCanonical, std::size_t outIndex)
{
    const std::optional<Layout> kernelLayout
        = Layout::parse(stringAttr(q.attrs, "kernel_layout", kernelCanonical));
    std::optional<std::vector<Dim>> weight;
    if (q.input(1).isTensor() && kernelLayout)
        weight = kernelLayout->primalExtents(q.input(1).shape, kernelCanonical);

    KernelInfo info;
    if (const auto channels = intAttr(q.attrs, "channels"))
        info.channels = Dim::known(*channels);
    else if (weight)
        info.channels = (*weight)[outIndex];
    else
        return std::nullopt;

    if (const auto sizes = intListAttr(q.attrs, "kernel_size"); sizes && sizes->size() == spatial) {
        for (std::int64_t k : *sizes)
            info.kernel.push_back(Dim::known(k));
    } else if (weight) {
        info.kernel.assign(weight->begin() + 2, weight->end());
    } else {
        return std::nullopt;
    }
    return info;
}

} // namespace

Type convolution(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::size_t spatial = spatialRankOf(q.op, 2);
    const auto layouts = spatialLayouts(q, spatial, "data_layout");
    if (!data.isTensor() || !layouts)
        return Type::unknown();
    const auto in = layouts->data.primalExtents(data.shape, layouts->canonical);
    const auto kernel = kernelInfo(q, spatial, "OI" + spatialLetters(spatial), 0);
    const auto strides = spatialAttr(q.attrs, "strides", spatial, 1);
    const auto dilation = spatialAttr(q.attrs, "dilation", spatial, 1);
    const auto padding = paddingOf(q.attrs, spatial);
    if (!in || !kernel || !strides || !dilation || !padding)
        return Type::unknown();

    std::vector<Dim> out { (*in)[0], kernel->channels };
    for (std::size_t i = 0; i < spatial; ++i) {
        const Dim &k = kernel->kernel[i];
        out.push_back(k.isKnown()
                          ? windowOutput((*in)[2 + i], (*padding)[i],
                                         dilatedKernel(k.value, (*dilation)[i]), (*strides)[i])
                          : Dim::unknown());
    }
    return tensorIn(layouts->out.shapeFromPrimal(out, layouts->canonical),
                    outDtype(q.attrs, data.dtype));
}

Type convolutionTranspose(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::size_t spatial = spatialRankOf(q.op, 2);
    const auto layouts = spatialLayouts(q, spatial, "data_layout");
    if (!data.isTensor() || !layouts)
        return Type::unknown();
    const auto in = layouts->data.primalExtents(data.shape, layouts->canonical);
    // v0.14 kernels default to IOHW; TVM takes O from the weight without multiplying by groups.
    const auto kernel = kernelInfo(q, spatial, "IO" + spatialLetters(spatial), 1);
    const auto strides = spatialAttr(q.attrs, "strides", spatial, 1);
    const auto dilation = spatialAttr(q.attrs, "dilation", spatial, 1);
    const auto outputPadding = spatialAttr(q.attrs, "output_padding", spatial, 0);
    const auto padding = paddingOf(q.attrs, spatial);
    if (!in || !kernel || !strides || !dilation || !outputPadding || !padding)
        return Type::unknown();

    std::vector<Dim> out { (*in)[0], kernel->channels };
    for (std::size_t i = 0; i < spatial; ++i) {
        const Dim &x = (*in)[2 + i];
        const Dim &k = kernel->kernel[i];
        if (!x.isKnown() || !k.isKnown()) {
            out.push_back(Dim::unknown());
            continue;
        }
        out.push_back(Dim::known((*strides)[i] * (x.value - 1)
                                 + dilatedKernel(k.value, (*dilation)[i]) - (*padding)[i]
                                 + (*outputPadding)[i]));
    }
    return tensorIn(layouts->out.shapeFromPrimal(out, layouts->canonical),
                    outDtype(q.attrs, data.dtype));
}

Type dense(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor() || data.shape.empty())
        return Type::unknown();
    const bool isMatmul = q.op == "nn.matmul";
    const bool transposeA = isMatmul && boolAttr(q.attrs, "transpose_a", false);
    const bool transposeB = !isMatmul || boolAttr(q.attrs, "transpose_b", false);

    std::vector<Dim> out = data.shape;
    const std::size_t rank = out.size();
    if (transposeA && rank >= 2)
        out[rank - 2] = data.shape[rank - 1];
    if (const auto units = intAttr(q.attrs, "units")) {
        out[rank - 1] = Dim::known(*units);
    } else if (const Type &w = q.input(1); w.isTensor() && w.shape.size() == 2) {
        out[rank - 1] = transposeB ? w.shape[0] : w.shape[1];
    } else {
        return Type::unknown();
    }
    return Type::tensor(std::move(out), outDtype(q.attrs, data.dtype));
}

Type batchMatmul(const OpShapeQuery &q)
{
    const Type &x = q.input(0);
    const Type &y = q.input(1);
    if (!x.isTensor() || !y.isTensor() || x.shape.size() != 3 || y.shape.size() != 3)
        return Type::unknown();
    const bool transposeA = boolAttr(q.attrs, "transpose_a", false);
    const bool transposeB = boolAttr(q.attrs, "transpose_b", true);
    const std::optional<Dim> batch = broadcast(x.shape[0], y.shape[0]);
    if (!batch)
        return Type::unknown();
    return Type::tensor({ *batch, x.shape[transposeA ? 2 : 1], y.shape[transposeB ? 1 : 2] },
                        outDtype(q.attrs, x.dtype));
}

Type pool(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::size_t spatial = spatialRankOf(q.op, 2);
    const auto layouts = spatialLayouts(q, spatial, "layout");
    if (!data.isTensor() || !layouts)
        return Type::unknown();
    auto shape = layouts->data.primalExtents(data.shape, layouts->canonical);
    const auto window = intListAttr(q.attrs, "pool_size");
    const auto strides = spatialAttr(q.attrs, "strides", spatial, 1);
    const auto dilation = spatialAttr(q.attrs, "dilation", spatial, 1);
    const auto padding = paddingOf(q.attrs, spatial);
    if (!shape || !window || (window->size() != spatial && window->size() != 1) || !strides
        || !dilation || !padding)
        return Type::unknown();
    const bool ceilMode = boolAttr(q.attrs, "ceil_mode", false);
    for (std::size_t i = 0; i < spatial; ++i) {
        const std::int64_t k = window->size() == 1 ? window->front() : (*window)[i];
        Dim &d = (*shape)[2 + i];
        d = windowOutput(d, (*padding)[i], dilatedKernel(k, (*dilation)[i]), (*strides)[i],
                         ceilMode);
    }
    return tensorIn(layouts->out.shapeFromPrimal(*shape, layouts->canonical), data.dtype);
}

Type globalPool(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::size_t spatial = spatialRankOf(q.op, 2);
    const auto layouts = spatialLayouts(q, spatial, "layout");
    if (!data.isTensor() || !layouts)
        return Type::unknown();
    auto shape = layouts->data.primalExtents(data.shape, layouts->canonical);
    if (!shape)
        return Type::unknown();
    for (std::size_t i = 0; i < spatial; ++i)
        (*shape)[2 + i] = Dim::known(1);
    return tensorIn(layouts->out.shapeFromPrimal(*shape, layouts->canonical), data.dtype);
}

Type adaptivePool(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::size_t spatial = spatialRankOf(q.op, 2);
    const auto layouts = spatialLayouts(q, spatial, "layout");
    if (!data.isTensor() || !layouts)
        return Type::unknown();
    auto shape = layouts->data.primalExtents(data.shape, layouts->canonical);
    const auto sizes = optionalIntListAttr(q.attrs, "output_size");
    if (!shape)
        return Type::unknown();
    // An absent or empty output_size keeps the input extents; one value serves every dim; a None
    // item keeps that dim.
    if (sizes && !sizes->empty()) {
        if (sizes->size() != 1 && sizes->size() != spatial)
            return Type::unknown();
        for (std::size_t i = 0; i < spatial; ++i) {
            const auto &s = sizes->size() == 1 ? sizes->front() : (*sizes)[i];
            if (s)
                (*shape)[2 + i] = Dim::known(*s);
        }
    } else if (const auto single = intAttr(q.attrs, "output_size")) {
        for (std::size_t i = 0; i < spatial; ++i)
            (*shape)[2 + i] = Dim::known(*single);
    }
    return tensorIn(layouts->out.shapeFromPrimal(*shape, layouts->canonical), data.dtype);
}

Type batchNorm(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor())
        return Type::unknown();
    const auto axis = normaliseAxis(intAttr(q.attrs, "axis").value_or(1), data.shape.size());
    if (!axis)
        return Type::unknown();
    const Type stat = Type::tensor({ data.shape[*axis] }, data.dtype);
    return Type::tuple({ data, stat, stat });
}

Type dropout(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    return data.isTensor() ? Type::tuple({ data, data }) : Type::unknown();
}

Type resize(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::size_t spatial = spatialRankOf(q.op, 2);
    const auto layouts = spatialLayouts(q, spatial, "layout");
    const auto size = intListAttr(q.attrs, "size");
    if (!data.isTensor() || !layouts || !size || size->size() != spatial)
        return Type::unknown();
    auto shape = layouts->data.primalExtents(data.shape, layouts->canonical);
    if (!shape)
        return Type::unknown();
    for (std::size_t i = 0; i < spatial; ++i)
        (*shape)[2 + i] = Dim::known((*size)[i]);
    // Resize has no out_layout: the result keeps the data layout.
    return tensorIn(layouts->data.shapeFromPrimal(*shape, layouts->canonical),
                    outDtype(q.attrs, data.dtype));
}

Type upsampling(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::size_t spatial = q.op == "nn.upsampling3d" ? 3 : 2;
    const auto layouts = spatialLayouts(q, spatial, "layout");
    if (!data.isTensor() || !layouts)
        return Type::unknown();
    auto shape = layouts->data.primalExtents(data.shape, layouts->canonical);
    if (!shape)
        return Type::unknown();
    const char *keys[] = { "scale_d", "scale_h", "scale_w" };
    for (std::size_t i = 0; i < spatial; ++i) {
        const std::optional<double> scale = floatAttr(q.attrs, keys[3 - spatial + i]);
        Dim &d = (*shape)[2 + i];
        // TVM computes round(extent · scale) in the shape's integer type.
        if (!d.isKnown() || !scale) {
            d = Dim::unknown();
            continue;
        }
        d = Dim::known(
            static_cast<std::int64_t>(std::round(static_cast<double>(d.value) * *scale)));
    }
    return tensorIn(layouts->data.shapeFromPrimal(*shape, layouts->canonical), data.dtype);
}

Type batchFlatten(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor() || data.shape.empty())
        return Type::unknown();
    const std::span<const Dim> rest(data.shape.begin() + 1, data.shape.end());
    return Type::tensor({ data.shape[0], product(rest) }, data.dtype);
}

Type pad(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const AttrValue *width = q.attrs.find("pad_width");
    if (!data.isTensor() || !width || width->kind != AttrValue::Kind::List
        || width->list.size() != data.shape.size())
        return Type::unknown();
    std::vector<Dim> out;
    out.reserve(data.shape.size());
    for (std::size_t i = 0; i < data.shape.size(); ++i) {
        const auto pads = width->list[i].toIntList();
        if (!pads || pads->size() != 2)
            return Type::unknown();
        const std::int64_t total = (*pads)[0] + (*pads)[1];
        out.push_back(total == 0 ? data.shape[i] : add(data.shape[i], total));
    }
    return Type::tensor(std::move(out), data.dtype);
}

} // namespace cleave::shaperules
