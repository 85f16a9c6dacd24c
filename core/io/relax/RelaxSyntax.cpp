// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relax/RelaxSyntax.h"

#include "core/graph/JsonParse.h"

#include <algorithm>
#include <new>

namespace cleave::relax {

namespace {

int precedence(const Token &t)
{
    if (t.kind == TokenKind::Name)
        return t.text == "or" ? 1 : t.text == "and" ? 2 : 0;
    if (t.kind != TokenKind::Punct || t.text.empty())
        return 0;
    switch (t.text[0]) {
    case ',': // the common cases first: what follows most operands
    case ')':
    case ']':
    case '(':
    case '[':
    case '.':
    case ':':
        return 0;
    default:
        break;
    }
    if (std::string_view("=!<>|^&+-*/%@").find(t.text[0]) == std::string_view::npos)
        return 0;
    const std::string_view p = t.text;
    if (p == "==" || p == "!=" || p == "<" || p == ">" || p == "<=" || p == ">=")
        return 4;
    if (p == "|")
        return 5;
    if (p == "^")
        return 6;
    if (p == "&")
        return 7;
    if (p == "<<" || p == ">>")
        return 8;
    if (p == "+" || p == "-")
        return 9;
    if (p == "*" || p == "/" || p == "//" || p == "%" || p == "@")
        return 10;
    return 0;
}

void appendQuoted(std::string &out, std::string_view s)
{
    out += '"';
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            out += c;
        }
    }
    out += '"';
}

void appendText(std::string &out, const Expr &e);

void appendItems(std::string &out, const std::vector<Expr> &items)
{
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i)
            out += ", ";
        appendText(out, items[i]);
    }
}

void appendText(std::string &out, const Expr &e)
{
    switch (e.kind) {
    case Expr::Kind::Name:
    case Expr::Kind::Number:
    case Expr::Kind::Constant:
        out += e.text;
        return;
    case Expr::Kind::String:
        appendQuoted(out, e.text);
        return;
    case Expr::Kind::Tuple:
        out += '(';
        appendItems(out, e.items);
        out += e.items.size() == 1 ? ",)" : ")";
        return;
    case Expr::Kind::List:
        out += '[';
        appendItems(out, e.items);
        out += ']';
        return;
    case Expr::Kind::Dict:
        out += '{';
        for (std::size_t i = 0; i + 1 < e.items.size(); i += 2) {
            if (i)
                out += ", ";
            appendText(out, e.items[i]);
            out += ": ";
            appendText(out, e.items[i + 1]);
        }
        out += '}';
        return;
    case Expr::Kind::Call: {
        appendText(out, e.items[0]);
        out += '(';
        std::vector<Expr> args(e.items.begin() + 1, e.items.end());
        appendItems(out, args);
        for (std::size_t i = 0; i < e.keywordCount(); ++i) {
            if (i || !args.empty())
                out += ", ";
            out += e.keywordName(i);
            out += '=';
            appendText(out, e.keywordValue(i));
        }
        out += ')';
        return;
    }
    case Expr::Kind::Subscript:
        appendText(out, e.items[0]);
        out += '[';
        appendText(out, e.items[1]);
        out += ']';
        return;
    case Expr::Kind::Unary:
        out += e.text;
        if (e.text == "not")
            out += ' ';
        appendText(out, e.items[0]);
        return;
    case Expr::Kind::Binary:
        appendText(out, e.items[0]);
        out += ' ';
        out += e.text;
        out += ' ';
        appendText(out, e.items[1]);
        return;
    }
}

} // namespace

const Expr *Expr::keyword(std::string_view name) const
{
    if (!keywordArgs)
        return nullptr;
    for (std::size_t i = 0; i < keywordArgs->names.size(); ++i) {
        if (keywordArgs->names[i] == name)
            return &keywordArgs->values[i];
    }
    return nullptr;
}

std::size_t Expr::keywordCount() const
{
    return keywordArgs ? keywordArgs->names.size() : 0;
}

std::string_view Expr::keywordName(std::size_t i) const
{
    return keywordArgs->names[i];
}

const Expr &Expr::keywordValue(std::size_t i) const
{
    return keywordArgs->values[i];
}

std::string_view simpleTextTo(std::string_view src, std::size_t from, std::string_view terminators,
                              std::size_t &stop)
{
    if (from == std::string_view::npos)
        return {};
    std::size_t begin = from;
    while (begin < src.size() && (src[begin] == ' ' || src[begin] == '\t'))
        ++begin;
    // The bytes the scan looks at; the others (names, numbers, blanks, dots) pass at once.
    static constexpr std::array<bool, 256> plain = [] {
        std::array<bool, 256> table {};
        table.fill(true);
        for (const char c : std::string_view("\n\r#\\\"'()[]{},=:"))
            table[static_cast<unsigned char>(c)] = false;
        return table;
    }();
    int depth = 0;
    for (std::size_t i = begin; i < src.size(); ++i) {
        const char c = src[i];
        if (plain[static_cast<unsigned char>(c)])
            continue;
        switch (c) {
        case '\n':
        case '\r':
        case '#':
        case '\\':
            return {};
        case '"':
        case '\'': {
            if (i + 2 < src.size() && src[i + 1] == c && src[i + 2] == c)
                return {};
            for (++i; i < src.size() && src[i] != c; ++i) {
                if (src[i] == '\n' || src[i] == '\r')
                    return {};
                if (src[i] == '\\') {
                    if (i + 1 < src.size() && (src[i + 1] == '\n' || src[i + 1] == '\r'))
                        return {};
                    ++i;
                }
            }
            if (i >= src.size() || src[i] == '\n')
                return {};
            break;
        }
        case '(':
        case '[':
        case '{':
            ++depth;
            break;
        case ')':
        case ']':
        case '}':
            if (depth == 0 && std::ranges::find(terminators, c) == terminators.end())
                return {};
            if (depth > 0) {
                --depth;
                break;
            }
            [[fallthrough]];
        default:
            if (depth > 0 || std::ranges::find(terminators, c) == terminators.end())
                break; // (a terminator is one of `,=:` or a closer)
            if (c == '=' && i + 1 < src.size() && src[i + 1] == '=')
                return {};
            stop = i;
            while (i > begin && (src[i - 1] == ' ' || src[i - 1] == '\t'))
                --i;
            return src.substr(begin, i - begin);
        }
    }
    return {};
}

std::string exprText(const Expr &e)
{
    std::string out;
    appendText(out, e);
    return out;
}

std::string describe(const Token &t)
{
    switch (t.kind) {
    case TokenKind::Newline:
        return "end of line";
    case TokenKind::Indent:
        return "an indented line";
    case TokenKind::Dedent:
        return "the end of the indented block";
    case TokenKind::End:
        return "end of file";
    default:
        return quoteBounded(t.text, 40); // a string token may span lines
    }
}

TokenStream::TokenStream(std::string_view source, bool shareKeywords)
    : m_lexer(source)
    , m_shareKeywords(shareKeywords)
{
}

void TokenStream::fill(std::size_t k)
{
    while (m_buffered <= k) {
        // The lexer's result is made in its slot (a Token is trivially copyable, so the slot's
        // old token needs no destruction): assigning it went through a temporary.
        ::new (static_cast<void *>(&m_ring[(m_head + m_buffered) % lookahead]))
            Token(m_lexer.next());
        ++m_buffered;
    }
}

void TokenStream::fail(const Token &at, const std::string &message) const
{
    throw ParseError { message, at.line, at.column, "relax.syntax" };
}

Token TokenStream::expect(std::string_view p, std::string_view context)
{
    const Token &t = peek();
    if (!t.isPunct(p))
        fail(t,
             "expected '" + std::string(p) + "' " + std::string(context) + ", found "
                 + describe(t));
    return take();
}

Token TokenStream::expectKind(TokenKind kind, std::string_view what)
{
    const Token &t = peek();
    if (!t.is(kind))
        fail(t, "expected " + std::string(what) + ", found " + describe(t));
    return take();
}

bool TokenStream::accept(std::string_view p)
{
    if (!peek().isPunct(p))
        return false;
    take();
    return true;
}

Expr TokenStream::parseExpr(bool allowTuple)
{
    if (++m_depth > maxDepth)
        fail(peek(),
             "expression nested too deeply (more than " + std::to_string(maxDepth) + " levels)");
    Expr first = parseBinary(1);
    if (allowTuple && peek().isPunct(",")) {
        Expr tuple;
        tuple.kind = Expr::Kind::Tuple;
        tuple.line = first.line;
        tuple.column = first.column;
        tuple.items.push_back(std::move(first));
        while (accept(",")) {
            const Token &n = peek();
            if (n.is(TokenKind::Newline) || n.isPunct("=") || n.isPunct(")"))
                break;
            tuple.items.push_back(parseBinary(1));
        }
        --m_depth;
        return tuple;
    }
    --m_depth;
    return first;
}

Expr TokenStream::parseBinary(int minPrecedence)
{
    Expr lhs = parseUnary();
    // A long chain `a + b + c + ...` nests to the left: bound it like any other nesting.
    for (int chain = 0;; ++chain) {
        const int prec = precedence(peek());
        if (prec == 0 || prec < minPrecedence)
            return lhs;
        const Token opTok = take();
        if (++m_depth > maxDepth || chain >= maxDepth)
            fail(opTok, "expression nested too deeply");
        Expr rhs = parseBinary(prec + 1);
        --m_depth;
        Expr bin;
        bin.kind = Expr::Kind::Binary;
        bin.text = opTok.text;
        bin.line = lhs.line;
        bin.column = lhs.column;
        bin.items.push_back(std::move(lhs));
        bin.items.push_back(std::move(rhs));
        lhs = std::move(bin);
    }
}

Expr TokenStream::parseUnary()
{
    const Token &t = peek();
    if (t.isPunct("-") || t.isPunct("+") || t.isPunct("~") || t.isName("not")) {
        const Token op = take();
        if (++m_depth > maxDepth)
            fail(op, "expression nested too deeply");
        Expr operand = parseUnary();
        --m_depth;
        // A negative number literal stays a number.
        if (op.text == "-" && operand.kind == Expr::Kind::Number) {
            // The literal's own text when the sign is written against it, as printed.
            operand.text = op.text.data() + 1 == operand.text.data()
                ? std::string_view(op.text.data(), operand.text.size() + 1)
                : keep("-" + std::string(operand.text));
            operand.line = op.line;
            operand.column = op.column;
            return operand;
        }
        Expr u;
        u.kind = Expr::Kind::Unary;
        u.text = op.text;
        u.line = op.line;
        u.column = op.column;
        u.items.push_back(std::move(operand));
        return u;
    }
    return parsePostfix();
}

Expr TokenStream::parsePostfix()
{
    Expr e = parseAtom();
    int postfixes = 0;
    for (;;) {
        const Token &t = peek();
        if (t.isPunct(".")) {
            take();
            const Token name = peek().is(TokenKind::Path)
                ? take()
                : expectKind(TokenKind::Name, "a name after '.'");
            if (e.kind == Expr::Kind::Name) {
                e.text = keep(std::string(e.text) + "." + std::string(name.text));
                continue;
            }
            fail(name, "'.' after an expression that is not a name");
        }
        if (!t.isPunct("(") && !t.isPunct("["))
            return e;
        if (++postfixes > maxDepth)
            fail(t, "too many calls or subscripts in a row");
        const Token open = take();
        Expr next;
        next.line = e.line;
        next.column = e.column;
        if (open.text == "(") {
            next.kind = Expr::Kind::Call;
            next.items.reserve(4); // the callee and (most often) up to three arguments
            next.items.push_back(std::move(e));
            parseCallArguments(next);
        } else {
            next.kind = Expr::Kind::Subscript;
            next.items.push_back(std::move(e));
            next.items.push_back(parseExpr(true));
            if (!peek().isPunct("]"))
                expect("]",
                       "to close the subscript opened at " + std::to_string(open.line) + ":"
                           + std::to_string(open.column));
            take();
        }
        e = std::move(next);
    }
}

void TokenStream::parseCallArguments(Expr &call)
{
    while (!peek().isPunct(")")) {
        if (peek().is(TokenKind::Name) && peek(1).isPunct("=")) {
            call.keywordArgs = parseKeywordArguments(call);
            break;
        }
        if (peek().isPunct("*") || peek().isPunct("**"))
            take();
        if (!takeLoneName(call.items, ")"))
            call.items.push_back(parseExpr());
        endArgument(call);
    }
    take();
}

void TokenStream::endArgument(const Expr &call)
{
    if (!accept(",") && !peek().isPunct(")"))
        fail(peek(),
             "expected ',' or ')' in the call of " + exprText(call.items[0]) + ", found "
                 + describe(peek()));
}

std::shared_ptr<const KeywordArguments> TokenStream::parseKeywordArguments(const Expr &call)
{
    const Token &first = peek();
    // The keyword text, when nothing past the first `name =` is lexed yet.
    std::size_t stop = 0;
    std::string_view text;
    const std::shared_ptr<const KeywordArguments> *known = nullptr;
    if (m_shareKeywords && m_buffered == 2 && m_lexer.position() == peek(1).offset + 1) {
        if (const auto *recent = m_recentKeywords.match(source(), first.offset, ')', stop)) {
            known = *recent;
        } else {
            text = simpleTextTo(source(), first.offset, ")", stop);
            if (text.size() > maxSharedKeywordText)
                text = {};
            const auto it = text.empty() ? m_sharedKeywords.end() : m_sharedKeywords.find(text);
            if (it != m_sharedKeywords.end()) {
                known = &it->second;
                m_recentKeywords.remember(it->first, known);
            }
        }
    }
    if (known) {
        m_head = (m_head + m_buffered) % lookahead;
        m_buffered = 0;
        m_lexer.skipTo(stop);
        m_reusedKeywords = true;
        return *known;
    }
    auto args = std::make_shared<KeywordArguments>();
    args->names.reserve(8); // grown once for most calls (conv2d has 8 keywords)
    args->values.reserve(8);
    while (!peek().isPunct(")")) {
        if (!peek().is(TokenKind::Name) || !peek(1).isPunct("=")) {
            if (peek().isPunct("*") || peek().isPunct("**"))
                take();
            fail(peek(),
                 "positional argument after a keyword argument in the call of "
                     + exprText(call.items[0]));
        }
        args->names.push_back(take().text);
        take();
        args->values.push_back(parseExpr());
        endArgument(call);
    }
    if (!text.empty() && peek().offset == stop && m_sharedKeywords.size() < maxSharedKeywordTexts) {
        args->shared = true;
        m_sharedKeywords.emplace(text, args);
    }
    return args;
}

Expr TokenStream::parseTarget()
{
    const Token &t = peek();
    const Token &next = peek(1);
    if (isPlainName(t) && (next.isPunct(":") || next.isPunct("="))) {
        Expr e = nameExpr(t);
        drop();
        return e;
    }
    return parseExpr(true);
}

bool TokenStream::isPlainName(const Token &t)
{
    return t.is(TokenKind::Path)
        || (t.is(TokenKind::Name) && t.text != "True" && t.text != "False" && t.text != "None"
            && t.text != "not");
}

Expr TokenStream::nameExpr(const Token &t)
{
    Expr e;
    e.text = t.text;
    e.line = t.line;
    e.column = t.column;
    return e;
}

bool TokenStream::takeLoneName(std::vector<Expr> &items, std::string_view close)
{
    const Token &t = peek();
    if (!isPlainName(t))
        return false;
    const Token &after = peek(1);
    if (!after.isPunct(",") && !after.isPunct(close))
        return false;
    items.push_back(nameExpr(t));
    drop();
    return true;
}

Expr TokenStream::parseSequence(Expr::Kind kind, std::string_view close, const Token &open)
{
    Expr e;
    e.kind = kind;
    e.line = open.line;
    e.column = open.column;
    bool sawComma = false;
    if (!peek().isPunct(close))
        e.items.reserve(4);
    while (!peek().isPunct(close)) {
        if (kind == Expr::Kind::Dict || !takeLoneName(e.items, close))
            e.items.push_back(parseExpr());
        if (kind == Expr::Kind::Dict) {
            expect(":", "between a key and its value");
            e.items.push_back(parseExpr());
        }
        if (accept(",")) {
            sawComma = true;
            continue;
        }
        if (!peek().isPunct(close))
            fail(peek(), "expected ',' or '" + std::string(close) + "', found " + describe(peek()));
    }
    take();
    if (kind == Expr::Kind::Tuple && e.items.size() == 1 && !sawComma) {
        Expr inner = std::move(e.items.front());
        return inner; // parentheses only
    }
    return e;
}

std::string_view TokenStream::stringValue(const Token &t)
{
    // "text" with no prefix and no escape is its own value, in the source.
    const std::string_view q = t.text;
    if (q.size() >= 2 && (q.front() == '"' || q.front() == '\'') && q.back() == q.front()
        && !(q.size() >= 6 && q[1] == q[0] && q[2] == q[0])
        && q.find('\\') == std::string_view::npos)
        return q.substr(1, q.size() - 2);
    return keep(decodeString(t));
}

Expr TokenStream::parseAtom()
{
    const Token t = take();
    Expr e;
    e.line = t.line;
    e.column = t.column;
    switch (t.kind) {
    case TokenKind::Path:
    case TokenKind::Name:
        if (t.text == "True" || t.text == "False" || t.text == "None")
            e.kind = Expr::Kind::Constant;
        else
            e.kind = Expr::Kind::Name;
        e.text = t.text;
        return e;
    case TokenKind::Number:
        e.kind = Expr::Kind::Number;
        e.text = t.text;
        return e;
    case TokenKind::String: {
        e.kind = Expr::Kind::String;
        e.text = stringValue(t);
        // Adjacent literals concatenate.
        if (peek().is(TokenKind::String)) {
            std::string value(e.text);
            while (peek().is(TokenKind::String))
                value += decodeString(take());
            e.text = keep(std::move(value));
        }
        return e;
    }
    case TokenKind::Punct:
        if (t.text == "(")
            return parseSequence(Expr::Kind::Tuple, ")", t);
        if (t.text == "[")
            return parseSequence(Expr::Kind::List, "]", t);
        if (t.text == "{")
            return parseSequence(Expr::Kind::Dict, "}", t);
        if (t.text == "." && peek().isPunct(".") && peek(1).isPunct(".")) {
            take();
            take();
            e.kind = Expr::Kind::Constant;
            e.text = "...";
            return e;
        }
        break;
    default:
        break;
    }
    fail(t, "expected an expression, found " + describe(t));
}

} // namespace cleave::relax
