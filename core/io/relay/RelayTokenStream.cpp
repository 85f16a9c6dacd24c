// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relay/RelayTokenStream.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace cleave::relay {

RelayTokenStream::RelayTokenStream(std::string_view text, int firstLine, int firstColumn)
    : m_lexer(text, firstLine, firstColumn)
{
}

void RelayTokenStream::fill(int k)
{
    while (m_count <= k) {
        m_lexer.next(m_ahead[(m_head + m_count) % m_ahead.size()]);
        ++m_count;
    }
}

void RelayTokenStream::failAtError(const Token &t) const
{
    fail(t, std::string(t.text));
}

Token RelayTokenStream::take()
{
    const Token t = peek(0);
    drop();
    return t;
}

void RelayTokenStream::skipTo(std::uint32_t offset)
{
    m_count = 0;
    m_lexer.seek(offset);
}

void RelayTokenStream::drop()
{
    peek(0);
    m_head = (m_head + 1) % m_ahead.size();
    --m_count;
}

Token RelayTokenStream::expect(std::string_view p, const std::string &context)
{
    const Token &t = peek();
    if (!t.isPunct(p))
        fail(t, "expected '" + std::string(p) + "' " + context + ", found " + describe(t));
    return take();
}

void RelayTokenStream::expectClose(char close, const Token &open, const char *what)
{
    const Token &t = peek();
    if (t.isPunct(close)) {
        drop();
        return;
    }
    // The message is only built for the error.
    fail(t,
         "expected '" + std::string(1, close) + "' to close the " + what + " opened at "
             + std::to_string(open.line) + ":" + std::to_string(open.column) + ", found "
             + describe(t));
}

bool RelayTokenStream::accept(std::string_view p)
{
    if (peek().isPunct(p)) {
        drop();
        return true;
    }
    return false;
}

void RelayTokenStream::fail(const Token &at, const std::string &message) const
{
    throw ParseError { message, at.line, at.column };
}

std::string_view RelayTokenStream::skipBalanced(const Token &open, std::uint32_t from)
{
    const std::size_t close = m_lexer.matchingClose(open.offset);
    if (close == std::string_view::npos)
        fail(open, "unbalanced '" + std::string(open.text) + "' opened here");
    // Drop look-ahead and continue right after the group. The lexer never ran past the
    // tokens in the window, all of which start at or before `open`'s successor.
    m_count = 0;
    m_lexer.seek(static_cast<std::uint32_t>(close + 1));
    return m_lexer.source().substr(from, close + 1 - from);
}

bool isDtypeName(std::string_view w)
{
    if (w == "bool")
        return true;
    std::size_t i = 0;
    for (std::string_view base : { "bfloat", "float", "uint", "int" }) {
        if (w.substr(0, base.size()) == base) {
            i = base.size();
            break;
        }
    }
    if (i == 0 || i >= w.size() || !std::isdigit(static_cast<unsigned char>(w[i])))
        return false;
    while (i < w.size() && std::isdigit(static_cast<unsigned char>(w[i])))
        ++i;
    if (i == w.size())
        return true;
    if (w[i] != 'x' || i + 1 >= w.size())
        return false;
    for (++i; i < w.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(w[i])))
            return false;
    }
    return true;
}

Dim RelayTokenStream::parseDim()
{
    const Token &t = peek();
    if (t.is(TokenKind::Integer)) {
        const Token n = take();
        std::int64_t v = 0;
        std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
        return Dim::known(v);
    }
    if (t.isPunct('?')) {
        take();
        return Dim::unknown();
    }
    if (t.is(TokenKind::MetaRef) || t.is(TokenKind::Identifier))
        return Dim::symbolic(std::string(take().text));
    fail(t, "expected a dimension, found " + describe(t));
}

void RelayTokenStream::enterNested(const Token &at, const char *what)
{
    if (++m_nesting > maxNesting)
        fail(at,
             std::string(what) + " nested more than " + std::to_string(maxNesting)
                 + " levels deep");
}

Type RelayTokenStream::parseType()
{
    const Token t = peek();
    enterNested(t, "types");
    const NestingScope scope { m_nesting };
    if (t.isPunct('(')) {
        take();
        std::vector<Type> fields;
        bool sawComma = false;
        while (!peek().isPunct(')')) {
            fields.push_back(parseType());
            if (!accept(",")) {
                break;
            }
            sawComma = true;
        }
        expectClose(')', t, "tuple type");
        if (fields.size() == 1 && !sawComma)
            return fields[0]; // `(T)` is grouping
        return Type::tuple(std::move(fields));
    }
    if (t.kind != TokenKind::Identifier)
        fail(t, "expected a type, found " + describe(t));
    take();
    if (t.text == "Tensor") {
        expect("[", "after 'Tensor'");
        std::vector<Dim> dims;
        if (accept("(")) {
            while (!peek().isPunct(')')) {
                dims.push_back(parseDim());
                if (!accept(","))
                    break;
            }
            expect(")", "to close the shape");
        } else {
            dims.push_back(parseDim());
        }
        expect(",", "between the shape and the dtype");
        const Token dt = take();
        if (dt.kind != TokenKind::Identifier)
            fail(dt, "expected a dtype, found " + describe(dt));
        expect("]", "to close 'Tensor['");
        return Type::tensor(std::move(dims), std::string(dt.text));
    }
    if (t.text == "fn") {
        Type f;
        f.kind = Type::Kind::Function;
        if (accept("[")) { // type parameters
            while (!peek().isPunct(']')) {
                if (peek().is(TokenKind::End))
                    fail(peek(), "expected ']' to close the type parameters of 'fn'");
                take();
                accept(",");
            }
            take();
        }
        expect("(", "to open the parameter types of 'fn'");
        while (!peek().isPunct(')')) {
            f.fields.push_back(parseType());
            if (!accept(","))
                break;
        }
        expect(")", "to close the parameter types of 'fn'");
        if (accept("->"))
            f.result.push_back(parseType());
        return f;
    }
    if (t.text == "_") {
        Type u;
        u.kind = Type::Kind::Incomplete;
        return u;
    }
    if (t.text == "ref" && peek().isPunct('(')) {
        take();
        Type r;
        r.kind = Type::Kind::Reference;
        r.fields.push_back(parseType());
        expect(")", "to close 'ref('");
        return r;
    }
    if (isDtypeName(t.text))
        return Type::tensor({}, std::string(t.text));
    Type named;
    named.kind = Type::Kind::Named;
    named.name = std::string(t.text);
    if (accept("[")) {
        while (!peek().isPunct(']')) {
            named.fields.push_back(parseType());
            if (!accept(","))
                break;
        }
        expect("]", "to close the type arguments of " + named.name.str());
    }
    return named;
}

namespace {

// The interned dtype a number token's suffix names: the lexer gives one of a dozen names, so
// they are interned once, not once per number (interning takes the pool's lock).
InternedString numberDtype(std::string_view name)
{
    static const std::array<InternedString, 11> known = [] {
        std::array<InternedString, 11> names;
        std::size_t i = 0;
        for (const char *n : { "int32", "float32", "int64", "int8", "int16", "uint8", "uint16",
                               "uint32", "uint64", "float16", "float64" })
            names[i++] = InternedString(n);
        return names;
    }();
    for (const InternedString &k : known) {
        if (k == name)
            return k;
    }
    return InternedString(name);
}

} // namespace

AttrValue RelayTokenStream::numberValue(const Token &tok)
{
    if (tok.kind == TokenKind::Integer) {
        std::string_view digits = tok.text;
        const bool negative = !digits.empty() && digits[0] == '-';
        if (negative)
            digits.remove_prefix(1);
        std::uint64_t u = 0;
        std::from_chars(digits.data(), digits.data() + digits.size(), u);
        const std::int64_t v
            = negative ? -static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u);
        // TVM reads an unsuffixed integer that does not fit int32 as int64.
        const bool widened = tok.suffix == "int32" && tok.text.find('i') == std::string_view::npos
            && (v > std::numeric_limits<std::int32_t>::max()
                || v < std::numeric_limits<std::int32_t>::min());
        return AttrValue::integer(v, numberDtype(widened ? "int64" : tok.suffix));
    }
    const std::string_view text = tok.text;
    // from_chars reads `inff`, `-nanf16` as (signed) infinity and NaN too, and unlike strtod it
    // does not follow the locale a Qt application sets.
    double v = 0.0;
    std::from_chars(text.data(), text.data() + text.size(), v);
    // Keep the exact spelling (with its suffix) so printing gives back the same text; the
    // special spellings carry theirs.
    std::string spelling(text);
    if (text.find("inf") == std::string_view::npos && text.find("nan") == std::string_view::npos)
        spelling += tok.suffix == "float16" ? "f16" : tok.suffix == "float64" ? "f64" : "f";
    return AttrValue::floating(v, numberDtype(tok.suffix), std::move(spelling));
}

AttrValue RelayTokenStream::parseAttrValue()
{
    const Token t = peek();
    enterNested(t, "attribute values");
    const NestingScope scope { m_nesting };
    switch (t.kind) {
    case TokenKind::Integer:
    case TokenKind::Float:
        return numberValue(take());
    case TokenKind::String:
        return AttrValue::string(std::string(take().text));
    case TokenKind::MetaRef: {
        AttrValue v;
        v.kind = AttrValue::Kind::MetaRef;
        v.text = std::string(take().text);
        return v;
    }
    case TokenKind::QuotedName: {
        AttrValue v;
        v.kind = AttrValue::Kind::GlobalRef;
        v.text = "'" + std::string(take().text) + "'";
        return v;
    }
    case TokenKind::Global: {
        AttrValue v;
        v.kind = AttrValue::Kind::GlobalRef;
        v.text = "@" + std::string(take().text);
        return v;
    }
    case TokenKind::Identifier: {
        take();
        if (t.text == "True" || t.text == "False")
            return AttrValue::boolean(t.text == "True");
        if (t.text == "None" || t.text == "nullptr")
            return AttrValue::null();
        AttrValue v;
        v.kind = AttrValue::Kind::Opaque;
        if (peek().isPunct('(')) {
            // A repr such as VirtualDevice(...) / Target(...): kept verbatim.
            const Token open = peek();
            v.text = std::string(skipBalanced(open, t.offset));
        } else {
            v.text = std::string(t.text);
        }
        return v;
    }
    case TokenKind::Punct:
        if (t.isPunct('[')) {
            take();
            std::vector<AttrValue> items;
            while (!peek().isPunct(']')) {
                items.push_back(parseAttrValue());
                if (!accept(","))
                    break;
            }
            expectClose(']', t, "list");
            return AttrValue::listOf(std::move(items));
        }
        if (t.isPunct('{') || t.isPunct('(')) {
            if (t.isPunct('{') && peek(1).is(TokenKind::Identifier) && peek(2).isPunct('=')) {
                take();
                AttrValue m;
                m.kind = AttrValue::Kind::Map;
                while (!peek().isPunct('}')) {
                    const Token key = take();
                    if (key.kind != TokenKind::Identifier)
                        fail(key, "expected a key in the map, found " + describe(key));
                    expect("=", "after map key " + std::string(key.text));
                    m.keys.emplace_back(key.text);
                    m.list.push_back(parseAttrValue());
                    if (!accept(","))
                        break;
                }
                expectClose('}', t, "map");
                return m;
            }
            AttrValue v;
            v.kind = AttrValue::Kind::Opaque;
            v.text = std::string(skipBalanced(t, t.offset));
            return v;
        }
        break;
    default:
        break;
    }
    fail(t, "expected an attribute value, found " + describe(t));
}

} // namespace cleave::relay
