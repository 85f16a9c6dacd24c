// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// RelaxParser, functions: an `@R.function`'s parameters, type annotations, bindings and
// statements (`R.dataflow()` blocks, `if`, `return`), and its names.
#include "core/io/relax/RelaxParser.h"
#include "core/io/relax/RelaxValues.h"

#include <algorithm>

namespace cleave::relax {

namespace {

std::string at(int line, int column)
{
    return std::to_string(line) + ":" + std::to_string(column);
}

// About how many lines the body of the function defined at `def` spans: the lines after it that
// are indented deeper than `def` (blank and comment lines aside), up to the first that is not.
// It only sizes the function's name table (a string literal over several lines may make it a
// little off), so that the table is not rehashed again and again as a 50,000-binding function
// fills it.
std::size_t bodyLines(std::string_view src, const Token &def)
{
    const auto indent = static_cast<std::size_t>(def.column - 1);
    std::size_t lines = 0;
    for (std::size_t eol = src.find('\n', def.offset); eol != std::string_view::npos;) {
        const std::size_t start = eol + 1;
        // Deeper than `def` when the first indent + 1 bytes are blanks: no need to count more.
        std::size_t p = start;
        while (p < src.size() && src[p] == ' ' && p - start <= indent)
            ++p;
        if (p >= src.size())
            break;
        if (p - start <= indent) {
            while (p < src.size() && src[p] == ' ')
                ++p;
            if (p >= src.size())
                break;
            if (src[p] != '\n' && src[p] != '\r' && src[p] != '#')
                break; // a line no deeper than `def`
        } else {
            ++lines; // (a blank line indented deeper counts too: the count only sizes a table)
        }
        eol = src.find('\n', p);
    }
    return lines;
}

} // namespace

FunctionId RelaxParser::parseFunction(const Expr &decorator, Function::Kind kind, Scope *outer)
{
    const Token def = m_ts.peek();
    if (!def.isName("def"))
        fail(exprAt(def), "expected 'def' after @R.function, found " + describe(def));
    m_ts.take();
    const Token nameTok = m_ts.expectKind(TokenKind::Name, "the function's name");
    const std::string name(nameTok.text);
    FunctionId id;
    if (kind == Function::Kind::Global) {
        id = globalFunction(name, exprAt(nameTok));
        if (m_defined[id.value])
            fail(exprAt(nameTok), "the module defines '" + name + "' twice", "relax.duplicate");
        m_defined[id.value] = true;
    } else {
        Function f;
        f.kind = Function::Kind::Literal;
        f.name = name;
        f.parent = outer->function;
        id = m_graph->addFunction(std::move(f));
        Value v;
        v.kind = Value::Kind::Function;
        v.function = id;
        bind(*outer, name, v, exprAt(nameTok));
    }
    m_graph->function(id).where = SourceLocation { {}, nameTok.line, nameTok.column };
    for (std::size_t i = 0; i < decorator.keywordCount(); ++i)
        m_graph->function(id).attrs.set("@" + std::string(decorator.keywordName(i)),
                                        attrFromExpr(decorator.keywordValue(i)));
    Scope scope;
    scope.function = id;
    scope.parent = outer;
    scope.names.reserve(bodyLines(m_ts.source(), def));
    m_ts.expect("(", "to open the parameters of " + name);
    parseParameters(scope);
    if (m_ts.accept("->")) {
        const Expr ret = m_ts.parseExpr();
        m_graph->function(id).returnType = typeFromExpr(ret);
        m_graph->function(id).hasReturnType = true;
    }
    m_ts.expect(":", "to end the header of " + name);
    m_ts.expectKind(TokenKind::Newline, "end of line after the header of " + name);
    BlockEnd end;
    parseBlock(scope, end);
    if (!m_graph->function(id).result.isValid())
        fail(exprAt(def), "function '" + name + "' has no return statement", "relax.syntax");
    return id;
}

void RelaxParser::parseParameters(Scope &scope)
{
    while (!m_ts.peek().isPunct(")")) {
        const Token p = m_ts.expectKind(TokenKind::Name, "a parameter name");
        Node n;
        n.kind = NodeKind::Input;
        n.function = scope.function;
        n.name = std::string(p.text);
        n.where = SourcePosition { p.line, p.column };
        if (m_ts.accept(":")) {
            n.setOutputTypes(parseAnnotation(",)"));
            n.typeAnnotated = true;
        }
        const NodeId id = m_graph->addNode(std::move(n));
        m_graph->function(scope.function).params.push_back(id);
        Value v;
        v.ref = TensorRef { id, 0 };
        bind(scope, std::string(p.text), v, exprAt(p));
        if (!m_ts.accept(",") && !m_ts.peek().isPunct(")"))
            m_ts.fail(m_ts.peek(),
                      "expected ',' or ')' in the parameter list, found " + describe(m_ts.peek()));
    }
    m_ts.take();
}

// The type of a parameter's annotation.
TypeList RelaxParser::parseAnnotation(std::string_view terminators)
{
    std::size_t stop = 0;
    const std::string_view text
        = simpleTextTo(m_ts.source(), m_ts.unreadOffset(), terminators, stop);
    if (!text.empty()) {
        const auto known = m_annotationTypes.find(text);
        if (known != m_annotationTypes.end()) {
            m_ts.skipUnreadTo(stop);
            return known->second;
        }
    }
    const Expr e = m_ts.parseExpr();
    const TypeList type { typeFromExpr(e) };
    if (!text.empty() && m_ts.peek().offset == stop)
        m_annotationTypes.emplace(text, type);
    return type;
}

void RelaxParser::bind(Scope &scope, std::string_view name, const Value &v, const Expr &at)
{
    Value bound = v;
    bound.line = at.line;
    bound.column = at.column;
    const auto [existing, inserted] = scope.names.emplace(name, bound);
    if (!inserted)
        fail(at,
             "duplicate binding of '" + std::string(name) + "' (first bound at "
                 + relax::at(existing->line, existing->column) + ")",
             "relax.duplicate");
}

RelaxParser::Value RelaxParser::lookup(const Expr &name, Scope &scope)
{
    for (Scope *s = &scope; s; s = s->parent) {
        if (const Value *v = s->names.find(name.text))
            return *v;
    }
    fail(name, "undefined variable '" + std::string(name.text) + "'", "relax.undefined");
}

void RelaxParser::parseBlock(Scope &scope, BlockEnd &end)
{
    const Token open = m_ts.expectKind(TokenKind::Indent, "an indented block");
    if (++m_blockDepth > maxBlockDepth)
        fail(exprAt(open),
             "blocks nested too deeply (more than " + std::to_string(maxBlockDepth) + " levels)");
    while (!m_ts.peek().is(TokenKind::Dedent)) {
        if (m_ts.peek().is(TokenKind::End))
            fail(exprAt(m_ts.peek()), "unexpected end of file inside a block");
        parseStatement(scope, end);
    }
    m_ts.take();
    --m_blockDepth;
}

void RelaxParser::parseStatement(Scope &scope, BlockEnd &end)
{
    const Token t = m_ts.peek();
    Function &fn = m_graph->function(scope.function);
    if (fn.result.isValid() && fn.kind != Function::Kind::Scope)
        fail(exprAt(t), "statement after the return statement of '" + fn.name + "'");
    if (t.isPunct("@")) {
        m_ts.take();
        const Expr decorator = m_ts.parseExpr();
        m_ts.expectKind(TokenKind::Newline, "end of line after the decorator");
        if (!isDecorator(decorator, "R.function"))
            fail(decorator, "only @R.function closures can be nested in a function");
        parseFunction(decorator, Function::Kind::Literal, &scope);
        return;
    }
    if (t.isName("with")) {
        m_ts.take();
        const Expr ctx = m_ts.parseExpr();
        if (!ctx.isCallOf("R.dataflow"))
            fail(ctx, "expected `with R.dataflow():`, found with " + exprText(ctx));
        m_ts.expect(":", "after with R.dataflow()");
        m_ts.expectKind(TokenKind::Newline, "end of line after `with R.dataflow():`");
        m_graph->function(scope.function).attrs.set("@dataflow", AttrValue::boolean(true));
        parseBlock(scope, end);
        return;
    }
    if (t.isName("if")) {
        parseIf(scope, end);
        return;
    }
    if (t.isName("pass")) {
        m_ts.take();
        m_ts.expectKind(TokenKind::Newline, "end of line");
        return;
    }
    if (t.isName("return")) {
        m_ts.take();
        const Expr e = m_ts.parseExpr(true);
        const Value v = lowerExpr(e, scope);
        m_graph->function(scope.function).result = materialize(v, scope, e).node;
        m_ts.expectKind(TokenKind::Newline, "end of line after return");
        return;
    }
    const Expr target = m_ts.parseTarget();
    if (m_ts.accept(":")) {
        std::size_t stop = 0;
        std::string_view text;
        const TypeList *known = nullptr;
        if (const auto *recent
            = m_recentAnnotations.match(m_ts.source(), m_ts.unreadOffset(), '=', stop)) {
            known = *recent;
        } else {
            text = simpleTextTo(m_ts.source(), m_ts.unreadOffset(), "=", stop);
            const auto it = text.empty() ? m_annotationTypes.end() : m_annotationTypes.find(text);
            if (it != m_annotationTypes.end()) {
                known = &it->second;
                m_recentAnnotations.remember(it->first, known);
            }
        }
        if (known) {
            m_ts.skipUnreadTo(stop);
            m_ts.take(); // '='
            const Expr value = m_ts.parseExpr(true);
            m_ts.expectKind(TokenKind::Newline, "end of line after the binding");
            parseAssignment(scope, end, target, Annotation { nullptr, known, {} }, value);
            return;
        }
        const Expr annotation = m_ts.parseExpr();
        if (!m_ts.peek().isPunct("="))
            m_ts.expect("=", "after the type annotation of " + exprText(target));
        const bool remember = !text.empty() && m_ts.peek().offset == stop;
        m_ts.take();
        const Expr value = m_ts.parseExpr(true);
        m_ts.expectKind(TokenKind::Newline, "end of line after the binding");
        parseAssignment(scope, end, target,
                        Annotation { &annotation, nullptr, remember ? text : std::string_view() },
                        value);
        return;
    }
    if (m_ts.accept("=")) {
        const Expr value = m_ts.parseExpr(true);
        m_ts.expectKind(TokenKind::Newline, "end of line after the binding");
        parseAssignment(scope, end, target, Annotation {}, value);
        return;
    }
    m_ts.expectKind(TokenKind::Newline, "end of line after the statement");
    parseExpressionStatement(scope, target);
}

void RelaxParser::parseExpressionStatement(Scope &scope, const Expr &e)
{
    if (e.isCallOf("R.func_attr")) {
        if (e.items.size() != 2 || e.items[1].kind != Expr::Kind::Dict)
            fail(e, "R.func_attr expects one dict argument");
        const AttrValue attrs = attrFromExpr(e.items[1]);
        for (std::size_t i = 0; i < attrs.keys.size(); ++i)
            m_graph->function(scope.function).attrs.set(attrs.keys[i], attrs.list[i]);
        return;
    }
    if (e.isCallOf("R.output")) {
        for (std::size_t i = 1; i < e.items.size(); ++i) {
            if (e.items[i].kind != Expr::Kind::Name)
                fail(e.items[i], "R.output takes variables");
            lookup(e.items[i], scope);
        }
        return;
    }
    // A call for its effect (`R.print(...)`): an unnamed binding.
    if (e.kind != Expr::Kind::Call)
        fail(e, "expected a binding `name: type = value`, found " + exprText(e).substr(0, 60));
    lowerExpr(e, scope);
}

void RelaxParser::parseAssignment(Scope &scope, BlockEnd &end, const Expr &target,
                                  const Annotation &annotation, const Expr &value)
{
    // Symbolic shape variables: `n = T.int64()`, `n, m = T.int64(), T.int64()`.
    auto isVarDecl = [](const Expr &v) {
        return v.kind == Expr::Kind::Call && !v.items.empty() && v.items[0].kind == Expr::Kind::Name
            && v.items[0].text.rfind("T.", 0) == 0;
    };
    if (target.kind == Expr::Kind::Tuple && value.kind == Expr::Kind::Tuple) {
        for (const Expr &v : value.items) {
            if (!isVarDecl(v))
                fail(target, "tuple unpacking is only supported for symbolic variables");
        }
        for (const Expr &name : target.items)
            m_symbols.emplace(name.text);
        return;
    }
    if (target.kind != Expr::Kind::Name || target.text.find('.') != std::string::npos)
        fail(target, "expected a variable name on the left of '=', found " + exprText(target));
    if (isVarDecl(value)) {
        m_symbols.emplace(target.text);
        return;
    }
    if (value.kind == Expr::Kind::Name && value.text == m_className) {
        scope.names.erase(target.text);
        return; // `cls = Module`
    }
    TypeList type;
    if (annotation.known) {
        type = *annotation.known;
    } else if (annotation.expr) {
        type = TypeList { typeFromExpr(*annotation.expr) };
        if (!annotation.text.empty())
            m_annotationTypes.emplace(annotation.text, type);
    }
    const bool annotated = annotation.known || annotation.expr;
    Value v = lowerBinding(value, scope, target.text, annotated ? &type : nullptr);
    bind(scope, target.text, v, target);
    end.name = target.text;
    end.value = v;
    end.line = target.line;
    end.column = target.column;
}

void RelaxParser::parseIf(Scope &scope, BlockEnd &end)
{
    const Token ifTok = m_ts.take();
    const Expr cond = m_ts.parseExpr();
    m_ts.expect(":", "after the if condition");
    m_ts.expectKind(TokenKind::Newline, "end of line after the if condition");
    const TensorRef condition = materialize(lowerExpr(cond, scope), scope, cond);
    BlockEnd ends[2];
    FunctionId branches[2];
    for (int b = 0; b < 2; ++b) {
        if (b == 1) {
            const Token e = m_ts.peek();
            if (!e.isName("else"))
                fail(exprAt(e),
                     "expected 'else:' (a Relax if has both branches), found " + describe(e));
            m_ts.take();
            m_ts.expect(":", "after else");
            m_ts.expectKind(TokenKind::Newline, "end of line after else:");
        }
        Function f;
        f.kind = Function::Kind::Scope;
        f.parent = scope.function;
        branches[b] = m_graph->addFunction(std::move(f));
        Scope inner;
        inner.function = branches[b];
        inner.parent = &scope;
        parseBlock(inner, ends[b]);
        if (ends[b].name.empty())
            fail(exprAt(ifTok), "each branch of the if must end with a binding");
        m_graph->function(branches[b]).result
            = materialize(ends[b].value, inner, exprAt(ifTok)).node;
    }
    if (ends[0].name != ends[1].name) {
        Expr where;
        where.line = ends[1].line;
        where.column = ends[1].column;
        fail(where,
             "both branches of the if must end by binding the same variable ('" + ends[0].name
                 + "' vs '" + ends[1].name + "')");
    }
    Node n;
    n.kind = NodeKind::If;
    n.function = scope.function;
    n.name = ends[0].name;
    n.inputs = { condition };
    n.setScopes({ branches[0], branches[1] });
    n.setOutputTypes(
        { m_graph->tensorType(TensorRef { m_graph->function(branches[0]).result, 0 }) });
    Expr where = exprAt(ifTok);
    const Value v = addNode(std::move(n), scope, where);
    m_graph->function(branches[0]).name = ends[0].name + "/then";
    m_graph->function(branches[1]).name = ends[0].name + "/else";
    Expr bindAt;
    bindAt.line = ends[0].line;
    bindAt.column = ends[0].column;
    bind(scope, ends[0].name, v, bindAt);
    end.name = ends[0].name;
    end.value = v;
    end.line = bindAt.line;
    end.column = bindAt.column;
}

} // namespace cleave::relax
