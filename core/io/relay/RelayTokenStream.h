// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/AttrValue.h"
#include "core/graph/Type.h"
#include "core/io/relay/RelayLexer.h"

#include <array>
#include <string>

namespace cleave::relay {

/// A parse error: thrown inside the Relay parser only and turned into a Diagnostic at the
/// importer boundary.
struct ParseError
{
    std::string message;
    int line = 0;
    int column = 0;
    std::string code = "relay.syntax";
};

/// A RelayLexer with a small look-ahead window and the grammar shared by the module parser and
/// the parser of `/* ty=... */` comments: types and attribute values.
class RelayTokenStream
{
public:
    explicit RelayTokenStream(std::string_view text, int firstLine = 1, int firstColumn = 1);

    /// The token `k` places ahead (0 = next). Error tokens are reported here.
    const Token &peek(int k = 0)
    {
        if (m_count <= k)
            fill(k);
        const Token &t = m_ahead[(m_head + static_cast<std::size_t>(k)) % m_ahead.size()];
        if (t.kind == TokenKind::Error) [[unlikely]]
            failAtError(t);
        return t;
    }
    /// Consumes and returns the next token.
    Token take();
    /// Consumes punctuation `p` or fails with "expected 'p' <context>".
    Token expect(std::string_view p, const std::string &context);
    /// Drops the look-ahead and continues at `offset`, which lies at or after the end of the
    /// tokens seen (the parser skips text it has read before).
    void skipTo(std::uint32_t offset);
    /// Consumes the next token without copying it.
    void drop();
    /// Consumes punctuation `close` or fails with "expected 'close' to close the `what` opened
    /// at <open's position>" (the message is built only then).
    void expectClose(char close, const Token &open, const char *what);
    /// Consumes `p` if it is next.
    bool accept(std::string_view p);
    /// Skips the balanced bracket group whose opening token is `open` (already consumed or
    /// next) and returns its source text, starting at `from`.
    std::string_view skipBalanced(const Token &open, std::uint32_t from);

    [[noreturn]] void fail(const Token &at, const std::string &message) const;

    /// type := Tensor[(dims), dtype] | dtype | (types) | fn (types) -> type | Name[types] | _
    Type parseType();
    /// An attribute value after `key=`.
    AttrValue parseAttrValue();
    /// Integer/float/bool scalar of a number token.
    static AttrValue numberValue(const Token &tok);

    [[nodiscard]] RelayLexer &lexer() { return m_lexer; }
    [[nodiscard]] std::string_view source() const { return m_lexer.source(); }

    /// Deepest nesting of types and attribute values (tuple types, lists) the parser follows;
    /// the bound keeps the recursion (and every recursive walk of the results) off the end of
    /// the stack, also in sanitizer builds.
    static constexpr int maxNesting = 100;

private:
    /// Lexes tokens into the window until it holds `k + 1` of them.
    void fill(int k);
    [[noreturn]] void failAtError(const Token &t) const;
    Dim parseDim();
    /// Enters one level of nesting at `at`; fails past maxNesting. Leave with --m_nesting.
    void enterNested(const Token &at, const char *what);

    /// Leaves a level entered by enterNested when the rule returns or throws.
    struct NestingScope
    {
        int &depth;
        ~NestingScope() { --depth; }
    };

    RelayLexer m_lexer;
    std::array<Token, 4> m_ahead {}; // a ring: the next token is m_ahead[m_head]
    std::size_t m_head = 0;
    int m_count = 0;
    int m_nesting = 0;
};

/// True for dtype names (`float32`, `int8`, `bool`, `uint16`, `float32x4`).
bool isDtypeName(std::string_view word);

} // namespace cleave::relay
