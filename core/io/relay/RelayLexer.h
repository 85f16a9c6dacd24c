// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <string_view>

namespace cleave::relay {

/// Kinds of Relay tokens. Comments are not tokens: the type and span comments that precede a
/// token are attached to it (`Token::ty`, `Token::span`), because TVM prints them right after
/// the expression they describe, i.e. just before the next token.
enum class TokenKind : std::uint8_t {
    End,
    Identifier, ///< `nn.conv2d`, `Tensor`, `float32`, `def`, `True`, `_` (dotted names joined).
    GraphVar, ///< `%12` (text without `%`).
    Local, ///< `%conv1.weight`, `%input_tensor:0` (text without `%`).
    Global, ///< `@main` (text without `@`).
    Integer, ///< `64`, `-1`, `1i64` (`suffix` holds the dtype).
    Float, ///< `1f`, `1e-05f`, `0.5f16`, `inff` (`suffix` holds the dtype).
    String, ///< `"NCHW"` (text is the decoded value).
    QuotedName, ///< `'llvm'` (text without quotes).
    MetaRef, ///< `meta[relay.Constant][3]` (text is the whole reference).
    Version, ///< `#[version = "0.0.5"]` or a bare `v0.0.4` line (text is the version).
    Metadata, ///< `#[metadata]` or `METADATA:`: everything after it is JSON.
    Punct, ///< One of `( ) [ ] { } , ; : = . ? -> =>` (text is the punctuation).
    Error, ///< A character or construct that cannot start a token (text says what).
};

/// One token with its position. `text` views the source buffer (or the lexer's scratch for
/// decoded strings, valid until the next string token).
struct Token
{
    TokenKind kind = TokenKind::End;
    std::string_view text;
    std::string_view suffix; ///< Number dtype: "int32", "int64", "float32", "float16", ...
    std::string_view ty; ///< Type text of a preceding `/* ty=... */` comment, if any.
    std::string_view span; ///< A preceding span comment (`span=...` or a v0.8 name comment).
    std::uint32_t offset = 0; ///< Byte offset of the token's first character.
    int line = 0;
    int column = 0;

    [[nodiscard]] bool is(TokenKind k) const { return kind == k; }
    [[nodiscard]] bool isPunct(char c) const
    {
        return kind == TokenKind::Punct && text.size() == 1 && text[0] == c;
    }
    [[nodiscard]] bool isPunct(std::string_view p) const
    {
        // Most punctuation is one byte: compared as one, not through memcmp.
        return kind == TokenKind::Punct && text.size() == p.size()
            && (p.size() == 1 ? text[0] == p[0] : text == p);
    }
    [[nodiscard]] bool isIdent(std::string_view word) const
    {
        return kind == TokenKind::Identifier && text == word;
    }
};

/// An on-demand tokenizer over a whole Relay file. It never throws; malformed input gives an
/// Error token whose text is a message. `seek()` lets the parser skip opaque repr blobs.
class RelayLexer
{
public:
    /// `lineOffset`/`columnOffset` shift reported positions (used for text inside comments).
    explicit RelayLexer(std::string_view source, int firstLine = 1, int firstColumn = 1);

    /// Lexes the next token into `tok` (every field is set).
    void next(Token &tok);
    /// Byte offset of the next unread character.
    [[nodiscard]] std::uint32_t position() const { return static_cast<std::uint32_t>(m_pos); }
    /// Continues lexing at `offset` (which must be at or after a token boundary already seen).
    void seek(std::uint32_t offset);
    /// The offset of the bracket that closes a group, skipping quoted strings; npos when the
    /// text ends first. `depth` is how many groups are open at `offset`: 0 when `offset` holds
    /// the group's `(`, `[` or `{`, 1 to scan from inside the group. With `stopAtComment`, a
    /// comment (whose text may hold anything) also gives npos.
    [[nodiscard]] std::size_t matchingClose(std::size_t offset, int depth = 0,
                                            bool stopAtComment = false) const;
    [[nodiscard]] std::string_view source() const { return m_src; }
    /// True once the metadata-omitted notice or a metadata header was seen.
    [[nodiscard]] bool sawMetadataNotice() const { return m_metadataNotice; }

private:
    /// Moves past `n` bytes, counting the lines among them.
    void advance(std::size_t n);
    /// Moves past the `n` bytes of a token that holds no newline.
    void skip(std::size_t n) { m_pos += n; }
    [[nodiscard]] int column() const
    {
        return static_cast<int>(static_cast<std::ptrdiff_t>(m_pos) - m_lineStart) + 1;
    }
    bool skipTrivia(Token &tok);
    /// Makes `tok` an Error token at the current position.
    void setError(Token &tok, std::string_view message) const;
    // One per kind of token; each starts at m_pos with `tok` positioned there.
    void lexVariable(Token &tok);
    void lexGlobal(Token &tok);
    void lexNumber(Token &tok);
    void lexString(Token &tok, char quote);
    void lexDirective(Token &tok);
    void lexWord(Token &tok);
    bool lexBareVersion(Token &tok);
    void lexMetaRef(Token &tok, std::size_t i);
    void lexPunct(Token &tok);
    void noteComment(Token &tok, std::string_view body);

    std::string_view m_src;
    std::size_t m_pos = 0;
    int m_line = 1;
    std::ptrdiff_t m_lineStart = 0; // offset of the current line's first byte (column 1)
    bool m_metadataNotice = false;
    std::string_view keep(const std::string &text);

    std::string m_scratch; // string being decoded or message being built
    std::list<std::string> m_kept; // stable storage for decoded strings and messages
};

/// Human description of a token for messages: `')'`, `identifier 'nn.conv2d'`, `end of file`.
std::string describe(const Token &tok);

} // namespace cleave::relay
