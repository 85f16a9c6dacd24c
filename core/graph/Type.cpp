// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/Type.h"

#include "core/support/Saturating.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cleave {

Type Type::tensor(std::vector<Dim> shape, std::string_view dtype)
{
    Type t;
    t.kind = Kind::Tensor;
    t.shape = std::move(shape);
    t.dtype = dtype;
    return t;
}

Type Type::tensor(std::vector<Dim> shape, InternedString dtype)
{
    Type t;
    t.kind = Kind::Tensor;
    t.shape = std::move(shape);
    t.dtype = dtype;
    return t;
}

Type Type::tuple(std::vector<Type> fields)
{
    Type t;
    t.kind = Kind::Tuple;
    t.fields = std::move(fields);
    return t;
}

bool Type::hasStaticShape() const
{
    return kind == Kind::Tensor
        && std::ranges::all_of(shape, [](const Dim &d) { return d.isKnown(); });
}

std::optional<std::int64_t> Type::elementCount() const
{
    if (!hasStaticShape())
        return std::nullopt;
    std::int64_t n = 1;
    for (const Dim &d : shape) {
        if (d.value < 0)
            return std::nullopt; // a negative extent is no shape
        n = d.value == 0 ? 0 : satMul(n, d.value);
    }
    return n;
}

std::optional<std::int64_t> Type::byteSize() const
{
    if (kind == Kind::Tuple) {
        std::int64_t total = 0;
        for (const Type &f : fields) {
            auto b = f.byteSize();
            if (!b)
                return std::nullopt;
            total = satAdd(total, *b);
        }
        return total;
    }
    auto n = elementCount();
    auto bits = dtypeBits(dtype);
    if (!n || !bits)
        return std::nullopt;
    const std::int64_t totalBits = satMul(*n, *bits);
    return totalBits == saturatedCount ? saturatedCount : (totalBits + 7) / 8;
}

const Type &Type::field(std::size_t i) const
{
    static const Type unknownType;
    if (kind != Kind::Tuple || i >= fields.size())
        return unknownType;
    return fields[i];
}

namespace {

std::string dimText(const Dim &d)
{
    if (!d.symbol.empty())
        return d.symbol.str();
    if (d.value < 0)
        return "?";
    return std::to_string(d.value);
}

std::string joinTypes(const std::vector<Type> &types)
{
    std::string out;
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (i)
            out += ", ";
        out += types[i].toRelay();
    }
    return out;
}

} // namespace

std::string Type::toRelay() const
{
    switch (kind) {
    case Kind::Unknown:
    case Kind::Incomplete:
        return "_";
    case Kind::Tensor: {
        if (shape.empty())
            return dtype.str();
        std::string out = "Tensor[(";
        for (std::size_t i = 0; i < shape.size(); ++i) {
            if (i)
                out += ", ";
            out += dimText(shape[i]);
        }
        return out + "), " + dtype.str() + "]";
    }
    case Kind::Tuple:
        if (fields.size() == 1)
            return "(" + fields[0].toRelay() + ",)";
        return "(" + joinTypes(fields) + ")";
    case Kind::Function:
        return "fn (" + joinTypes(fields) + ")"
            + (result.empty() ? std::string() : " -> " + result[0].toRelay());
    case Kind::Named:
        if (fields.empty())
            return name.str();
        return name.str() + "[" + joinTypes(fields) + "]";
    case Kind::Reference:
        return "ref(" + (fields.empty() ? std::string("_") : fields[0].toRelay()) + ")";
    }
    return "_";
}

std::string Type::toShortString() const
{
    if (kind == Kind::Tensor) {
        std::string out;
        for (std::size_t i = 0; i < shape.size(); ++i) {
            if (i)
                out += "\u00d7";
            out += dimText(shape[i]);
        }
        if (shape.empty())
            out = "scalar";
        return out + " " + dtype.str();
    }
    if (kind == Kind::Tuple) {
        std::string out = "(";
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i)
                out += ", ";
            out += fields[i].toShortString();
        }
        return out + ")";
    }
    return toRelay();
}

std::optional<int> dtypeBits(const std::string &dtype)
{
    if (dtype == "bool")
        return 8;
    std::size_t i = 0;
    while (i < dtype.size() && std::isalpha(static_cast<unsigned char>(dtype[i])))
        ++i;
    const std::string base = dtype.substr(0, i);
    if (base != "float" && base != "int" && base != "uint" && base != "bfloat")
        return std::nullopt;
    std::size_t j = i;
    while (j < dtype.size() && std::isdigit(static_cast<unsigned char>(dtype[j])))
        ++j;
    if (j == i)
        return std::nullopt;
    // Digits from the file: parsed without exceptions, absurd widths are no dtype.
    auto number = [&](std::size_t from, std::size_t to) {
        int v = 0;
        const auto [end, ec] = std::from_chars(dtype.data() + from, dtype.data() + to, v);
        return ec == std::errc() && end == dtype.data() + to && v > 0 && v <= 65536 ? v : 0;
    };
    const int bits = number(i, j);
    if (bits == 0)
        return std::nullopt;
    int lanes = 1;
    if (j < dtype.size()) {
        if (dtype[j] != 'x' || j + 1 >= dtype.size())
            return std::nullopt;
        for (std::size_t k = j + 1; k < dtype.size(); ++k) {
            if (!std::isdigit(static_cast<unsigned char>(dtype[k])))
                return std::nullopt;
        }
        lanes = number(j + 1, dtype.size());
        if (lanes == 0)
            return std::nullopt;
    }
    return bits * lanes;
}

} // namespace cleave
