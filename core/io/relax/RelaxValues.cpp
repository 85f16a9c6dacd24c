// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relax/RelaxValues.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace cleave::relax {

namespace {

bool isIntegerSpelling(std::string_view s)
{
    std::size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
    if (i >= s.size())
        return false;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return true;
}

Dim dimFromExpr(const Expr &e)
{
    if (e.kind == Expr::Kind::Number && isIntegerSpelling(e.text)) {
        std::int64_t v = 0;
        std::from_chars(e.text.data(), e.text.data() + e.text.size(), v);
        if (v >= 0)
            return Dim::known(v);
    }
    // `T.int64(4096)` is a known extent too.
    if (e.kind == Expr::Kind::Call && e.items.size() == 2
        && (e.items[0].isName("T.int64") || e.items[0].isName("T.int32"))
        && e.items[1].kind == Expr::Kind::Number && isIntegerSpelling(e.items[1].text))
        return dimFromExpr(e.items[1]);
    if (e.kind == Expr::Kind::String)
        return Dim::symbolic(std::string(e.text));
    return Dim::symbolic(exprText(e));
}

std::vector<Dim> dimsFromExpr(const Expr &e)
{
    std::vector<Dim> dims;
    if (e.kind == Expr::Kind::Tuple || e.kind == Expr::Kind::List) {
        for (const Expr &d : e.items)
            dims.push_back(dimFromExpr(d));
    } else {
        throw ParseError { "expected a shape such as (1, 3, 224, 224), found " + exprText(e),
                           e.line, e.column, "relax.type" };
    }
    return dims;
}

Type named(const Expr &e)
{
    Type t;
    t.kind = Type::Kind::Named;
    t.name = exprText(e);
    return t;
}

Type tensorFromCall(const Expr &e)
{
    const Expr *shape = e.keyword("shape");
    const Expr *dtype = e.keyword("dtype");
    const Expr *vdevice = e.keyword("vdevice");
    const Expr *ndim = e.keyword("ndim");
    std::size_t pos = 1;
    if (!shape && pos < e.items.size() && e.items[pos].kind != Expr::Kind::String)
        shape = &e.items[pos++];
    else if (!shape && pos < e.items.size() && e.items.size() == 2 && !dtype)
        dtype = &e.items[pos++]; // R.Tensor("float32")
    if (!dtype && pos < e.items.size())
        dtype = &e.items[pos++];
    if (!vdevice && pos < e.items.size())
        vdevice = &e.items[pos++];
    if (pos < e.items.size())
        throw ParseError { "too many arguments to R.Tensor", e.line, e.column, "relax.type" };
    if (dtype && dtype->kind != Expr::Kind::String)
        throw ParseError { "the dtype of R.Tensor must be a string such as \"float32\"",
                           dtype->line, dtype->column, "relax.type" };
    Type t;
    t.kind = Type::Kind::Tensor;
    t.dtype = dtype ? dtype->text : std::string();
    if (vdevice && vdevice->kind == Expr::Kind::String)
        t.name = vdevice->text;
    if (shape && !shape->isName("None")) {
        t.shape = dimsFromExpr(*shape);
        return t;
    }
    if (ndim && ndim->kind == Expr::Kind::Number && isIntegerSpelling(ndim->text)) {
        int n = -1;
        std::from_chars(ndim->text.data(), ndim->text.data() + ndim->text.size(), n);
        if (n >= 0 && n <= 64) {
            t.shape.assign(static_cast<std::size_t>(n), Dim::unknown());
            if (n > 0)
                return t;
        }
    }
    return named(e); // rank unknown: keep the text
}

} // namespace

bool isPlainIdentifier(const std::string &s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
        return false;
    return std::ranges::all_of(s, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_';
    });
}

Type typeFromExpr(const Expr &e)
{
    if (e.isCallOf("R.Tensor"))
        return tensorFromCall(e);
    if (e.isCallOf("R.Tuple")) {
        std::vector<Type> fields;
        for (std::size_t i = 1; i < e.items.size(); ++i)
            fields.push_back(typeFromExpr(e.items[i]));
        return Type::tuple(std::move(fields));
    }
    if (e.isName("R.Tuple"))
        return Type::tuple({});
    if (e.kind == Expr::Kind::Tuple || e.kind == Expr::Kind::List) {
        std::vector<Type> fields;
        for (const Expr &item : e.items)
            fields.push_back(typeFromExpr(item));
        return Type::tuple(std::move(fields));
    }
    if (e.isCallOf("R.Shape") && e.items.size() == 2 && e.keywordCount() == 0) {
        Type t;
        t.kind = Type::Kind::Named;
        t.name = "R.Shape";
        t.shape = dimsFromExpr(e.items[1]);
        return t;
    }
    if (e.isCallOf("R.Prim") && e.items.size() == 2 && e.keywordCount() == 0
        && e.items[1].kind == Expr::Kind::String) {
        Type t;
        t.kind = Type::Kind::Named;
        t.name = "R.Prim";
        t.dtype = e.items[1].text;
        return t;
    }
    if (e.kind == Expr::Kind::Name || e.kind == Expr::Kind::Call)
        return named(e);
    throw ParseError { "expected a Relax type annotation (R.Tensor, R.Tuple, R.Shape, R.Object, "
                       "R.Prim ...), found "
                           + exprText(e),
                       e.line, e.column, "relax.type" };
}

AttrValue attrFromExpr(const Expr &e)
{
    switch (e.kind) {
    case Expr::Kind::Number: {
        if (isIntegerSpelling(e.text)) {
            std::int64_t v = 0;
            const auto [ptr, ec] = std::from_chars(e.text.data(), e.text.data() + e.text.size(), v);
            if (ec == std::errc())
                return AttrValue::integer(v, "int64");
        }
        double value = 0;
        // from_chars, unlike strtod, does not follow the locale a Qt application sets.
        std::from_chars(e.text.data(), e.text.data() + e.text.size(), value);
        AttrValue f = AttrValue::floating(value, "float64", std::string(e.text));
        return f;
    }
    case Expr::Kind::String:
        return AttrValue::string(std::string(e.text));
    case Expr::Kind::Constant:
        if (e.text == "True" || e.text == "False")
            return AttrValue::boolean(e.text == "True");
        if (e.text == "None")
            return AttrValue::null();
        break;
    case Expr::Kind::List:
    case Expr::Kind::Tuple: {
        std::vector<AttrValue> items;
        for (const Expr &item : e.items)
            items.push_back(attrFromExpr(item));
        return AttrValue::listOf(std::move(items));
    }
    case Expr::Kind::Dict: {
        AttrValue m;
        m.kind = AttrValue::Kind::Map;
        for (std::size_t i = 0; i + 1 < e.items.size(); i += 2) {
            const Expr &k = e.items[i];
            m.keys.push_back(k.kind == Expr::Kind::String ? std::string(k.text) : exprText(k));
            m.list.push_back(attrFromExpr(e.items[i + 1]));
        }
        return m;
    }
    default:
        break;
    }
    AttrValue o;
    o.kind = AttrValue::Kind::Opaque;
    o.text = exprText(e);
    return o;
}

std::string quoted(const std::string &s)
{
    Expr e;
    e.kind = Expr::Kind::String;
    e.text = s;
    return exprText(e);
}

namespace {

std::string dimText(const Dim &d, bool signature)
{
    if (d.isKnown())
        return std::to_string(d.value);
    if (d.symbol.empty())
        return "?";
    return signature ? quoted(d.symbol) : d.symbol;
}

std::string dimsText(const std::vector<Dim> &dims, bool signature, bool tuple)
{
    std::string s = tuple ? "(" : "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + dimText(dims[i], signature);
    if (tuple && dims.size() == 1)
        s += ",";
    return s + (tuple ? ")" : "]");
}

} // namespace

std::string typeText(const Type &t, bool signature)
{
    switch (t.kind) {
    case Type::Kind::Tensor: {
        // TVM's tensor type has a whole shape or only a rank: one dim neither known nor symbolic
        // (which TVMScript cannot write) leaves the rank.
        const bool rankOnly = std::ranges::any_of(
            t.shape, [](const Dim &d) { return !d.isKnown() && d.symbol.empty(); });
        std::string s = "R.Tensor(";
        if (rankOnly) {
            s += t.dtype.empty() ? "" : "dtype=" + quoted(t.dtype) + ", ";
            s += "ndim=" + std::to_string(t.shape.size());
        } else {
            s += dimsText(t.shape, signature, true);
            if (!t.dtype.empty())
                s += ", dtype=" + quoted(t.dtype);
        }
        if (!t.name.empty())
            s += ", vdevice=" + quoted(t.name);
        return s + ")";
    }
    case Type::Kind::Tuple: {
        if (t.fields.empty())
            return "R.Tuple";
        std::string s = "R.Tuple(";
        for (std::size_t i = 0; i < t.fields.size(); ++i)
            s += (i ? ", " : "") + typeText(t.fields[i], signature);
        return s + ")";
    }
    case Type::Kind::Named:
        if (t.name == "R.Shape" && std::ranges::any_of(t.shape, [](const Dim &d) {
                return !d.isKnown() && d.symbol.empty();
            }))
            return "R.Shape(ndim=" + std::to_string(t.shape.size()) + ")";
        if (t.name == "R.Shape")
            return "R.Shape(" + dimsText(t.shape, signature, false) + ")";
        if (t.name == "R.Prim" && !t.dtype.empty())
            return "R.Prim(" + quoted(t.dtype) + ")";
        return t.name.str();
    default:
        return "R.Object";
    }
}

std::string attrText(const AttrValue &v)
{
    switch (v.kind) {
    case AttrValue::Kind::Null:
        return "None";
    case AttrValue::Kind::Int:
        return std::to_string(v.intValue);
    case AttrValue::Kind::Float:
        return v.text.empty() ? std::to_string(v.floatValue) : v.text;
    case AttrValue::Kind::Bool:
        return v.boolValue ? "True" : "False";
    case AttrValue::Kind::String:
        return quoted(v.text);
    case AttrValue::Kind::List: {
        std::string s = "[";
        for (std::size_t i = 0; i < v.list.size(); ++i)
            s += (i ? ", " : "") + attrText(v.list[i]);
        return s + "]";
    }
    case AttrValue::Kind::Map: {
        std::string s = "{";
        for (std::size_t i = 0; i < v.keys.size() && i < v.list.size(); ++i)
            s += (i ? ", " : "") + quoted(v.keys[i]) + ": " + attrText(v.list[i]);
        return s + "}";
    }
    case AttrValue::Kind::MetaRef:
    case AttrValue::Kind::Opaque:
    case AttrValue::Kind::GlobalRef:
        return v.text;
    }
    return "None";
}

} // namespace cleave::relax
