// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/AttrValue.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace cleave {

AttrValue AttrValue::integer(std::int64_t v, const std::string &dtype)
{
    return integer(v, InternedString(dtype));
}

AttrValue AttrValue::integer(std::int64_t v, InternedString dtype)
{
    AttrValue a;
    a.kind = Kind::Int;
    a.intValue = v;
    a.dtype = dtype;
    return a;
}

AttrValue AttrValue::floating(double v, const std::string &dtype, std::string spelling)
{
    return floating(v, InternedString(dtype), std::move(spelling));
}

AttrValue AttrValue::floating(double v, InternedString dtype, std::string spelling)
{
    AttrValue a;
    a.kind = Kind::Float;
    a.floatValue = v;
    a.dtype = dtype;
    a.text = std::move(spelling);
    return a;
}

AttrValue AttrValue::boolean(bool v)
{
    AttrValue a;
    a.kind = Kind::Bool;
    a.boolValue = v;
    return a;
}

AttrValue AttrValue::string(std::string s)
{
    AttrValue a;
    a.kind = Kind::String;
    a.text = std::move(s);
    return a;
}

AttrValue AttrValue::listOf(std::vector<AttrValue> items)
{
    AttrValue a;
    a.kind = Kind::List;
    a.list = std::move(items);
    return a;
}

std::optional<std::vector<std::int64_t>> AttrValue::toIntList() const
{
    if (kind == Kind::Int)
        return std::vector<std::int64_t> { intValue };
    if (kind != Kind::List)
        return std::nullopt;
    std::vector<std::int64_t> out;
    out.reserve(list.size());
    for (const AttrValue &v : list) {
        auto i = v.toInt();
        if (!i)
            return std::nullopt;
        out.push_back(*i);
    }
    return out;
}

std::optional<std::int64_t> AttrValue::toInt() const
{
    if (kind == Kind::Int)
        return intValue;
    if (kind == Kind::Bool)
        return boolValue ? 1 : 0;
    return std::nullopt;
}

namespace {

std::string escapeString(const std::string &s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\n':
            out += "\\n";
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02X", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

std::string floatSuffix(const std::string &dtype)
{
    if (dtype == "float16")
        return "f16";
    if (dtype == "float64")
        return "f64";
    return "f";
}

std::string intSuffix(const std::string &dtype)
{
    if (dtype.empty() || dtype == "int32")
        return {};
    if (dtype.rfind("int", 0) == 0)
        return "i" + dtype.substr(3);
    return {};
}

} // namespace

std::string AttrValue::toRelay() const
{
    switch (kind) {
    case Kind::Null:
        return "None";
    case Kind::Int:
        return std::to_string(intValue) + intSuffix(dtype);
    case Kind::Float: {
        if (!text.empty())
            return text;
        if (std::isnan(floatValue))
            return std::signbit(floatValue) ? "-nan" + floatSuffix(dtype)
                                            : "nan" + floatSuffix(dtype);
        if (std::isinf(floatValue))
            return (floatValue < 0 ? "-inf" : "inf") + floatSuffix(dtype);
        std::ostringstream os;
        os << floatValue; // C++ default formatting, as TVM prints scalars
        return os.str() + floatSuffix(dtype);
    }
    case Kind::Bool:
        return boolValue ? "True" : "False";
    case Kind::String:
        return escapeString(text);
    case Kind::List: {
        std::string out = "[";
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (i)
                out += ", ";
            out += list[i].toRelay();
        }
        return out + "]";
    }
    case Kind::Map: {
        std::string out = "{";
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (i)
                out += ", ";
            out += (i < keys.size() ? keys[i] : std::string()) + "=" + list[i].toRelay();
        }
        return out + "}";
    }
    case Kind::MetaRef:
    case Kind::Opaque:
    case Kind::GlobalRef:
        return text;
    }
    return "None";
}

bool operator==(const AttrValue &a, const AttrValue &b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case AttrValue::Kind::Null:
        return true;
    case AttrValue::Kind::Int:
        return a.intValue == b.intValue && a.dtype == b.dtype;
    case AttrValue::Kind::Float:
        if (a.dtype != b.dtype)
            return false;
        if (std::isnan(a.floatValue) || std::isnan(b.floatValue))
            return std::isnan(a.floatValue) && std::isnan(b.floatValue);
        return a.floatValue == b.floatValue;
    case AttrValue::Kind::Bool:
        return a.boolValue == b.boolValue;
    case AttrValue::Kind::String:
    case AttrValue::Kind::MetaRef:
    case AttrValue::Kind::Opaque:
    case AttrValue::Kind::GlobalRef:
        return a.text == b.text;
    case AttrValue::Kind::List:
    case AttrValue::Kind::Map:
        return a.list == b.list && a.keys == b.keys;
    }
    return false;
}

} // namespace cleave
