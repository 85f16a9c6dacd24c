// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Shape rules of the tensor transforms: reshape, transpose, concatenate, slicing, gathering.
#include "core/analysis/OpShapeRules.h"
#include "core/analysis/ShapeRuleSupport.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <set>

namespace cleave::shaperules {

using namespace cleave::shapes;

namespace {

constexpr std::int64_t maxRange = std::numeric_limits<std::int64_t>::max();

/// The fields of a tuple argument when every one is a tensor of the same rank.
std::optional<std::vector<Type>> tensorFields(const Type &tuple)
{
    if (!tuple.isTuple() || tuple.fields.empty())
        return std::nullopt;
    for (const Type &f : tuple.fields) {
        if (!f.isTensor() || f.shape.size() != tuple.fields.front().shape.size())
            return std::nullopt;
    }
    return tuple.fields;
}

/// The first known extent of dimension `i` among `fields` (they must agree), else field 0's.
Dim agreedDim(const std::vector<Type> &fields, std::size_t i)
{
    for (const Type &f : fields) {
        if (f.shape[i].isKnown())
            return f.shape[i];
    }
    return fields.front().shape[i];
}

/// TVM's CanonicalizeIndex: wraps a negative index once and clamps it into the valid range.
std::int64_t canonicalIndex(std::int64_t index, std::int64_t extent, std::int64_t stride)
{
    const std::int64_t low = stride < 0 ? -1 : 0;
    const std::int64_t high = stride < 0 ? extent - 1 : extent;
    if (index < 0)
        index += extent;
    return std::clamp(index, low, high);
}

} // namespace

Type reshape(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto newshape = intListAttr(q.attrs, "newshape");
    if (!data.isTensor() || !newshape)
        return Type::unknown();
    const bool allowZero = boolAttr(q.attrs, "allowzero", false);
    const std::vector<Dim> &in = data.shape;
    const std::vector<std::int64_t> &spec = *newshape;

    // As TVM's InferNewShape: dims copied through (0, -2, -3, -4) are left out of the -1 product,
    // so a dynamic dim that is merely copied does not make the inferred one dynamic.
    std::vector<Dim> out;
    std::set<std::size_t> usedIn;
    std::set<std::size_t> usedOut;
    std::optional<std::size_t> inferAt;
    std::size_t src = 0;
    auto take = [&](std::size_t outAt) -> std::optional<Dim> {
        if (src >= in.size())
            return std::nullopt;
        usedIn.insert(src);
        usedOut.insert(outAt);
        return in[src++];
    };
    for (std::size_t i = 0; i < spec.size(); ++i) {
        const std::int64_t v = spec[i];
        if (v > 0 || (v == 0 && allowZero)) {
            out.push_back(Dim::known(v));
            ++src;
        } else if (v == 0) {
            const auto d = take(out.size());
            if (!d)
                return Type::unknown();
            out.push_back(*d);
        } else if (v == -1) {
            if (inferAt)
                return Type::unknown();
            inferAt = out.size();
            out.push_back(Dim::known(1));
            ++src;
        } else if (v == -2) {
            while (src < in.size())
                out.push_back(*take(out.size()));
        } else if (v == -3) {
            const auto d1 = take(out.size());
            const auto d2 = take(out.size());
            if (!d1 || !d2)
                return Type::unknown();
            out.push_back(mul(*d1, *d2));
        } else if (v == -4) {
            if (i + 2 >= spec.size())
                return Type::unknown();
            const auto d0 = take(out.size());
            const std::int64_t d1 = spec[++i];
            const std::int64_t d2 = spec[++i];
            if (!d0 || (d1 == -1 && d2 == -1))
                return Type::unknown();
            usedOut.insert(out.size() + 1);
            out.push_back(d1 == -1 ? floorDiv(*d0, d2) : Dim::known(d1));
            out.push_back(d2 == -1 ? floorDiv(*d0, d1) : Dim::known(d2));
        } else {
            return Type::unknown();
        }
    }
    if (inferAt) {
        Dim total = Dim::known(1);
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (!usedIn.contains(i))
                total = mul(total, in[i]);
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (!usedOut.contains(i) && i != *inferAt) {
                total = out[i].isKnown() && out[i].value > 0 ? floorDiv(total, out[i].value)
                                                             : Dim::unknown();
            }
        }
        out[*inferAt] = total;
    }
    return Type::tensor(std::move(out), data.dtype);
}

Type reshapeLike(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const Type &like = q.input(1);
    if (!data.isTensor() || !like.isTensor())
        return Type::unknown();
    const auto lhsRank = static_cast<std::int64_t>(data.shape.size());
    const auto rhsRank = static_cast<std::int64_t>(like.shape.size());
    auto wrap = [](std::int64_t v, std::int64_t rank) { return v < 0 ? v + rank : v; };
    const std::int64_t lhsBegin = wrap(intAttr(q.attrs, "lhs_begin").value_or(0), lhsRank);
    const std::int64_t lhsEnd = wrap(intAttr(q.attrs, "lhs_end").value_or(lhsRank), lhsRank);
    const std::int64_t rhsBegin = wrap(intAttr(q.attrs, "rhs_begin").value_or(0), rhsRank);
    const std::int64_t rhsEnd = wrap(intAttr(q.attrs, "rhs_end").value_or(rhsRank), rhsRank);
    if (lhsBegin < 0 || lhsBegin > lhsEnd || lhsEnd > lhsRank || rhsBegin < 0 || rhsBegin > rhsEnd
        || rhsEnd > rhsRank)
        return Type::unknown();
    std::vector<Dim> out(data.shape.begin(), data.shape.begin() + lhsBegin);
    out.insert(out.end(), like.shape.begin() + rhsBegin, like.shape.begin() + rhsEnd);
    out.insert(out.end(), data.shape.begin() + lhsEnd, data.shape.end());
    return Type::tensor(std::move(out), data.dtype);
}

Type transpose(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor())
        return Type::unknown();
    const std::size_t rank = data.shape.size();
    std::vector<std::int64_t> axes
        = intListAttr(q.attrs, "axes").value_or(std::vector<std::int64_t> {});
    if (axes.empty()) {
        for (std::size_t i = 0; i < rank; ++i)
            axes.push_back(static_cast<std::int64_t>(rank - 1 - i));
    }
    if (axes.size() != rank)
        return Type::unknown();
    std::vector<Dim> out;
    std::vector<bool> seen(rank, false);
    for (std::int64_t a : axes) {
        const auto axis = normaliseAxis(a, rank);
        if (!axis || seen[*axis])
            return Type::unknown();
        seen[*axis] = true;
        out.push_back(data.shape[*axis]);
    }
    return Type::tensor(std::move(out), data.dtype);
}

Type concatenate(const OpShapeQuery &q)
{
    const auto fields = tensorFields(q.input(0));
    if (!fields)
        return Type::unknown();
    const std::size_t rank = fields->front().shape.size();
    const auto axis = normaliseAxis(intAttr(q.attrs, "axis").value_or(0), rank);
    if (!axis)
        return Type::unknown();
    std::vector<Dim> out;
    for (std::size_t i = 0; i < rank; ++i)
        out.push_back(agreedDim(*fields, i));
    Dim sum = fields->front().shape[*axis];
    for (std::size_t f = 1; f < fields->size(); ++f)
        sum = add(sum, (*fields)[f].shape[*axis]);
    out[*axis] = sum;
    return Type::tensor(std::move(out), fields->front().dtype);
}

Type stack(const OpShapeQuery &q)
{
    const auto fields = tensorFields(q.input(0));
    if (!fields)
        return Type::unknown();
    const std::size_t rank = fields->front().shape.size();
    const auto axis = normaliseAxis(intAttr(q.attrs, "axis").value_or(0), rank, true);
    if (!axis)
        return Type::unknown();
    std::vector<Dim> out;
    for (std::size_t i = 0; i < rank; ++i)
        out.push_back(agreedDim(*fields, i));
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(*axis),
               Dim::known(static_cast<std::int64_t>(fields->size())));
    return Type::tensor(std::move(out), fields->front().dtype);
}

Type squeeze(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    if (!data.isTensor())
        return Type::unknown();
    const std::size_t rank = data.shape.size();
    std::vector<bool> drop(rank, false);
    if (const auto axes = intListAttr(q.attrs, "axis")) {
        for (std::int64_t a : *axes) {
            const auto axis = normaliseAxis(a, rank);
            if (!axis)
                return Type::unknown();
            drop[*axis] = true;
        }
    } else {
        // Without axes only dims known to be 1 go; `?` dims stay, as in TVM.
        for (std::size_t i = 0; i < rank; ++i)
            drop[i] = data.shape[i].isKnown() && data.shape[i].value == 1;
    }
    std::vector<Dim> out;
    for (std::size_t i = 0; i < rank; ++i) {
        if (!drop[i])
            out.push_back(data.shape[i]);
    }
    return Type::tensor(std::move(out), data.dtype);
}

Type expandDims(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto rawAxis = intAttr(q.attrs, "axis");
    if (!data.isTensor() || !rawAxis)
        return Type::unknown();
    const auto axis = normaliseAxis(*rawAxis, data.shape.size(), true);
    const std::int64_t count = intAttr(q.attrs, "num_newaxis").value_or(1);
    if (!axis || count < 0)
        return Type::unknown();
    std::vector<Dim> out = data.shape;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(*axis), static_cast<std::size_t>(count),
               Dim::known(1));
    return Type::tensor(std::move(out), data.dtype);
}

Type split(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const AttrValue *spec = q.attrs.find("indices_or_sections");
    if (!data.isTensor() || data.shape.empty() || !spec)
        return Type::unknown();
    const auto axis = normaliseAxis(intAttr(q.attrs, "axis").value_or(0), data.shape.size());
    if (!axis)
        return Type::unknown();
    const Dim &extent = data.shape[*axis];
    std::vector<Type> fields;
    auto section = [&](Dim d) {
        std::vector<Dim> shape = data.shape;
        shape[*axis] = d;
        fields.push_back(Type::tensor(std::move(shape), data.dtype));
    };
    if (spec->kind == AttrValue::Kind::List) {
        const auto indices = spec->toIntList();
        if (!indices)
            return Type::unknown();
        std::int64_t begin = 0;
        for (std::int64_t index : *indices) {
            if (index <= begin)
                return Type::unknown();
            section(Dim::known(index - begin));
            begin = index;
        }
        section(add(extent, -begin));
    } else {
        const auto sections = spec->toInt();
        if (!sections || *sections <= 0)
            return Type::unknown();
        for (std::int64_t i = 0; i < *sections; ++i)
            section(*sections == 1 ? extent : floorDiv(extent, *sections));
    }
    return Type::tuple(std::move(fields));
}

Type stridedSlice(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto beginAttr = optionalIntListAttr(q.attrs, "begin");
    const auto endAttr = optionalIntListAttr(q.attrs, "end");
    if (!data.isTensor() || !beginAttr || !endAttr)
        return Type::unknown();
    const std::size_t rank = data.shape.size();
    const bool sizeMode = stringAttr(q.attrs, "slice_mode", "end") == "size";
    OptionalIntList begin = *beginAttr;
    OptionalIntList end = *endAttr;
    std::vector<std::int64_t> strides
        = intListAttr(q.attrs, "strides").value_or(std::vector<std::int64_t> {});

    std::vector<std::size_t> axes;
    if (const auto given = intListAttr(q.attrs, "axes")) {
        for (std::int64_t a : *given) {
            const auto axis = normaliseAxis(a, rank);
            if (!axis)
                return Type::unknown();
            axes.push_back(*axis);
        }
    } else {
        for (std::size_t i = 0; i < rank; ++i)
            axes.push_back(i);
    }
    const std::size_t n = axes.size();
    if (begin.size() > n || end.size() > n || strides.size() > n)
        return Type::unknown();
    strides.resize(n, 1);
    // Missing entries are filled as TVM's StridedSliceRel does (whole-axis slices); a None entry
    // means the same.
    begin.resize(n);
    end.resize(n);

    std::vector<Dim> out = data.shape;
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t stride = sizeMode ? 1 : strides[i];
        if (stride == 0)
            return Type::unknown();
        const std::int64_t b = begin[i].value_or(stride > 0 ? 0 : maxRange);
        std::int64_t e = 0;
        if (!end[i])
            e = stride < 0 ? 0 : maxRange;
        else if (sizeMode)
            e = *end[i] < 0 ? maxRange : b + *end[i];
        else
            e = *end[i];
        const Dim &extent = data.shape[axes[i]];
        if (!extent.isKnown()) {
            out[axes[i]] = Dim::unknown();
            continue;
        }
        const std::int64_t cb = canonicalIndex(b, extent.value, stride);
        const std::int64_t ce = canonicalIndex(e, extent.value, stride);
        if (stride < 0 ? ce > cb : cb > ce)
            return Type::unknown();
        const std::int64_t step = stride < 0 ? -stride : stride;
        out[axes[i]] = Dim::known((std::abs(ce - cb) + step - 1) / step);
    }
    return Type::tensor(std::move(out), data.dtype);
}

Type sliceLike(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const Type &like = q.input(1);
    if (!data.isTensor() || !like.isTensor())
        return Type::unknown();
    std::vector<Dim> out = data.shape;
    if (const auto axes = intListAttr(q.attrs, "axes"); axes && !axes->empty()) {
        for (std::int64_t a : *axes) {
            const auto axis = normaliseAxis(a, out.size());
            if (!axis || *axis >= like.shape.size())
                return Type::unknown();
            out[*axis] = like.shape[*axis];
        }
    } else {
        for (std::size_t i = 0; i < std::min(out.size(), like.shape.size()); ++i)
            out[i] = like.shape[i];
    }
    return Type::tensor(std::move(out), data.dtype);
}

Type take(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const Type &indices = q.input(1);
    if (!data.isTensor() || !indices.isTensor())
        return Type::unknown();
    const auto rawAxis = intAttr(q.attrs, "axis");
    if (!rawAxis)
        return Type::tensor(indices.shape, data.dtype);
    const auto axis = normaliseAxis(*rawAxis, data.shape.size());
    std::int64_t batchDims = intAttr(q.attrs, "batch_dims").value_or(0);
    if (batchDims < 0)
        batchDims += static_cast<std::int64_t>(indices.shape.size());
    const auto batch = static_cast<std::size_t>(batchDims);
    if (!axis || batchDims < 0 || batch > *axis || batch > indices.shape.size())
        return Type::unknown();
    std::vector<Dim> out(data.shape.begin(),
                         data.shape.begin() + static_cast<std::ptrdiff_t>(*axis));
    out.insert(out.end(), indices.shape.begin() + static_cast<std::ptrdiff_t>(batch),
               indices.shape.end());
    out.insert(out.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(*axis) + 1,
               data.shape.end());
    return Type::tensor(std::move(out), data.dtype);
}

Type gather(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const Type &indices = q.input(1);
    if (!data.isTensor() || !indices.isTensor())
        return Type::unknown();
    return Type::tensor(indices.shape, data.dtype);
}

Type oneHot(const OpShapeQuery &q)
{
    const Type &indices = q.input(0);
    const auto depth = intAttr(q.attrs, "depth");
    if (!indices.isTensor() || !depth)
        return Type::unknown();
    const auto axis
        = normaliseAxis(intAttr(q.attrs, "axis").value_or(-1), indices.shape.size(), true);
    if (!axis)
        return Type::unknown();
    std::vector<Dim> out = indices.shape;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(*axis), Dim::known(*depth));
    const Type &onValue = q.input(1);
    return Type::tensor(
        std::move(out),
        stringAttr(q.attrs, "dtype", onValue.isTensor() ? onValue.dtype.str() : "float32"));
}

Type tile(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto reps = intListAttr(q.attrs, "reps");
    if (!data.isTensor() || !reps)
        return Type::unknown();
    const std::size_t rank = std::max(data.shape.size(), reps->size());
    std::vector<Dim> out;
    for (std::size_t i = 0; i < rank; ++i) {
        const std::size_t fromEnd = rank - 1 - i;
        const Dim d = fromEnd < data.shape.size() ? data.shape[data.shape.size() - 1 - fromEnd]
                                                  : Dim::known(1);
        const std::int64_t r = fromEnd < reps->size() ? (*reps)[reps->size() - 1 - fromEnd] : 1;
        out.push_back(r == 1 ? d : mul(d, r));
    }
    return Type::tensor(std::move(out), data.dtype);
}

Type repeat(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto repeats = intAttr(q.attrs, "repeats");
    if (!data.isTensor() || !repeats)
        return Type::unknown();
    const auto axis = normaliseAxis(intAttr(q.attrs, "axis").value_or(0), data.shape.size());
    if (!axis)
        return Type::unknown();
    std::vector<Dim> out = data.shape;
    out[*axis] = *repeats == 1 ? out[*axis] : mul(out[*axis], *repeats);
    return Type::tensor(std::move(out), data.dtype);
}

Type broadcastTo(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto shape = intListAttr(q.attrs, "shape");
    if (!data.isTensor() || !shape)
        return Type::unknown();
    std::vector<Dim> out;
    for (std::int64_t d : *shape)
        out.push_back(Dim::known(d));
    return Type::tensor(std::move(out), stringAttr(q.attrs, "dtype", data.dtype));
}

Type layoutTransform(const OpShapeQuery &q)
{
    const Type &data = q.input(0);
    const auto src = Layout::parse(stringAttr(q.attrs, "src_layout", {}));
    const auto dst = Layout::parse(stringAttr(q.attrs, "dst_layout", {}));
    if (!data.isTensor() || !src || !dst)
        return Type::unknown();
    std::string primals;
    for (const Layout::Axis &a : src->axes()) {
        if (a.factor == 0)
            primals.push_back(a.name);
    }
    std::size_t dstPrimals = 0;
    for (const Layout::Axis &a : dst->axes())
        dstPrimals += a.factor == 0 ? 1 : 0;
    if (dstPrimals != primals.size())
        return Type::unknown();
    const auto extents = src->primalExtents(data.shape, primals);
    if (!extents)
        return Type::unknown();
    const auto out = dst->shapeFromPrimal(*extents, primals);
    return out ? Type::tensor(*out, data.dtype) : Type::unknown();
}

Type dynamicShape(const OpShapeQuery &q)
{
    // The shape comes from a tensor argument, so only the rank is static: TVM types the result
    // as all `?` dims, one per element of the (rank-1) shape argument.
    const bool creation = q.op == "dyn.zeros" || q.op == "dyn.ones";
    const Type &shape = q.input(creation ? 0 : 1);
    if (!shape.isTensor() || shape.shape.size() != 1 || !shape.shape[0].isKnown())
        return Type::unknown();
    const Type &data = q.input(0);
    std::string dtype = stringAttr(q.attrs, "dtype", {});
    if (dtype.empty() && !creation && data.isTensor())
        dtype = data.dtype;
    if (dtype.empty())
        dtype = creation ? "float32" : std::string();
    if (dtype.empty())
        return Type::unknown();
    return Type::tensor(std::vector<Dim>(static_cast<std::size_t>(shape.shape[0].value)), dtype);
}

Type dynamicStridedSlice(const OpShapeQuery &q)
{
    // dyn.strided_slice(data, begin, end, strides): the first len(begin) axes become `?`.
    const Type &data = q.input(0);
    const Type &begin = q.input(1);
    if (!data.isTensor() || !begin.isTensor() || begin.shape.size() != 1
        || !begin.shape[0].isKnown())
        return Type::unknown();
    std::vector<Dim> out = data.shape;
    const auto sliced = static_cast<std::size_t>(begin.shape[0].value);
    for (std::size_t i = 0; i < sliced && i < out.size(); ++i)
        out[i] = Dim::unknown();
    return Type::tensor(std::move(out), data.dtype);
}

} // namespace cleave::shaperules
