// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cleave::relax {

/// A parse error: thrown inside the Relax reader only and turned into a Diagnostic with
/// file:line:column at the importer boundary.
struct ParseError
{
    std::string message;
    int line = 0;
    int column = 0;
    std::string code = "relax.syntax";
};

enum class TokenKind : std::uint8_t {
    Name, ///< An identifier or keyword (`def`, `R`, `lv12`).
    Path, ///< Names joined by dots with no blank between, `R.nn.conv2d` (one token for the path).
    Number, ///< `64`, `-` is a separate token; `9.99e-06`, `0x1f`.
    String, ///< A string literal, quotes and prefix included (decode with decodeString).
    Punct, ///< `(`, `->`, `=`, `:` ...
    Newline, ///< End of a logical line.
    Indent, ///< The next logical line is indented deeper.
    Dedent, ///< One indentation level closed.
    End, ///< End of input (after the closing Newline and Dedents).
};

/// One token. `text` points into the source.
struct Token
{
    TokenKind kind = TokenKind::End;
    std::string_view text;
    int line = 0;
    int column = 0;
    std::size_t offset = 0; ///< Byte offset of the token in the source.

    [[nodiscard]] bool is(TokenKind k) const { return kind == k; }
    [[nodiscard]] bool isPunct(std::string_view p) const
    {
        if (kind != TokenKind::Punct)
            return false;
        if (p.size() == 1) // most punctuation: compared here, not by memcmp
            return text.size() == 1 && text[0] == p[0];
        return text == p;
    }
    [[nodiscard]] bool isName(std::string_view n) const
    {
        return kind == TokenKind::Name && text == n;
    }
};

/// Tokenizes Python source as TVMScript is written: logical lines (newlines inside brackets
/// and after `\` join lines), INDENT / DEDENT tokens from the indentation of each logical line,
/// `#` comments and blank lines skipped, single-, double- and triple-quoted strings. Pulls one
/// token at a time. Errors (an unterminated string, a bracket closed by the wrong bracket or
/// never closed, an unindent to no outer level) throw ParseError.
class RelaxLexer
{
public:
    explicit RelaxLexer(std::string_view source);

    /// The next token.
    Token next();
    [[nodiscard]] std::string_view source() const { return m_src; }
    /// The offset where lexing resumes (the next token starts there or after blanks).
    [[nodiscard]] std::size_t position() const { return m_pos; }
    /// Resumes lexing at `offset`, past text on the current line that holds whole tokens with
    /// balanced brackets and no line break (text lexed before, byte for byte, elsewhere).
    void skipTo(std::size_t offset)
    {
        m_pos = offset;
        m_lineHasTokens = true;
    }

private:
    Token make(TokenKind kind, std::size_t begin, std::size_t end, int line, int column) const;
    [[noreturn]] void fail(const std::string &message, int line, int column) const;
    bool beginLine(Token &out);
    Token endOfInput();
    Token lexString(std::size_t begin);
    Token lexNumber(std::size_t begin);
    Token lexPunct(std::size_t begin);
    [[nodiscard]] int column(std::size_t offset) const
    {
        return static_cast<int>(offset - m_lineStart) + 1;
    }
    void newLine(std::size_t nextLineStart)
    {
        ++m_line;
        m_lineStart = nextLineStart;
    }

    struct Bracket
    {
        char open;
        int line;
        int column;
    };

    std::string_view m_src;
    std::size_t m_pos = 0;
    std::size_t m_lineStart = 0;
    int m_line = 1;
    bool m_atLineStart = true;
    bool m_lineHasTokens = false;
    int m_pendingDedents = 0;
    bool m_ended = false;
    std::vector<int> m_indents { 0 };
    std::vector<Bracket> m_brackets;
};

/// The value of a Python string literal token (prefix and quotes removed, escapes decoded).
/// Throws ParseError at `tok` for a malformed escape.
std::string decodeString(const Token &tok);

} // namespace cleave::relax
