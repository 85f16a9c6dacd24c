// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/io/relax/RelaxLexer.h"

#include <array>
#include <string>
#include <vector>

namespace cleave::relax {

/// A Python expression as TVMScript writes it, before it is given a Relax meaning.
struct Expr
{
    enum class Kind : std::uint8_t {
        Name, ///< `lv12`, or a dotted path `R.nn.conv2d`, `cls.f` (text holds the whole path).
        Number, ///< text: the spelling.
        String, ///< text: the decoded value.
        Constant, ///< `True`, `False`, `None`, `...` (text).
        Tuple, ///< `(a, b)`, `a, b`: items.
        List, ///< `[a, b]`: items.
        Dict, ///< `{k: v}`: items alternate key, value.
        Call, ///< items[0] the callee, then positional arguments; keywords / kwargs.
        Subscript, ///< items = {base, index}.
        Unary, ///< text the operator, items = {operand}.
        Binary, ///< text the operator, items = {lhs, rhs}.
    };

    Kind kind = Kind::Name;
    std::string text;
    std::vector<Expr> items;
    std::vector<std::string> keywords; ///< Call: keyword argument names, parallel to kwargs.
    std::vector<Expr> kwargs;
    int line = 0;
    int column = 0;

    [[nodiscard]] bool isName(std::string_view n) const { return kind == Kind::Name && text == n; }
    [[nodiscard]] bool isCallOf(std::string_view callee) const
    {
        return kind == Kind::Call && !items.empty() && items[0].isName(callee);
    }
    /// The keyword argument `name` of a call, or nullptr.
    [[nodiscard]] const Expr *keyword(std::string_view name) const;
};

/// Canonical Python text of an expression (used for opaque attribute values and symbolic dims):
/// `R.shape([n])`, `n + 1`, `"text"`.
std::string exprText(const Expr &e);

/// A RelaxLexer with a look-ahead window and the Python expression grammar TVMScript uses.
/// Nesting is bounded: deeper than `maxDepth` brackets or operators is an error, not a crash.
class TokenStream
{
public:
    explicit TokenStream(std::string_view source);

    /// How far peek() can look: the parser looks at most 4 tokens ahead.
    static constexpr std::size_t lookahead = 8;

    /// The token `k` places ahead (0 = next; `k` < lookahead). The reference stays valid until
    /// `lookahead` more tokens are taken.
    const Token &peek(std::size_t k = 0)
    {
        if (k >= m_buffered)
            fill(k);
        return m_ring[(m_head + k) % lookahead];
    }
    /// Consumes the next token and returns it.
    Token take()
    {
        const Token t = peek();
        m_head = (m_head + 1) % lookahead;
        --m_buffered;
        return t;
    }
    /// Consumes punctuation `p` or fails with "expected 'p' <context>, found ...".
    Token expect(std::string_view p, std::string_view context);
    /// Consumes a token of `kind` or fails.
    Token expectKind(TokenKind kind, std::string_view what);
    bool accept(std::string_view p);
    [[noreturn]] void fail(const Token &at, const std::string &message) const;
    [[nodiscard]] std::string_view source() const { return m_lexer.source(); }

    /// An expression; with `allowTuple`, a bare comma list `a, b` is a Tuple.
    Expr parseExpr(bool allowTuple = false);

    static constexpr int maxDepth = 200;

private:
    Expr parseBinary(int minPrecedence);
    Expr parseUnary();
    Expr parsePostfix();
    Expr parseAtom();
    void parseCallArguments(Expr &call);
    Expr parseSequence(Expr::Kind kind, std::string_view close, const Token &open);
    /// Lexes tokens until `k + 1` are buffered.
    void fill(std::size_t k);

    RelaxLexer m_lexer;
    // The look-ahead window: a ring of the next m_buffered tokens starting at m_head (the token
    // stream is read once, front to back, so a fixed ring replaces a growing vector).
    std::array<Token, lookahead> m_ring {};
    std::size_t m_head = 0;
    std::size_t m_buffered = 0;
    int m_depth = 0;
};

/// "'x'", "end of line", "indentation", "end of file": how a token is named in messages.
std::string describe(const Token &t);

} // namespace cleave::relax
