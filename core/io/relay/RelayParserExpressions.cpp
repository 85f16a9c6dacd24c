// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// RelayParser: expressions — operands, variables, projections, constants, calls and their
// attributes.
#include "core/io/relay/RelayParser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace cleave::relay {

namespace {

bool allDigits(std::string_view s)
{
    return !s.empty() && std::ranges::all_of(s, [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

} // namespace

// --- expressions -------------------------------------------------------------------------------

std::uint32_t RelayParser::tupleIndex(std::string_view digits, const Token &at)
{
    std::uint32_t index = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end == digits.data())
        m_ts.fail(at,
                  "tuple index " + std::string(digits.substr(0, 24))
                      + (digits.size() > 24 ? "…" : "") + " is not a small non-negative number");
    return index;
}

RelayParser::Value RelayParser::parseExpr()
{
    if (++m_exprDepth > maxExpressionDepth)
        m_ts.fail(m_ts.peek(),
                  "expression nested too deeply (more than " + std::to_string(maxExpressionDepth)
                      + " levels)");
    const Token start = m_ts.peek();
    Value v = parseAtom();
    for (;;) {
        const Token &next = m_ts.peek();
        if (next.isPunct('(')) {
            v = parseCall(v, start);
        } else if (next.isPunct('.') && m_ts.peek(1).is(TokenKind::Integer)) {
            const Token dot = m_ts.take();
            const Token idx = m_ts.take();
            v = projection(v, tupleIndex(idx.text, idx), dot);
        } else if (next.isPunct('.') && m_ts.peek(1).is(TokenKind::Float)
                   && m_ts.peek(1).text.find_first_not_of("0123456789.")
                       == std::string_view::npos) {
            // `%t.0.1` lexes the indices as the number `0.1`.
            const Token dot = m_ts.take();
            const Token idx = m_ts.take();
            const std::string text(idx.text);
            const std::size_t p = text.find('.');
            v = projection(v, tupleIndex(std::string_view(text).substr(0, p), idx), dot);
            v = projection(v, tupleIndex(std::string_view(text).substr(p + 1), idx), dot);
        } else {
            break;
        }
    }
    annotate(v);
    --m_exprDepth;
    return v;
}

void RelayParser::annotate(const Value &v)
{
    if (v.kind != Value::Kind::Tensor || !v.created)
        return;
    const Token &next = m_ts.peek();
    if (next.ty.empty() && next.span.empty())
        return;
    Node &n = m_graph->node(v.ref.node);
    if (!next.ty.empty()) {
        const TypeList list = typeFromComment(next.ty);
        if (n.outputCount() <= 1)
            n.setOutputTypes(list); // what setOutputType(0, ..) gives, without interning
        else
            n.setOutputType(0, list.front());
        n.typeAnnotated = !list.front().isUnknown();
    }
    if (!next.span.empty() && n.span().empty())
        n.setSpan(std::string(next.span));
}

TypeList RelayParser::typeFromComment(std::string_view text)
{
    auto it = m_typeCache.find(text);
    if (it != m_typeCache.end())
        return it->second;
    Type t;
    try {
        RelayTokenStream sub(text);
        t = sub.parseType();
    } catch (const ParseError &) {
        t = Type::unknown(); // a malformed comment only loses the annotation
    }
    const TypeList list { std::move(t) };
    m_typeCache.emplace(text, list);
    return list;
}

RelayParser::Value RelayParser::parseAtom()
{
    const Token t = m_ts.peek();
    Value v;
    switch (t.kind) {
    case TokenKind::GraphVar:
    case TokenKind::Local:
        m_ts.take();
        return resolveVariable(t);
    case TokenKind::Global:
        m_ts.take();
        v.kind = Value::Kind::Function;
        v.function = globalFunction(t.text, t);
        return v;
    case TokenKind::Integer:
    case TokenKind::Float:
        m_ts.take();
        return scalarConstant(t);
    case TokenKind::MetaRef:
        m_ts.take();
        if (t.text.substr(0, 17) == "meta[relay.attrs.") {
            v.kind = Value::Kind::AttrsRef;
            v.name = t.text;
            return v;
        }
        return metaConstant(t);
    case TokenKind::Identifier:
        if (t.text == "fn") {
            m_ts.take();
            v.kind = Value::Kind::Function;
            v.function = parseFunctionLiteral(t, {});
            return v;
        }
        if (t.text == "if") {
            m_ts.take();
            return parseIf(t);
        }
        if (t.text == "match") {
            m_ts.take();
            return parseMatch(t);
        }
        if (t.text == "let")
            return parseBlockExpression(t);
        if (t.text == "True" || t.text == "False") {
            m_ts.take();
            return scalarConstant(t);
        }
        m_ts.take();
        v.kind = m_constructorArity.contains(t.text) ? Value::Kind::Constructor : Value::Kind::Op;
        v.name = t.text;
        return v;
    case TokenKind::Punct:
        if (t.isPunct('('))
            return parseParenthesized();
        break;
    default:
        break;
    }
    m_ts.fail(t, "expected an expression, found " + describe(t));
}

RelayParser::Value RelayParser::resolveVariable(const Token &tok)
{
    Value v;
    if (const Binding *found = lookup(tok.text)) {
        const Binding &b = *found;
        if (b.literal().isValid()) {
            v.kind = Value::Kind::Function;
            v.function = b.literal();
        } else {
            v.ref = TensorRef { b.node(), 0 };
        }
        return v;
    }
    // `%x13.0` (a local name followed by a projection) lexes as one name.
    const std::size_t dot = tok.text.rfind('.');
    if (tok.is(TokenKind::Local) && dot != std::string_view::npos
        && allDigits(tok.text.substr(dot + 1))) {
        Token base = tok;
        base.text = tok.text.substr(0, dot);
        const Value inner = resolveVariable(base);
        if (!m_pending.empty() && m_pending.back().name == "%" + std::string(base.text))
            return inner;
        return projection(inner, tupleIndex(tok.text.substr(dot + 1), tok), tok);
    }
    const std::string name = "%" + std::string(tok.text);
    m_pending.push_back(PendingUse { name, tok.line, tok.column, m_depth });
    Node placeholder;
    placeholder.kind = NodeKind::Constant;
    placeholder.name = name;
    v.ref = TensorRef { newNode(std::move(placeholder), tok), 0 };
    return v;
}

RelayParser::Value RelayParser::projection(const Value &tuple, std::uint32_t index,
                                           const Token &tok)
{
    Node n;
    n.kind = NodeKind::TupleGetItem;
    n.index = index;
    n.inputs.push_back(materialize(tuple, tok));
    const Type &tt = m_graph->tensorType(n.inputs[0]);
    if (tt.isTuple() && index < tt.fields.size())
        n.setOutputTypes({ tt.fields[index] });
    Value v;
    v.ref = TensorRef { newNode(std::move(n), tok), 0 };
    v.created = true;
    return v;
}

RelayParser::Value RelayParser::scalarConstant(const Token &tok)
{
    Node n;
    n.kind = NodeKind::Constant;
    if (tok.is(TokenKind::Identifier))
        m_values.setValue(n, AttrValue::boolean(tok.text == "True"));
    else
        m_values.setValue(n, RelayTokenStream::numberValue(tok));
    const std::string dtype
        = n.value().kind == AttrValue::Kind::Bool ? "bool" : n.value().dtype.str();
    n.setOutputTypes({ Type::tensor({}, dtype) });
    Value v;
    v.ref = TensorRef { newNode(std::move(n), tok), 0 };
    v.created = true;
    return v;
}

RelayParser::Value RelayParser::metaConstant(const Token &tok)
{
    Value v;
    // `meta[relay.Constant][i]`, the common spelling, is found by `i` while it is used in one
    // function only; every other reference through the map.
    ConstantSlot *slot = nullptr;
    if (const std::optional<std::uint32_t> i = constantIndex(tok.text)) {
        if (*i >= m_constantSlots.size())
            m_constantSlots.resize(std::max<std::size_t>(*i + 1, m_constantSlots.size() * 2));
        slot = &m_constantSlots[*i];
        if (slot->node.isValid() && slot->function == m_current) {
            v.ref = TensorRef { slot->node, 0 };
            return v;
        }
        if (slot->node.isValid())
            slot = nullptr; // taken by another function
    }
    const ConstantKey key { static_cast<std::uint32_t>(m_current.value), tok.text };
    if (!slot) {
        auto it = m_constantCache.find(key);
        if (it != m_constantCache.end()) {
            v.ref = TensorRef { it->second, 0 };
            return v;
        }
    }
    Node n;
    n.kind = NodeKind::Constant;
    n.name = tok.text; // what metaRef() reads back, without building it from the inline form
    n.setMetaRef(std::string(tok.text));
    const NodeId id = newNode(std::move(n), tok);
    if (slot)
        *slot = ConstantSlot { m_current, id };
    else
        m_constantCache.emplace(key, id);
    v.ref = TensorRef { id, 0 };
    v.created = true;
    return v;
}

std::optional<std::uint32_t> RelayParser::constantIndex(std::string_view ref)
{
    constexpr std::string_view prefix = "meta[relay.Constant][";
    if (ref.size() <= prefix.size() + 1 || ref.substr(0, prefix.size()) != prefix
        || ref.back() != ']')
        return std::nullopt;
    return plainNumber(ref.substr(prefix.size(), ref.size() - prefix.size() - 1));
}

TensorRef RelayParser::materialize(const Value &v, const Token &tok)
{
    switch (v.kind) {
    case Value::Kind::Tensor:
        return v.ref;
    case Value::Kind::Function: {
        Node n;
        n.kind = NodeKind::FunctionValue;
        n.callee = v.function;
        return TensorRef { newNode(std::move(n), tok), 0 };
    }
    case Value::Kind::Op: {
        Node n;
        n.kind = NodeKind::FunctionValue;
        n.op = opName(v.name);
        return TensorRef { newNode(std::move(n), tok), 0 };
    }
    case Value::Kind::Constructor: {
        Node n;
        n.op = opName(v.name);
        // A nullary constructor (`Nil`) is a value; others used bare are functions.
        n.kind
            = m_constructorArity[n.op] == 0 ? NodeKind::ConstructorCall : NodeKind::FunctionValue;
        return TensorRef { newNode(std::move(n), tok), 0 };
    }
    case Value::Kind::AttrsRef:
        m_ts.fail(tok, std::string(v.name) + " can only stand as the last argument of a call");
    }
    return {};
}

RelayParser::Value RelayParser::parseCall(const Value &callee, const Token &calleeToken)
{
    const Token open = m_ts.take();
    // The message is only built when the call turns out to be malformed.
    auto closeMessage = [&] {
        std::string what;
        switch (callee.kind) {
        case Value::Kind::Op:
        case Value::Kind::Constructor:
            what = std::string(callee.name);
            break;
        case Value::Kind::Function: {
            const Function &f = m_graph->function(callee.function);
            what = f.kind == Function::Kind::Global ? "@" + f.name : "fn " + f.name;
            break;
        }
        default:
            what = calleeToken.is(TokenKind::Local) || calleeToken.is(TokenKind::GraphVar)
                ? "%" + std::string(calleeToken.text)
                : "a function value";
        }
        return "to close the call of " + what + " opened at " + at(open);
    };

    Node n;
    // This call's arguments go on m_args after those of the calls it is nested in.
    const std::size_t firstArg = m_args.size();
    struct ArgsScope
    {
        std::vector<Value> &args;
        std::size_t first;
        ~ArgsScope() { args.resize(first); }
    } argsScope { m_args, firstArg };
    // Collected, then pooled once (setting them one by one would pool every prefix).
    std::vector<Attributes::Item> attrs;
    std::string_view attrsText; // the source text of the attributes, when it can be cached
    bool cachedAttrs = false;
    bool argAfterAttrs = false;
    for (;;) {
        const Token &p = m_ts.peek();
        if (p.isPunct(')'))
            break;
        if (p.is(TokenKind::Identifier) && m_ts.peek(1).isPunct('=')) {
            if (attrs.empty() && attrsText.empty()) {
                // The attributes run to the `)` closing the call; a comment inside keeps
                // them from the cache.
                const std::size_t end = m_ts.lexer().matchingClose(p.offset, 1, true);
                if (end != std::string_view::npos && m_ts.source()[end] == ')') {
                    attrsText = m_ts.source().substr(p.offset, end - p.offset);
                    const auto it = m_attrsByText.find(attrsText);
                    if (it != m_attrsByText.end()) {
                        n.attrs = it->second;
                        cachedAttrs = true;
                        m_ts.skipTo(static_cast<std::uint32_t>(end)); // to the `)`
                        continue;
                    }
                }
            }
            const Token key = m_ts.take();
            m_ts.take();
            Attributes::setItem(attrs, std::string(key.text), m_ts.parseAttrValue());
        } else {
            // An argument after the first attribute: the attributes' text holds it too.
            argAfterAttrs = argAfterAttrs || !attrsText.empty();
            Value a = parseExpr();
            if (a.kind == Value::Kind::AttrsRef)
                n.setAttrsRef(std::string(a.name));
            else
                m_args.push_back(a);
        }
        if (m_ts.accept(","))
            continue;
        if (!m_ts.peek().isPunct(')'))
            m_ts.fail(m_ts.peek(),
                      "expected ',' or ')' " + closeMessage() + ", found " + describe(m_ts.peek()));
    }
    const Token close = m_ts.take(); // ')'
    if (!cachedAttrs) {
        n.attrs = Attributes(std::move(attrs));
        if (!attrsText.empty() && !argAfterAttrs
            && close.offset == attrsText.data() + attrsText.size() - m_ts.source().data()
            && m_attrsByText.size() < maxCachedAttrs)
            m_attrsByText.emplace(attrsText, n.attrs);
    }

    switch (callee.kind) {
    case Value::Kind::Op:
        n.kind = NodeKind::OpCall;
        n.op = opName(callee.name);
        break;
    case Value::Kind::Constructor:
        n.kind = NodeKind::ConstructorCall;
        n.op = opName(callee.name);
        break;
    case Value::Kind::Function:
        n.kind = NodeKind::FunctionCall;
        n.callee = callee.function;
        break;
    case Value::Kind::Tensor:
        n.kind = NodeKind::ClosureCall;
        n.inputs.push_back(callee.ref);
        break;
    case Value::Kind::AttrsRef:
        m_ts.fail(calleeToken, "a meta[relay.attrs...] reference cannot be called");
    }
    n.inputs.reserve(n.inputs.size() + m_args.size() - firstArg);
    for (std::size_t i = firstArg; i < m_args.size(); ++i)
        n.inputs.push_back(materialize(m_args[i], open));
    if (n.kind == NodeKind::FunctionCall) {
        const Function &f = m_graph->function(n.callee);
        if (f.hasReturnType)
            n.setOutputTypes({ f.returnType });
    }
    Value v;
    v.ref = TensorRef { newNode(std::move(n), calleeToken), 0 };
    v.created = true;
    return v;
}

} // namespace cleave::relay
