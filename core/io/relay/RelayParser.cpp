// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// RelayParser: construction, names and scopes, the module and its top-level definitions. Its
// expressions are in RelayParserExpressions.cpp, its functions, blocks, `if` and `match` in
// RelayParserFunctions.cpp.
#include "core/io/relay/RelayParser.h"

#include "core/support/Decimal.h"
#include "core/support/HashMix.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace cleave::relay {

RelayParser::RelayParser(std::string_view text)
    : m_ts(text)
{
    // TVM prints a binding in 60–130 bytes. Reserving for the shortest costs address space, not
    // memory: the pages past the last binding are never written, so they are never resident,
    // while growing a full vector holds the old and the new copy at once near the end of a
    // large parse.
    const std::size_t bindings = text.size() / 60 + 16;
    m_names.reserve(64);
    m_numbered.reserve(std::min<std::size_t>(bindings, maxNumberedSlots));
    m_bindings.reserve(bindings);
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
    const std::optional<std::uint32_t> n = canonicalDecimal(name, 7);
    if (!n || *n >= maxNumberedSlots)
        return std::nullopt;
    return n;
}

void RelayParser::pushScope()
{
    ++m_depth;
    m_scopeMarks.push_back(m_bindings.size());
}

void RelayParser::popScope()
{
    const std::size_t mark = m_scopeMarks.back();
    m_scopeMarks.pop_back();
    // The scope's bindings are the last ones: each name goes back to the binding it hid, and
    // the bindings go (nothing refers to them any more).
    while (m_bindings.size() > mark) {
        const Binding &b = m_bindings.back();
        const std::string_view key = m_ts.source().substr(b.keyOffset, b.keyLength);
        if (const std::optional<std::uint32_t> number = plainNumber(key)) {
            m_numbered[*number] = b.shadowed;
        } else if (auto it = m_names.find(key); it != m_names.end()) {
            if (b.shadowed == noBinding)
                m_names.erase(it);
            else
                it->second = b.shadowed;
        }
        m_bindings.pop_back();
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
    const std::string_view key = tok.text;
    const Binding *existing = lookup(key);
    if (existing && existing->depth == m_depth) {
        // The first binding's `%` is the byte before its name.
        const SourceLocation first = locationAt(m_ts.source(), existing->keyOffset - 1);
        throw ParseError { "duplicate binding of " + name + " (first bound at "
                               + std::to_string(first.line) + ":" + std::to_string(first.column)
                               + ")",
                           tok.line, tok.column, "relay.duplicate_binding" };
    }
    if (key.size() > maxNameLength)
        m_ts.fail(tok,
                  "the name " + name.substr(0, 32) + "... is " + std::to_string(key.size())
                      + " bytes long; Cleave reads names of up to " + std::to_string(maxNameLength)
                      + " bytes");
    if (m_depth >= maxScopeDepth)
        m_ts.fail(tok, "scopes nested more than " + std::to_string(maxScopeDepth) + " deep");
    b.depth = static_cast<std::uint16_t>(m_depth);
    b.keyOffset = static_cast<std::uint32_t>(key.data() - m_ts.source().data());
    b.keyLength = static_cast<std::uint16_t>(key.size());
    const auto index = static_cast<std::uint32_t>(m_bindings.size());
    if (const std::optional<std::uint32_t> number = plainNumber(key)) {
        if (*number >= m_numbered.size())
            m_numbered.resize(std::size_t { *number } + 1, noBinding); // grows geometrically
        b.shadowed = m_numbered[*number];
        m_numbered[*number] = index;
    } else {
        auto [it, inserted] = m_names.try_emplace(key, index);
        b.shadowed = inserted ? noBinding : it->second;
        it->second = index;
    }
    m_bindings.push_back(b);
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
            bind("%" + std::string(var.text), Binding::ofNode(id), var);
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

} // namespace cleave::relay
