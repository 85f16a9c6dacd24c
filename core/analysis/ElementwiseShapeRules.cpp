// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Shape rules of elementwise and broadcasting operators, reductions and tensor creation.
#include "core/analysis/OpShapeRules.h"
#include "core/analysis/ShapeRuleSupport.h"

#include <cmath>

namespace cleave::shaperules {

using namespace cleave::shapes;

namespace {

/// Broadcasts the shapes of arguments [first, first + count); nullopt when one is not a tensor or
/// the shapes are incompatible.
std::optional<std::vector<Dim>> broadcastInputs(const OpShapeQuery &q, std::size_t first,
                                                std::size_t count)
{
    std::vector<Dim> shape;
    for (std::size_t i = first; i < first + count; ++i) {
        const Type &t = q.input(i);
        if (!t.isTensor())
            return std::nullopt;
        if (i == first) {
            shape = t.shape;
            continue;
        }
        auto merged = broadcastShapes(shape, t.shape);
        if (!merged)
            return std::nullopt;
        shape = std::move(*merged);
    }
    return shape;
}

} // namespace

Type identity(const OpShapeQuery &q)
{
    // Unary maths, activations, normalisations that keep the data shape, annotations: the result
    // is the data argument's type, whatever it is (compiler_end may wrap a tuple).
    return q.input(0);
}

Type unaryPredicate(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    return data.isTensor() ? Type::tensor(data.shape, "bool") : Type::unknown();
}

Type cast(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const std::string dtype = stringAttr(q.attrs, "dtype", {});
    if (!data.isTensor() || dtype.empty())
        return Type::unknown();
    return Type::tensor(data.shape, dtype);
}

Type castLike(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const Type &like = q.input(1);
    if (!data.isTensor() || !like.isTensor())
        return Type::unknown();
    return Type::tensor(data.shape, like.dtype);
}

Type likeSecond(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const Type &like = q.input(1);
    if (!data.isTensor() || !like.isTensor())
        return Type::unknown();
    return Type::tensor(like.shape, data.dtype);
}

Type secondArgument(const OpShapeQuery &q)
{
    return q.input(1).isTensor() ? q.input(1) : Type::unknown();
}

Type binaryBroadcast(const OpShapeQuery &q)
{
    const auto shape = broadcastInputs(q, 0, 2);
    return shape ? Type::tensor(*shape, q.input(0).dtype) : Type::unknown();
}

Type comparison(const OpShapeQuery &q)
{
    const auto shape = broadcastInputs(q, 0, 2);
    return shape ? Type::tensor(*shape, "bool") : Type::unknown();
}

Type where(const OpShapeQuery &q)
{
    const auto shape = broadcastInputs(q, 0, 3);
    return shape ? Type::tensor(*shape, q.input(1).dtype) : Type::unknown();
}

Type reduction(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor())
        return Type::unknown();
    const std::size_t rank = data.shape.size();
    std::vector<bool> reduced(rank, true);
    // axis=None reduces everything; a list (even an empty one) reduces the listed axes, or all
    // the others with exclude=True.
    if (const auto axes = intListAttr(q.attrs, "axis")) {
        const bool exclude = boolAttr(q.attrs, "exclude", false);
        std::fill(reduced.begin(), reduced.end(), exclude);
        for (std::int64_t a : *axes) {
            const auto axis = normaliseAxis(a, rank);
            if (!axis)
                return Type::unknown();
            reduced[*axis] = !exclude;
        }
    }
    const bool keepDims = boolAttr(q.attrs, "keepdims", false);
    std::vector<Dim> out;
    for (std::size_t i = 0; i < rank; ++i) {
        if (!reduced[i])
            out.push_back(data.shape[i]);
        else if (keepDims)
            out.push_back(Dim::known(1));
    }
    const bool index = q.op == "argmax" || q.op == "argmin";
    return Type::tensor(std::move(out), index ? std::string("int32") : data.dtype);
}

Type initialiser(const OpShapeQuery &q)
{
    const auto shape = intListAttr(q.attrs, "shape");
    if (!shape)
        return Type::unknown();
    std::vector<Dim> dims;
    for (std::int64_t d : *shape)
        dims.push_back(Dim::known(d));
    // full(fill_value, shape, dtype): an empty dtype means the fill value's.
    const Type &fill = q.input(0);
    const std::string fallback = q.op == "full" && fill.isTensor() ? fill.dtype.str() : "float32";
    return Type::tensor(std::move(dims), stringAttr(q.attrs, "dtype", fallback));
}

Type arange(const OpShapeQuery &q)
{
    const std::string dtype = stringAttr(q.attrs, "dtype", "float32");
    const auto start = scalarValue(q.scalarInput(0));
    const auto stop = scalarValue(q.scalarInput(1));
    const auto step = scalarValue(q.scalarInput(2));
    // TVM's ArangeRel: ceil((stop − start) / step) when all three are constants, else `?`.
    if (!start || !stop || !step || *step == 0.0)
        return Type::tensor({ Dim::unknown() }, dtype);
    const double count = std::ceil((*stop - *start) / *step);
    return Type::tensor({ Dim::known(count > 0 ? static_cast<std::int64_t>(count) : 0) }, dtype);
}

Type shapeOf(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor())
        return Type::unknown();
    return Type::tensor({ Dim::known(static_cast<std::int64_t>(data.shape.size())) },
                        stringAttr(q.attrs, "dtype", "int32"));
}

} // namespace cleave::shaperules
