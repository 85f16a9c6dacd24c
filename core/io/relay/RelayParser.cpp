// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relay/RelayParser.h"

#include "core/support/HashMix.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace cleave::relay {

namespace {

// Recursion bounds. Each level of expression nesting costs a few stack frames (parseExpr →
// parseAtom → parseParenthesized / parseFunctionLiteral → parseBody), each a few hundred
// bytes, several kilobytes under AddressSanitizer: 256 levels stay far below an 8 MiB stack
// (and the 2 MiB of a worker thread) while TVM's printer, which binds every call to a %-name,
// rarely nests more than a handful.
constexpr int maxExpressionDepth = 256;
constexpr int maxFunctionNesting = 64;

std::string at(const Token &t)
{
    return std::to_string(t.line) + ":" + std::to_string(t.column);
}

SourceLocation location(const Token &t)
{
    return SourceLocation { {}, t.line, t.column };
}

bool allDigits(std::string_view s)
{
    return !s.empty() && std::ranges::all_of(s, [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

} // namespace

RelayParser::RelayParser(std::string_view text)
    : m_ts(text)
{
    // TVM prints a binding in 60–130 bytes; a guess on the low side avoids most rehashing.
    const std::size_t bindings = text.size() / 128 + 16;
    m_names.reserve(64);
    m_numbered.reserve(std::min<std::size_t>(bindings, maxNumberedSlots));
    m_bindings.reserve(bindings);
    m_scopeLog.reserve(bindings);
}

std::size_t RelayParser::ConstantKeyHash::operator()(const ConstantKey &k) const
{
    std::size_t h = std::hash<std::string_view> {}(k.second);
    hashMix(h, k.first);
    return h;
}

InternedString RelayParser::opName(std::string_view name)
{
    auto [it, inserted] = m_opNames.try_emplace(name);
    if (inserted)
        it->second = InternedString(name);
    return it->second;
}

// --- names and scopes --------------------------------------------------------------------------

std::optional<std::uint32_t> RelayParser::plainNumber(std::string_view name)
{
    // At most 7 digits and no leading zero: `%012` is another name than `%12`.
    if (name.empty() || name.size() > 7 || (name[0] == '0' && name.size() > 1))
        return std::nullopt;
    std::uint32_t n = 0;
    for (const char c : name) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = n * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (n >= maxNumberedSlots)
        return std::nullopt;
    return n;
}

void RelayParser::pushScope()
{
    ++m_depth;
    m_scopeMarks.push_back(m_scopeLog.size());
}

void RelayParser::popScope()
{
    const std::size_t mark = m_scopeMarks.back();
    m_scopeMarks.pop_back();
    while (m_scopeLog.size() > mark) {
        if (const std::optional<std::uint32_t> number = plainNumber(m_scopeLog.back())) {
            std::uint32_t &slot = m_numbered[*number];
            slot = m_bindings[slot].shadowed;
            m_scopeLog.pop_back();
            continue;
        }
        auto it = m_names.find(m_scopeLog.back());
        if (it != m_names.end()) {
            const std::uint32_t hidden = m_bindings[it->second].shadowed;
            if (hidden == noBinding)
                m_names.erase(it);
            else
                it->second = hidden;
        }
        m_scopeLog.pop_back();
    }
    --m_depth;
}

void RelayParser::bind(const std::string &name, Binding b, const Token &tok)
{
    for (const PendingUse &use : m_pending) {
        if (use.name == name) {
            throw ParseError { "cycle through let: " + name + " is used at "
                                   + std::to_string(use.line) + ":" + std::to_string(use.column)
                                   + " before its binding at " + at(tok)
                                   + " (a value cannot depend on itself)",
                               use.line, use.column, "relay.cycle" };
        }
    }
    // Keys view the source: `name` is `%` + the token text, which lives in the source buffer.
    const std::string_view key
        = tok.text.size() + 1 == name.size() ? tok.text : std::string_view(name).substr(1);
    const Binding *existing = lookup(key);
    if (existing && existing->depth == m_depth) {
        throw ParseError { "duplicate binding of " + name + " (first bound at "
                               + std::to_string(existing->line) + ":"
                               + std::to_string(existing->column) + ")",
                           tok.line, tok.column, "relay.duplicate_binding" };
    }
    b.depth = m_depth;
    b.line = tok.line;
    b.column = tok.column;
    const auto index = static_cast<std::uint32_t>(m_bindings.size());
    if (const std::optional<std::uint32_t> number = plainNumber(key)) {
        if (*number >= m_numbered.size())
            m_numbered.resize(std::max<std::size_t>(*number + 1, m_numbered.size() * 2), noBinding);
        b.shadowed = m_numbered[*number];
        m_numbered[*number] = index;
    } else {
        auto [it, inserted] = m_names.try_emplace(key, index);
        b.shadowed = inserted ? noBinding : it->second;
        it->second = index;
    }
    m_bindings.push_back(b);
    m_scopeLog.push_back(key);
}

const RelayParser::Binding *RelayParser::lookup(std::string_view name) const
{
    if (const std::optional<std::uint32_t> number = plainNumber(name)) {
        if (*number >= m_numbered.size() || m_numbered[*number] == noBinding)
            return nullptr;
        return &m_bindings[m_numbered[*number]];
    }
    auto it = m_names.find(name);
    return it == m_names.end() ? nullptr : &m_bindings[it->second];
}

NodeId RelayParser::newNode(Node n, const Token &tok)
{
    n.function = m_current;
    n.where = SourcePosition::of(location(tok));
    return m_graph->addNode(std::move(n));
}

FunctionId RelayParser::newScopeFunction(Function::Kind kind, std::string name, const Token &tok)
{
    Function f;
    f.kind = kind;
    f.name = std::move(name);
    f.parent = m_current;
    f.where = location(tok);
    return m_graph->addFunction(std::move(f));
}

// --- module ------------------------------------------------------------------------------------

std::unique_ptr<Graph> RelayParser::parse()
{
    m_graph = std::make_unique<Graph>();
    // About one node per 40 bytes of TVM text; reserving avoids re-moving every node as it grows.
    m_graph->reserveNodes(m_ts.source().size() / 40 + 16);
    if (m_ts.peek().isPunct('[')) // a Python list wrapper around a pasted dump
        m_ts.take();
    if (m_ts.peek().is(TokenKind::Version))
        m_graph->setVersionHeader(std::string(m_ts.take().text));

    FunctionId implicitMain;
    auto ensureImplicitMain = [&](const Token &t) {
        if (implicitMain.isValid())
            return;
        if (m_graph->findFunction("main").isValid())
            m_ts.fail(t, "an expression cannot follow the definition of @main");
        Function f;
        f.kind = Function::Kind::Global;
        f.name = "main";
        f.where = location(t);
        implicitMain = m_graph->addFunction(std::move(f));
        m_globals["main"] = implicitMain;
        m_definedGlobals.insert(implicitMain);
        m_current = implicitMain;
        pushScope();
    };

    for (;;) {
        const Token t = m_ts.peek();
        if (t.is(TokenKind::End))
            break;
        if (t.is(TokenKind::Metadata)) {
            parseMetadata(t);
            break;
        }
        if (t.isIdent("type") || t.isIdent("extern")) {
            parseTypeDefinition();
        } else if (t.isIdent("def")) {
            parseDefinition();
        } else if (t.isIdent("free_var")) {
            ensureImplicitMain(t);
            m_ts.take();
            const Token var = m_ts.take();
            if (!var.is(TokenKind::Local) && !var.is(TokenKind::GraphVar))
                m_ts.fail(var, "expected a variable after 'free_var', found " + describe(var));
            Node n;
            n.kind = NodeKind::Input;
            n.name = "%" + std::string(var.text);
            if (m_ts.accept(":")) {
                n.setOutputTypes({ m_ts.parseType() });
                n.typeAnnotated = true;
            }
            m_ts.accept(";");
            const NodeId id = newNode(std::move(n), var);
            m_graph->function(implicitMain).params.push_back(id);
            bind("%" + std::string(var.text), Binding { id, {} }, var);
        } else if (t.isIdent("fn") && !implicitMain.isValid()
                   && !m_graph->findFunction("main").isValid()) {
            parseTopLevelFn();
        } else if (t.isIdent("fn") && implicitMain.isValid()
                   && m_graph->function(implicitMain).nodes.size()
                       == m_graph->function(implicitMain).params.size()) {
            // `free_var %x: T; fn (%y) {...}`: the fn is main; free vars come first.
            m_ts.take();
            parseParams(implicitMain, "of the top-level fn");
            if (m_ts.accept("->")) {
                m_graph->function(implicitMain).returnType = m_ts.parseType();
                m_graph->function(implicitMain).hasReturnType = true;
            }
            const Token open = m_ts.expect("{", "to open the body of the top-level fn");
            const Value v = parseBody(implicitMain, "the top-level fn");
            m_ts.expect("}", "to close the body of the top-level fn opened at " + at(open));
            m_graph->function(implicitMain).result = materialize(v, open).node;
        } else if (m_graph->functionCount() > 0
                   && (t.isPunct(',') || t.isPunct(']') || t.isPunct('{'))) {
            break; // the tail of a Python list wrapper (`, {}]`)
        } else if (!m_graph->findFunction("main").isValid() || implicitMain.isValid()) {
            ensureImplicitMain(t);
            const Value v = parseBody(implicitMain, "the expression");
            m_graph->function(implicitMain).result = materialize(v, t).node;
        } else {
            m_ts.fail(t, "expected 'def', 'type' or 'fn' at the top level, found " + describe(t));
        }
    }
    if (implicitMain.isValid()) {
        if (!m_pending.empty()) {
            const PendingUse &u = m_pending.front();
            throw ParseError { "undefined variable " + u.name, u.line, u.column,
                               "relay.undefined" };
        }
        popScope();
    }
    for (const auto &[name, id] : m_globals) {
        if (!m_definedGlobals.contains(id)) {
            const Token &use = m_globalFirstUse[id];
            throw ParseError { "call of undefined global function @" + name, use.line, use.column,
                               "relay.undefined" };
        }
    }
    if (m_graph->functionCount() == 0)
        throw ParseError { "no function found: expected 'def @main(...)' or 'fn (...)'", 1, 1,
                           "relay.empty" };
    return std::move(m_graph);
}

void RelayParser::parseMetadata(const Token &tok)
{
    m_ts.take();
    std::string_view rest = m_ts.source().substr(tok.offset);
    const std::size_t brace = rest.find('{');
    if (brace != std::string_view::npos)
        m_graph->setMetadata(std::string(rest.substr(brace)));
}

FunctionId RelayParser::globalFunction(std::string_view name, const Token &tok)
{
    auto it = m_globals.find(std::string(name));
    if (it != m_globals.end())
        return it->second;
    Function f;
    f.kind = Function::Kind::Global;
    f.name = std::string(name);
    f.where = location(tok);
    const FunctionId id = m_graph->addFunction(std::move(f));
    m_globals.emplace(std::string(name), id);
    m_globalFirstUse.emplace(id, tok);
    return id;
}

void RelayParser::parseTypeDefinition()
{
    TypeDefinition def;
    if (m_ts.peek().isIdent("extern")) {
        m_ts.take();
        def.isExtern = true;
    }
    const Token kw = m_ts.take();
    if (!kw.isIdent("type"))
        m_ts.fail(kw, "expected 'type' after 'extern', found " + describe(kw));
    const Token name = m_ts.take();
    if (!name.is(TokenKind::Identifier))
        m_ts.fail(name, "expected a type name, found " + describe(name));
    def.name = std::string(name.text);
    if (m_ts.accept("[")) {
        while (!m_ts.peek().isPunct(']')) {
            def.typeParams.emplace_back(m_ts.take().text);
            if (!m_ts.accept(","))
                break;
        }
        m_ts.expect("]", "to close the type parameters of " + def.name);
    }
    if (!def.isExtern && m_ts.peek().isPunct('{')) {
        const Token open = m_ts.take();
        while (!m_ts.peek().isPunct('}')) {
            const Token ctor = m_ts.take();
            if (!ctor.is(TokenKind::Identifier))
                m_ts.fail(ctor,
                          "expected a constructor of " + def.name + ", found " + describe(ctor));
            TypeDefinition::Constructor c;
            c.name = std::string(ctor.text);
            if (m_ts.accept("(")) {
                while (!m_ts.peek().isPunct(')')) {
                    c.fields.push_back(m_ts.parseType());
                    if (!m_ts.accept(","))
                        break;
                }
                m_ts.expect(")", "to close the fields of constructor " + c.name);
            }
            m_constructorArity[c.name] = c.fields.size();
            def.constructors.push_back(std::move(c));
            if (!m_ts.accept(","))
                break;
        }
        m_ts.expect("}", "to close the definition of type " + def.name + " opened at " + at(open));
    }
    m_graph->addTypeDefinition(std::move(def));
}

void RelayParser::parseDefinition()
{
    const Token def = m_ts.take();
    const Token name = m_ts.take();
    if (!name.is(TokenKind::Global))
        m_ts.fail(name,
                  "expected a global name such as @main after 'def', found " + describe(name));
    const FunctionId f = globalFunction(name.text, name);
    if (m_definedGlobals.contains(f)) {
        const SourceLocation &first = m_graph->function(f).where;
        m_ts.fail(name,
                  "duplicate definition of @" + std::string(name.text) + " (first defined at "
                      + std::to_string(first.line) + ":" + std::to_string(first.column) + ")");
    }
    m_definedGlobals.insert(f);
    m_graph->function(f).where = location(def);
    const std::string what = "@" + std::string(name.text);
    if (m_ts.accept("[")) {
        while (!m_ts.peek().isPunct(']')) {
            m_graph->function(f).typeParams.emplace_back(m_ts.take().text);
            if (!m_ts.accept(","))
                break;
        }
        m_ts.expect("]", "to close the type parameters of " + what);
    }
    const FunctionId prev = m_current;
    m_current = f;
    pushScope();
    parseParams(f, "of " + what);
    if (m_ts.accept("->")) {
        Type t = m_ts.parseType();
        m_graph->function(f).returnType = std::move(t);
        m_graph->function(f).hasReturnType = true;
    }
    const Token open = m_ts.expect("{", "to open the body of " + what);
    const Value v = parseBody(f, what);
    m_ts.expect("}", "to close the body of " + what + " opened at " + at(open));
    m_graph->function(f).result = materialize(v, open).node;
    if (!m_pending.empty()) {
        const PendingUse u = m_pending.front();
        throw ParseError { "undefined variable " + u.name, u.line, u.column, "relay.undefined" };
    }
    popScope();
    m_current = prev;
}

void RelayParser::parseTopLevelFn()
{
    const Token fnTok = m_ts.take();
    Function f;
    f.kind = Function::Kind::Global;
    f.name = "main";
    f.where = location(fnTok);
    const FunctionId id = m_graph->addFunction(std::move(f));
    m_globals["main"] = id;
    m_definedGlobals.insert(id);
    const FunctionId prev = m_current;
    m_current = id;
    pushScope();
    parseParams(id, "of the top-level fn");
    if (m_ts.accept("->")) {
        m_graph->function(id).returnType = m_ts.parseType();
        m_graph->function(id).hasReturnType = true;
    }
    const Token open = m_ts.expect("{", "to open the body of the top-level fn");
    const Value v = parseBody(id, "the top-level fn");
    m_ts.expect("}", "to close the body of the top-level fn opened at " + at(open));
    m_graph->function(id).result = materialize(v, open).node;
    if (!m_pending.empty()) {
        const PendingUse u = m_pending.front();
        throw ParseError { "undefined variable " + u.name, u.line, u.column, "relay.undefined" };
    }
    popScope();
    m_current = prev;
}

// --- functions ---------------------------------------------------------------------------------

void RelayParser::parseParams(FunctionId f, const std::string &context)
{
    const Token open = m_ts.expect("(", "to open the parameter list " + context);
    while (!m_ts.peek().isPunct(')')) {
        const Token t = m_ts.peek();
        if (t.is(TokenKind::Local) || t.is(TokenKind::GraphVar)) {
            m_ts.take();
            Node n;
            n.kind = NodeKind::Input;
            n.name = "%" + std::string(t.text);
            if (m_ts.peek().isPunct('{')) { // `{virtual_device=...}`
                const Token brace = m_ts.peek();
                n.setSpan(std::string(m_ts.skipBalanced(brace, brace.offset)));
            }
            if (m_ts.accept(":")) {
                n.setOutputTypes({ m_ts.parseType() });
                n.typeAnnotated = true;
            }
            if (!n.typeAnnotated && !m_ts.peek().ty.empty()) {
                n.setOutputTypes(typeFromComment(m_ts.peek().ty).list);
                n.typeAnnotated = true;
            }
            const NodeId id = newNode(std::move(n), t);
            m_graph->function(f).params.push_back(id);
            bind("%" + std::string(t.text), Binding { id, {} }, t);
        } else if (t.is(TokenKind::Identifier) && m_ts.peek(1).isPunct('=')) {
            m_ts.take();
            m_ts.take();
            m_graph->function(f).attrs.set(std::string(t.text), m_ts.parseAttrValue());
        } else {
            m_ts.fail(t,
                      "expected a parameter or ')' to close the parameter list " + context
                          + " opened at " + at(open) + ", found " + describe(t));
        }
        if (!m_ts.accept(","))
            break;
    }
    m_ts.expect(")", "to close the parameter list " + context + " opened at " + at(open));
}

FunctionId RelayParser::parseFunctionLiteral(const Token &fnTok, const std::string &name)
{
    if (++m_fnDepth > maxFunctionNesting)
        m_ts.fail(fnTok,
                  "fn literals nested more than " + std::to_string(maxFunctionNesting)
                      + " levels deep");
    Function fn;
    fn.kind = Function::Kind::Literal;
    fn.name = name.empty() ? "%fn" + std::to_string(m_literalCounter++) : name;
    fn.parent = m_current;
    fn.where = location(fnTok);
    const FunctionId id = m_graph->addFunction(std::move(fn));
    const FunctionId prev = m_current;
    m_current = id;
    pushScope();
    if (m_ts.accept("[")) {
        while (!m_ts.peek().isPunct(']')) {
            m_graph->function(id).typeParams.emplace_back(m_ts.take().text);
            if (!m_ts.accept(","))
                break;
        }
        m_ts.expect("]", "to close the type parameters of fn");
    }
    const std::string what = "of the fn opened at " + at(fnTok);
    parseParams(id, what);
    if (m_ts.accept("->")) {
        m_graph->function(id).returnType = m_ts.parseType();
        m_graph->function(id).hasReturnType = true;
    }
    const Token open = m_ts.expect("{", "to open the body " + what);
    const Value v = parseBody(id, "the fn");
    m_ts.expect("}", "to close the body " + what);
    m_graph->function(id).result = materialize(v, open).node;
    popScope();
    m_current = prev;
    --m_fnDepth;
    return id;
}

RelayParser::Value RelayParser::parseBody(FunctionId f, const std::string &what)
{
    (void)f;
    (void)what;
    for (;;) {
        const Token t = m_ts.peek();
        const bool graphBinding
            = (t.is(TokenKind::GraphVar) || t.is(TokenKind::Local)) && m_ts.peek(1).isPunct('=');
        const bool letBinding = t.isIdent("let");
        if (!graphBinding && !letBinding)
            return parseExpr();

        m_ts.take();
        Token nameTok = t;
        Type declared;
        if (letBinding) {
            nameTok = m_ts.take();
            if (!nameTok.is(TokenKind::Local) && !nameTok.is(TokenKind::GraphVar))
                m_ts.fail(nameTok, "expected a variable after 'let', found " + describe(nameTok));
            if (m_ts.accept(":"))
                declared = m_ts.parseType();
        }
        const std::string name = "%" + std::string(nameTok.text);
        if (m_ts.peek().isPunct('='))
            m_ts.take();
        else
            m_ts.expect("=", "after " + name); // fails with the message

        if (m_ts.peek().isIdent("fn") && !m_ts.peek(1).isPunct('=')) {
            // A bound function literal: `%3 = fn (...) {...};` — the name refers to the function.
            const Token fnTok = m_ts.take();
            const FunctionId lit = parseFunctionLiteral(fnTok, name);
            if (!m_ts.peek().isPunct('(')) {
                bind(name, Binding { {}, lit }, nameTok);
                expectSemicolon(name);
                continue;
            }
            Value callee;
            callee.kind = Value::Kind::Function;
            callee.function = lit;
            Value v = parseCall(callee, fnTok);
            annotate(v);
            expectSemicolon(name);
            if (v.created && m_graph->node(v.ref.node).name.empty())
                m_graph->node(v.ref.node).name = name;
            bind(name, Binding { v.ref.node, {} }, nameTok);
            continue;
        }

        Value v = parseExpr();
        expectSemicolon(name);
        switch (v.kind) {
        case Value::Kind::Tensor: {
            Node &n = m_graph->node(v.ref.node);
            if (v.created && n.name.empty())
                n.name = name;
            if (!declared.isUnknown() && n.outputType().isUnknown()) {
                n.setOutputType(0, declared);
                n.typeAnnotated = true;
            }
            bind(name, Binding { v.ref.node, {} }, nameTok);
            break;
        }
        case Value::Kind::Function:
            bind(name, Binding { {}, v.function }, nameTok);
            break;
        case Value::Kind::Op:
        case Value::Kind::Constructor: {
            const TensorRef r = materialize(v, nameTok);
            m_graph->node(r.node).name = name;
            bind(name, Binding { r.node, {} }, nameTok);
            break;
        }
        case Value::Kind::AttrsRef:
            m_ts.fail(nameTok, "a meta[relay.attrs...] reference cannot be bound to a variable");
        }
    }
}

void RelayParser::expectSemicolon(const std::string &name)
{
    if (!m_ts.peek().isPunct(';'))
        m_ts.fail(m_ts.peek(),
                  "expected ';' after the binding of " + name + ", found " + describe(m_ts.peek()));
    m_ts.take();
}

RelayParser::Value RelayParser::parseBlockExpression(const Token &open)
{
    pushScope();
    Value v = parseBody(m_current, "the block opened at " + at(open));
    popScope();
    return v;
}

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
        const CommentType &t = typeFromComment(next.ty);
        if (n.outputCount() <= 1)
            n.setOutputTypes(t.list); // what setOutputType(0, ..) gives, without interning
        else
            n.setOutputType(0, t.type);
        n.typeAnnotated = !t.type.isUnknown();
    }
    if (!next.span.empty() && n.span().empty())
        n.setSpan(std::string(next.span));
}

const RelayParser::CommentType &RelayParser::typeFromComment(std::string_view text)
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
    TypeList list { t };
    return m_typeCache.emplace(text, CommentType { std::move(t), list }).first->second;
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
        if (b.literal.isValid()) {
            v.kind = Value::Kind::Function;
            v.function = b.literal;
        } else {
            v.ref = TensorRef { b.node, 0 };
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
        n.setValue(AttrValue::boolean(tok.text == "True"));
    else
        n.setValue(RelayTokenStream::numberValue(tok));
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
    n.setMetaRef(std::string(tok.text));
    n.name = n.metaRef();
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
    for (;;) {
        const Token &p = m_ts.peek();
        if (p.isPunct(')'))
            break;
        if (p.is(TokenKind::Identifier) && m_ts.peek(1).isPunct('=')) {
            const Token key = m_ts.take();
            m_ts.take();
            Attributes::setItem(attrs, std::string(key.text), m_ts.parseAttrValue());
        } else {
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
    m_ts.take(); // ')'
    n.attrs = Attributes(std::move(attrs));

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

RelayParser::Value RelayParser::parseParenthesized()
{
    const Token open = m_ts.take();
    const Token &first = m_ts.peek();
    if (first.isIdent("let")
        || ((first.is(TokenKind::GraphVar) || first.is(TokenKind::Local))
            && m_ts.peek(1).isPunct('='))) {
        Value v = parseBlockExpression(open);
        m_ts.expect(")", "to close the block opened at " + at(open));
        return v;
    }
    std::vector<Value> items;
    bool sawComma = false;
    while (!m_ts.peek().isPunct(')')) {
        items.push_back(parseExpr());
        if (!m_ts.accept(","))
            break;
        sawComma = true;
    }
    m_ts.expect(")", "to close the tuple opened at " + at(open));
    if (items.size() == 1 && !sawComma)
        return items[0]; // grouping
    Node n;
    n.kind = NodeKind::Tuple;
    std::vector<Type> fieldTypes;
    bool typed = true;
    for (const Value &item : items) {
        n.inputs.push_back(materialize(item, open));
        const Type &ft = m_graph->tensorType(n.inputs.back());
        typed = typed && !ft.isUnknown();
        fieldTypes.push_back(ft);
    }
    if (typed)
        n.setOutputTypes({ Type::tuple(std::move(fieldTypes)) });
    Value v;
    v.ref = TensorRef { newNode(std::move(n), open), 0 };
    v.created = true;
    return v;
}

RelayParser::Value RelayParser::parseIf(const Token &ifTok)
{
    m_ts.expect("(", "after 'if'");
    const Value cond = parseExpr();
    m_ts.expect(")", "to close the condition of the 'if' at " + at(ifTok));
    Node n;
    n.kind = NodeKind::If;
    n.inputs.push_back(materialize(cond, ifTok));
    for (int branch = 0; branch < 2; ++branch) {
        if (branch == 1) {
            const Token kw = m_ts.take();
            if (!kw.isIdent("else"))
                m_ts.fail(
                    kw, "expected 'else' for the 'if' at " + at(ifTok) + ", found " + describe(kw));
        }
        const FunctionId scope
            = newScopeFunction(Function::Kind::Scope, branch == 0 ? "then" : "else", ifTok);
        const Token open = m_ts.expect(
            "{", branch == 0 ? "to open the 'if' branch" : "to open the 'else' branch");
        const FunctionId prev = m_current;
        m_current = scope;
        pushScope();
        const Value r = parseBody(scope, "the branch");
        m_graph->function(scope).result = materialize(r, open).node;
        popScope();
        m_current = prev;
        m_ts.expect("}", "to close the branch opened at " + at(open));
        n.editDetail().scopes.push_back(scope);
    }
    Value v;
    v.ref = TensorRef { newNode(std::move(n), ifTok), 0 };
    v.created = true;
    return v;
}

Pattern RelayParser::parsePattern(FunctionId scope)
{
    const Token t = m_ts.take();
    if (++m_exprDepth > maxExpressionDepth)
        m_ts.fail(t,
                  "patterns nested too deeply (more than " + std::to_string(maxExpressionDepth)
                      + " levels)");
    struct Leave
    {
        int &depth;
        ~Leave() { --depth; }
    } leave { m_exprDepth };
    Pattern p;
    if (t.isIdent("_")) {
        p.kind = Pattern::Kind::Wildcard;
        return p;
    }
    if (t.is(TokenKind::Local) || t.is(TokenKind::GraphVar)) {
        p.kind = Pattern::Kind::Variable;
        p.name = "%" + std::string(t.text);
        Node n;
        n.kind = NodeKind::Input;
        n.name = p.name;
        if (m_ts.accept(":")) {
            p.type = m_ts.parseType();
            n.setOutputTypes({ p.type });
            n.typeAnnotated = true;
        }
        p.variable = newNode(std::move(n), t);
        m_graph->function(scope).params.push_back(p.variable);
        bind(p.name, Binding { p.variable, {} }, t);
        return p;
    }
    if (t.isPunct('(')) {
        p.kind = Pattern::Kind::Tuple;
        while (!m_ts.peek().isPunct(')')) {
            p.children.push_back(parsePattern(scope));
            if (!m_ts.accept(","))
                break;
        }
        m_ts.expect(")", "to close the tuple pattern opened at " + at(t));
        return p;
    }
    if (t.is(TokenKind::Identifier)) {
        p.kind = Pattern::Kind::Constructor;
        p.name = std::string(t.text);
        if (m_ts.accept("(")) {
            while (!m_ts.peek().isPunct(')')) {
                p.children.push_back(parsePattern(scope));
                if (!m_ts.accept(","))
                    break;
            }
            m_ts.expect(")", "to close the pattern " + p.name);
        }
        return p;
    }
    m_ts.fail(t, "expected a pattern, found " + describe(t));
}

RelayParser::Value RelayParser::parseMatch(const Token &matchTok)
{
    Node n;
    n.kind = NodeKind::Match;
    n.setPartialMatch(m_ts.accept("?"));
    m_ts.expect("(", "after 'match'");
    const Value scrutinee = parseExpr();
    m_ts.expect(")", "to close the value of the 'match' at " + at(matchTok));
    n.inputs.push_back(materialize(scrutinee, matchTok));
    const Token open = m_ts.expect("{", "to open the clauses of the 'match' at " + at(matchTok));
    while (!m_ts.peek().isPunct('}')) {
        const Token clauseTok = m_ts.peek();
        const FunctionId scope = newScopeFunction(Function::Kind::Scope, "case", clauseTok);
        const FunctionId prev = m_current;
        m_current = scope;
        pushScope();
        n.editDetail().patterns.push_back(parsePattern(scope));
        m_ts.expect("=>", "after the pattern");
        Value r;
        if (m_ts.peek().isPunct('{')) {
            const Token body = m_ts.take();
            r = parseBody(scope, "the clause");
            m_graph->function(scope).result = materialize(r, body).node;
            m_ts.expect("}", "to close the clause opened at " + at(body));
        } else {
            r = parseExpr();
            m_graph->function(scope).result = materialize(r, clauseTok).node;
        }
        popScope();
        m_current = prev;
        n.editDetail().scopes.push_back(scope);
        if (!m_ts.accept(","))
            break;
    }
    m_ts.expect("}", "to close the clauses of the 'match' opened at " + at(open));
    Value v;
    v.ref = TensorRef { newNode(std::move(n), matchTok), 0 };
    v.created = true;
    return v;
}

} // namespace cleave::relay
