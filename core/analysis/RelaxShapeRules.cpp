// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Shape rules for Relax operators (`relax.nn.conv2d`, `relax.matmul`, ...), for modules whose
// bindings carry no annotation. Where a Relax operator's attributes mean what the Relay
// operator's do (conv2d, pooling, reductions, split, take, ...), the Relay rule serves it; the
// rules below cover what Relax spells differently: shapes passed as `R.shape([...])` arguments,
// NumPy matmul, `expand_dims` with a list of axes, flat `pad_width`.
#include "core/analysis/OpShapeRules.h"
#include "core/analysis/ShapeRuleSupport.h"

#include <algorithm>
#include <map>

namespace cleave {

using namespace shapes;

namespace shaperules {

namespace {

/// The dims of a `R.shape([...])` argument (typed `R.Shape(...)`), or nullopt.
std::optional<std::vector<Dim>> shapeArgument(const OpShapeQuery &q, std::size_t i)
{
    const Type &t = q.input(i);
    if (t.kind != Type::Kind::Named || t.name != "R.Shape")
        return std::nullopt;
    return t.shape;
}

} // namespace

Type relaxMatmul(const OpShapeQuery &q)
{
    const Type &a = q.input(0);
    const Type &b = q.input(1);
    if (!a.isTensor() || !b.isTensor() || a.shape.empty() || b.shape.empty())
        return Type::unknown();
    // NumPy: a 1-D operand is a row (a) or a column (b) vector whose unit axis is dropped.
    std::vector<Dim> x = a.shape;
    std::vector<Dim> y = b.shape;
    const bool rowVector = x.size() == 1;
    const bool columnVector = y.size() == 1;
    if (rowVector)
        x.insert(x.begin(), Dim::known(1));
    if (columnVector)
        y.push_back(Dim::known(1));
    const std::vector<Dim> batchX(x.begin(), x.end() - 2);
    const std::vector<Dim> batchY(y.begin(), y.end() - 2);
    const auto batch = broadcastShapes(batchX, batchY);
    if (!batch)
        return Type::unknown();
    std::vector<Dim> out = *batch;
    if (!rowVector)
        out.push_back(x[x.size() - 2]);
    if (!columnVector)
        out.push_back(y.back());
    return Type::tensor(std::move(out), outDtype(q.attrs, a.dtype));
}

Type relaxReshape(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    auto shape = shapeArgument(q, 1);
    if (!data.isTensor() || !shape)
        return Type::unknown();
    // One -1 takes what the other dims leave of the element count.
    std::optional<std::size_t> inferAt;
    Dim rest = Dim::known(1);
    for (std::size_t i = 0; i < shape->size(); ++i) {
        const Dim &d = (*shape)[i];
        // The importer keeps `-1` as its source text (R.shape holds no `?`).
        if (d.symbol == "-1" || (d.value == Dim::dynamic && d.symbol.empty())) {
            if (inferAt)
                return Type::unknown();
            inferAt = i;
        } else {
            rest = mul(rest, d);
        }
    }
    if (inferAt) {
        const Dim total = product(data.shape);
        (*shape)[*inferAt] = total.isKnown() && rest.isKnown() && rest.value > 0
            ? Dim::known(total.value / rest.value)
            : Dim::unknown();
    }
    return Type::tensor(std::move(*shape), data.dtype);
}

Type relaxShapeFill(const OpShapeQuery &q)
{
    const auto shape = shapeArgument(q, 0);
    if (!shape)
        return Type::unknown();
    std::string dtype = stringAttr(q.attrs, "dtype", "");
    if (dtype.empty() && q.op == "relax.full")
        dtype = q.input(1).dtype; // full(shape, fill_value): the fill value's dtype
    return Type::tensor(*shape, dtype.empty() ? "float32" : dtype);
}

Type relaxBroadcastTo(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto shape = shapeArgument(q, 1);
    if (!data.isTensor() || !shape)
        return Type::unknown();
    return Type::tensor(*shape, data.dtype);
}

Type relaxExpandDims(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto axes = intListAttr(q.attrs, "axis");
    if (!data.isTensor() || !axes)
        return Type::unknown();
    const std::size_t rank = data.shape.size() + axes->size();
    std::vector<bool> isNew(rank, false);
    for (std::int64_t a : *axes) {
        const auto axis = normaliseAxis(a, rank);
        if (!axis || isNew[*axis])
            return Type::unknown();
        isNew[*axis] = true;
    }
    std::vector<Dim> out;
    std::size_t next = 0;
    for (std::size_t i = 0; i < rank; ++i)
        out.push_back(isNew[i] ? Dim::known(1) : data.shape[next++]);
    return Type::tensor(std::move(out), data.dtype);
}

Type relaxPad(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto widths = intListAttr(q.attrs, "pad_width");
    if (!data.isTensor() || !widths || widths->size() != 2 * data.shape.size())
        return Type::unknown();
    std::vector<Dim> out = data.shape;
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = add(out[i], (*widths)[2 * i] + (*widths)[2 * i + 1]);
    return Type::tensor(std::move(out), data.dtype);
}

Type relaxTile(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto repeats = intListAttr(q.attrs, "repeats");
    if (!data.isTensor() || !repeats)
        return Type::unknown();
    // NumPy tile: the shorter of the two is padded with leading ones.
    const std::size_t rank = std::max(data.shape.size(), repeats->size());
    std::vector<Dim> out;
    for (std::size_t i = 0; i < rank; ++i) {
        const std::size_t fromEnd = rank - i;
        const Dim d = fromEnd <= data.shape.size() ? data.shape[data.shape.size() - fromEnd]
                                                   : Dim::known(1);
        const std::int64_t r
            = fromEnd <= repeats->size() ? (*repeats)[repeats->size() - fromEnd] : 1;
        out.push_back(mul(d, r));
    }
    return Type::tensor(std::move(out), data.dtype);
}

Type relaxLike(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor())
        return Type::unknown();
    const std::string dtype = stringAttr(q.attrs, "dtype", "");
    return Type::tensor(data.shape, dtype.empty() || dtype == "void" ? data.dtype : dtype);
}

Type relaxCumulative(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor())
        return Type::unknown();
    std::string dtype = stringAttr(q.attrs, "dtype", data.dtype);
    if (dtype == "void") // TVMScript's spelling of "the input's dtype"
        dtype = data.dtype;
    if (intAttr(q.attrs, "axis"))
        return Type::tensor(data.shape, dtype);
    // No axis: over the flattened input.
    return Type::tensor({ product(data.shape) }, dtype);
}

/// `R.nonzero(x)`: the indices of x's non-zero elements, (rank of x, their count) in int64. The
/// count is known only at run time, and TVM types the result by its rank alone
/// (`R.Tensor(dtype="int64", ndim=2)`), so both dims are unknown here too.
Type relaxNonzero(const OpShapeQuery &q)
{
    if (!q.input(0).isTensor())
        return Type::unknown();
    return Type::tensor({ Dim::unknown(), Dim::unknown() }, "int64");
}

Type relaxEinsum(const OpShapeQuery &q)
{
    const Type &operands = q.input(0);
    const std::string subscripts = stringAttr(q.attrs, "subscripts", "");
    const std::size_t arrow = subscripts.find("->");
    if (!operands.isTuple() || arrow == std::string::npos
        || subscripts.find('.') != std::string::npos)
        return Type::unknown(); // implicit outputs and ellipses are not inferred
    // Each letter's extent from the operand that names it.
    std::map<char, Dim> extent;
    std::size_t operand = 0;
    std::size_t axis = 0;
    for (std::size_t i = 0; i < arrow; ++i) {
        const char c = subscripts[i];
        if (c == ',') {
            ++operand;
            axis = 0;
            continue;
        }
        if (c == ' ')
            continue;
        if (operand >= operands.fields.size() || !operands.fields[operand].isTensor()
            || axis >= operands.fields[operand].shape.size())
            return Type::unknown();
        const Dim &d = operands.fields[operand].shape[axis++];
        if (!extent.contains(c) || !extent[c].isKnown())
            extent[c] = d;
    }
    std::vector<Dim> out;
    for (std::size_t i = arrow + 2; i < subscripts.size(); ++i) {
        const char c = subscripts[i];
        if (c == ' ')
            continue;
        const auto it = extent.find(c);
        if (it == extent.end())
            return Type::unknown();
        out.push_back(it->second);
    }
    return Type::tensor(std::move(out), operands.fields.front().dtype);
}

} // namespace shaperules

namespace {

using namespace shaperules;

using RuleMap = std::map<std::string, OpShapeRule, std::less<>>;

const RuleMap &relaxRules()
{
    static const RuleMap rules = [] {
        RuleMap r {
            { "relax.nn.conv1d", convolution },
            { "relax.nn.conv2d", convolution },
            { "relax.nn.conv3d", convolution },
            { "relax.nn.conv1d_transpose", convolutionTranspose },
            { "relax.nn.conv2d_transpose", convolutionTranspose },
            { "relax.nn.max_pool1d", pool },
            { "relax.nn.max_pool2d", pool },
            { "relax.nn.max_pool3d", pool },
            { "relax.nn.avg_pool1d", pool },
            { "relax.nn.avg_pool2d", pool },
            { "relax.nn.avg_pool3d", pool },
            { "relax.nn.adaptive_avg_pool1d", adaptivePool },
            { "relax.nn.adaptive_avg_pool2d", adaptivePool },
            { "relax.nn.adaptive_avg_pool3d", adaptivePool },
            { "relax.nn.upsampling", upsampling },
            { "relax.image.resize2d", resize },
            { "relax.matmul", relaxMatmul },
            { "relax.einsum", relaxEinsum },
            { "relax.cumsum", relaxCumulative },
            { "relax.cumprod", relaxCumulative },
            { "relax.reshape", relaxReshape },
            { "relax.permute_dims", transpose },
            { "relax.concat", concatenate },
            { "relax.stack", stack },
            { "relax.squeeze", squeeze },
            { "relax.expand_dims", relaxExpandDims },
            { "relax.split", split },
            { "relax.strided_slice", stridedSlice },
            { "relax.take", take },
            { "relax.repeat", repeat },
            { "relax.tile", relaxTile },
            { "relax.broadcast_to", relaxBroadcastTo },
            { "relax.nn.pad", relaxPad },
            { "relax.astype", cast },
            { "relax.where", where },
            { "relax.zeros", relaxShapeFill },
            { "relax.ones", relaxShapeFill },
            { "relax.full", relaxShapeFill },
            { "relax.zeros_like", relaxLike },
            { "relax.ones_like", relaxLike },
            { "relax.full_like", relaxLike },
            { "relax.arange", arange },
            { "relax.shape_of", shapeOf },
            { "relax.nonzero", relaxNonzero },
        };
        const std::string prefix = "relax.";
        for (const char *op : { "add", "subtract", "multiply", "divide", "floor_divide", "power",
                                "maximum", "minimum", "mod", "floor_mod", "bitwise_and",
                                "bitwise_or", "logical_and", "logical_or" })
            r.emplace(prefix + op, binaryBroadcast);
        for (const char *op :
             { "equal", "not_equal", "less", "less_equal", "greater", "greater_equal" })
            r.emplace(prefix + op, comparison);
        for (const char *op : { "sum", "mean", "max", "min", "prod", "variance", "std" })
            r.emplace(prefix + op, reduction);
        for (const char *op : { "nn.relu",
                                "nn.gelu",
                                "nn.gelu_tanh",
                                "nn.silu",
                                "nn.leakyrelu",
                                "nn.softmax",
                                "nn.log_softmax",
                                "nn.layer_norm",
                                "nn.group_norm",
                                "nn.rms_norm",
                                "sigmoid",
                                "tanh",
                                "exp",
                                "log",
                                "sqrt",
                                "rsqrt",
                                "erf",
                                "cos",
                                "sin",
                                "negative",
                                "abs",
                                "square",
                                "clip",
                                "round",
                                "floor",
                                "ceil" })
            r.emplace(prefix + op, identity);
        return r;
    }();
    return rules;
}

} // namespace

OpShapeRule findRelaxShapeRule(std::string_view op)
{
    const auto &rules = relaxRules();
    const auto it = rules.find(op);
    return it == rules.end() ? nullptr : it->second;
}

} // namespace cleave
