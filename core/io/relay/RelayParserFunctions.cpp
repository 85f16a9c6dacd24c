// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// RelayParser: functions and the expressions that hold bodies — fn literals and their parameters,
// binding chains, blocks and tuples in parentheses, `if`, `match` and its patterns.
#include "core/io/relay/RelayParser.h"

#include <algorithm>
#include <optional>

namespace cleave::relay {

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
                n.setOutputTypes(typeFromComment(m_ts.peek().ty));
                n.typeAnnotated = true;
            }
            const NodeId id = newNode(std::move(n), t);
            m_graph->function(f).params.push_back(id);
            bind("%" + std::string(t.text), Binding::ofNode(id), t);
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
                bind(name, Binding::ofLiteral(lit), nameTok);
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
            bind(name, Binding::ofNode(v.ref.node), nameTok);
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
            bind(name, Binding::ofNode(v.ref.node), nameTok);
            break;
        }
        case Value::Kind::Function:
            bind(name, Binding::ofLiteral(v.function), nameTok);
            break;
        case Value::Kind::Op:
        case Value::Kind::Constructor: {
            const TensorRef r = materialize(v, nameTok);
            m_graph->node(r.node).name = name;
            bind(name, Binding::ofNode(r.node), nameTok);
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
        bind(p.name, Binding::ofNode(p.variable), t);
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
