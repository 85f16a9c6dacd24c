// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/ShapeRuleSupport.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cleave::shapes {

Dim add(const Dim &a, std::int64_t b)
{
    if (!a.isKnown())
        return Dim::unknown();
    return Dim::known(a.value + b);
}

Dim add(const Dim &a, const Dim &b)
{
    if (!a.isKnown() || !b.isKnown())
        return Dim::unknown();
    return Dim::known(a.value + b.value);
}

Dim mul(const Dim &a, const Dim &b)
{
    if (!a.isKnown() || !b.isKnown())
        return Dim::unknown();
    return Dim::known(a.value * b.value);
}

Dim mul(const Dim &a, std::int64_t b)
{
    return mul(a, Dim::known(b));
}

Dim floorDiv(const Dim &a, std::int64_t b)
{
    if (!a.isKnown() || b <= 0)
        return Dim::unknown();
    return Dim::known(a.value / b);
}

Dim product(std::span<const Dim> dims)
{
    Dim result = Dim::known(1);
    for (const Dim &d : dims)
        result = mul(result, d);
    return result;
}

std::optional<Dim> broadcast(const Dim &a, const Dim &b)
{
    if (a == b)
        return a;
    if (a.isKnown() && a.value == 1)
        return b;
    if (b.isKnown() && b.value == 1)
        return a;
    if (a.isKnown() && b.isKnown())
        return std::nullopt;
    // One side is `?` or symbolic: TVM keeps the other side (it must be 1 or equal at run time)
    // when that side is a plain `?`; two different symbols cannot be decided.
    if (a.value == Dim::dynamic && a.symbol.empty())
        return b;
    if (b.value == Dim::dynamic && b.symbol.empty())
        return a;
    return Dim::unknown();
}

std::optional<std::vector<Dim>> broadcastShapes(const std::vector<Dim> &a,
                                                const std::vector<Dim> &b)
{
    const std::size_t rank = std::max(a.size(), b.size());
    std::vector<Dim> out(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const Dim da = i < a.size() ? a[a.size() - 1 - i] : Dim::known(1);
        const Dim db = i < b.size() ? b[b.size() - 1 - i] : Dim::known(1);
        const std::optional<Dim> d = broadcast(da, db);
        if (!d)
            return std::nullopt;
        out[rank - 1 - i] = *d;
    }
    return out;
}

std::optional<std::size_t> normaliseAxis(std::int64_t axis, std::size_t rank, bool allowEnd)
{
    const auto limit = static_cast<std::int64_t>(rank) + (allowEnd ? 1 : 0);
    if (axis < 0)
        axis += limit;
    if (axis < 0 || axis >= limit)
        return std::nullopt;
    return static_cast<std::size_t>(axis);
}

namespace {

std::optional<std::int64_t> parseInt(std::string_view text)
{
    std::int64_t v = 0;
    const char *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || text.empty())
        return std::nullopt;
    return v;
}

std::optional<std::int64_t> valueAsInt(const AttrValue &v)
{
    switch (v.kind) {
    case AttrValue::Kind::Int:
        return v.intValue;
    case AttrValue::Kind::Bool:
        return v.boolValue ? 1 : 0;
    case AttrValue::Kind::String:
        if (v.text == "True" || v.text == "true")
            return 1;
        if (v.text == "False" || v.text == "false")
            return 0;
        return parseInt(v.text);
    default:
        return std::nullopt;
    }
}

} // namespace

std::optional<std::int64_t> intAttr(const Attributes &attrs, const std::string &key)
{
    const AttrValue *v = attrs.find(key);
    return v ? valueAsInt(*v) : std::nullopt;
}

bool boolAttr(const Attributes &attrs, const std::string &key, bool fallback)
{
    const std::optional<std::int64_t> v = intAttr(attrs, key);
    return v ? *v != 0 : fallback;
}

std::optional<double> floatAttr(const Attributes &attrs, const std::string &key)
{
    return scalarValue(attrs.find(key));
}

std::optional<double> scalarValue(const AttrValue *v)
{
    if (!v)
        return std::nullopt;
    if (v->kind == AttrValue::Kind::Float)
        return v->floatValue;
    if (v->kind == AttrValue::Kind::Int)
        return static_cast<double>(v->intValue);
    return std::nullopt;
}

std::string stringAttr(const Attributes &attrs, const std::string &key, const std::string &fallback)
{
    const AttrValue *v = attrs.find(key);
    if (!v || v->kind != AttrValue::Kind::String || v->text.empty())
        return fallback;
    return v->text;
}

std::optional<std::vector<std::int64_t>> intListAttr(const Attributes &attrs,
                                                     const std::string &key)
{
    const AttrValue *v = attrs.find(key);
    if (!v || v->isNull())
        return std::nullopt;
    if (v->kind != AttrValue::Kind::List) {
        const std::optional<std::int64_t> single = valueAsInt(*v);
        if (!single)
            return std::nullopt;
        return std::vector<std::int64_t> { *single };
    }
    std::vector<std::int64_t> out;
    out.reserve(v->list.size());
    for (const AttrValue &item : v->list) {
        const std::optional<std::int64_t> i = valueAsInt(item);
        if (!i)
            return std::nullopt;
        out.push_back(*i);
    }
    return out;
}

std::optional<OptionalIntList> optionalIntListAttr(const Attributes &attrs, const std::string &key)
{
    const AttrValue *v = attrs.find(key);
    if (!v || v->isNull() || v->kind != AttrValue::Kind::List)
        return std::nullopt;
    OptionalIntList out;
    for (const AttrValue &item : v->list) {
        if (item.isNull()) {
            out.emplace_back();
            continue;
        }
        const std::optional<std::int64_t> i = valueAsInt(item);
        if (!i)
            return std::nullopt;
        out.push_back(i);
    }
    return out;
}

std::string outDtype(const Attributes &attrs, const std::string &fallback)
{
    const std::string dtype = stringAttr(attrs, "out_dtype", {});
    return dtype.empty() || dtype == "void" ? fallback : dtype;
}

std::optional<std::vector<std::int64_t>> totalPadding(const std::vector<std::int64_t> &padding,
                                                      std::size_t spatial)
{
    std::vector<std::int64_t> total(spatial, 0);
    if (padding.empty())
        return total;
    if (padding.size() == 1) {
        std::fill(total.begin(), total.end(), 2 * padding[0]);
    } else if (padding.size() == spatial) {
        for (std::size_t i = 0; i < spatial; ++i)
            total[i] = 2 * padding[i];
    } else if (padding.size() == 2 * spatial) {
        for (std::size_t i = 0; i < spatial; ++i)
            total[i] = padding[i] + padding[spatial + i];
    } else {
        return std::nullopt;
    }
    return total;
}

std::size_t spatialRankOf(std::string_view op, std::size_t fallback)
{
    for (std::size_t i = 0; i + 1 < op.size(); ++i) {
        if (op[i] >= '1' && op[i] <= '3' && op[i + 1] == 'd'
            && (i + 2 == op.size() || op[i + 2] == '_'))
            return static_cast<std::size_t>(op[i] - '0');
    }
    return fallback;
}

std::string spatialLetters(std::size_t spatial)
{
    const std::string all = "DHW";
    return spatial >= 1 && spatial <= 3 ? all.substr(3 - spatial) : std::string();
}

std::int64_t dilatedKernel(std::int64_t kernel, std::int64_t dilation)
{
    return (kernel - 1) * dilation + 1;
}

Dim windowOutput(const Dim &in, std::int64_t pad, std::int64_t window, std::int64_t stride,
                 bool ceilMode)
{
    if (!in.isKnown() || stride <= 0)
        return Dim::unknown();
    std::int64_t numerator = in.value + pad - window;
    if (ceilMode)
        numerator += stride - 1;
    // TVM divides with floor semantics; a window larger than the input gives a non-positive
    // numerator, which floor division keeps negative rather than truncating towards zero.
    std::int64_t q = numerator / stride;
    if (numerator % stride != 0 && numerator < 0)
        --q;
    return Dim::known(q + 1);
}

std::optional<std::vector<std::int64_t>> spatialAttr(const Attributes &attrs,
                                                     const std::string &key, std::size_t spatial,
                                                     std::int64_t fallback)
{
    std::optional<std::vector<std::int64_t>> values = intListAttr(attrs, key);
    if (!values || values->empty())
        return std::vector<std::int64_t>(spatial, fallback);
    if (values->size() == 1)
        return std::vector<std::int64_t>(spatial, values->front());
    if (values->size() != spatial)
        return std::nullopt;
    return values;
}

// --- Layout -----------------------------------------------------------------------------------

std::optional<Layout> Layout::parse(std::string_view text)
{
    Layout layout;
    std::int64_t factor = 0;
    for (char ch : text) {
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            factor = factor * 10 + (ch - '0');
            continue;
        }
        if (!std::isalpha(static_cast<unsigned char>(ch)))
            return std::nullopt;
        const bool primal = std::isupper(static_cast<unsigned char>(ch)) != 0;
        if (primal == (factor > 0) || layout.indexOf(ch))
            return std::nullopt;
        layout.m_axes.push_back(Axis { ch, factor });
        factor = 0;
    }
    if (factor != 0 || layout.m_axes.empty())
        return std::nullopt;
    for (const Axis &a : layout.m_axes) {
        if (a.factor > 0 && !layout.hasPrimal(static_cast<char>(std::toupper(a.name))))
            return std::nullopt;
    }
    return layout;
}

std::optional<std::size_t> Layout::indexOf(char name) const
{
    for (std::size_t i = 0; i < m_axes.size(); ++i) {
        if (m_axes[i].name == name)
            return i;
    }
    return std::nullopt;
}

std::optional<std::vector<Dim>> Layout::primalExtents(const std::vector<Dim> &shape,
                                                      std::string_view primals) const
{
    if (shape.size() != m_axes.size())
        return std::nullopt;
    std::vector<Dim> out;
    out.reserve(primals.size());
    for (char p : primals) {
        const std::optional<std::size_t> outer = indexOf(p);
        if (!outer)
            return std::nullopt;
        Dim extent = shape[*outer];
        const auto inner = indexOf(static_cast<char>(std::tolower(p)));
        if (inner)
            extent = mul(extent, shape[*inner]);
        out.push_back(extent);
    }
    return out;
}

std::optional<std::vector<Dim>> Layout::shapeFromPrimal(const std::vector<Dim> &extents,
                                                        std::string_view primals) const
{
    std::vector<Dim> shape;
    shape.reserve(m_axes.size());
    for (const Axis &a : m_axes) {
        if (a.factor > 0) {
            shape.push_back(Dim::known(a.factor));
            continue;
        }
        const std::size_t at = primals.find(a.name);
        if (at == std::string_view::npos || at >= extents.size())
            return std::nullopt;
        const auto inner = indexOf(static_cast<char>(std::tolower(a.name)));
        shape.push_back(inner ? floorDiv(extents[at], m_axes[*inner].factor) : extents[at]);
    }
    return shape;
}

} // namespace cleave::shapes
