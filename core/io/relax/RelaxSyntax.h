// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/io/relax/RelaxLexer.h"

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace cleave::relax {

struct KeywordArguments;

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
    /// A view of the source, or of text the TokenStream keeps (a decoded string literal with
    /// escapes, a path written with blanks): valid as long as the stream.
    std::string_view text;
    std::vector<Expr> items;
    /// Call: the keyword arguments, or null. Calls whose keyword text is the same share them
    /// (see TokenStream), so their positions may be those of an earlier call.
    std::shared_ptr<const KeywordArguments> keywordArgs;
    int line = 0;
    int column = 0;

    [[nodiscard]] bool isName(std::string_view n) const { return kind == Kind::Name && text == n; }
    [[nodiscard]] bool isCallOf(std::string_view callee) const
    {
        return kind == Kind::Call && !items.empty() && items[0].isName(callee);
    }
    /// The keyword argument `name` of a call, or nullptr.
    [[nodiscard]] const Expr *keyword(std::string_view name) const;
    /// How many keyword arguments a call has.
    [[nodiscard]] std::size_t keywordCount() const;
    /// The name and the value of keyword argument `i` (< keywordCount()).
    [[nodiscard]] std::string_view keywordName(std::size_t i) const;
    [[nodiscard]] const Expr &keywordValue(std::size_t i) const;
};

/// The keyword arguments of a call, `strides=[1, 1], padding=[0, 0]`, in order.
struct KeywordArguments
{
    std::vector<std::string_view> names; ///< Views of the source.
    std::vector<Expr> values;
    /// Held by the TokenStream's cache: shared by every call with the same keyword text, and
    /// alive as long as the stream (so its address identifies it).
    bool shared = false;
};

/// The text from `from` (after blanks) to the first of `terminators` (some of `,=:)]}`)
/// outside brackets and string
/// literals (`stop` is set to that offset), with blanks trimmed; empty when the text is not that
/// simple: a line break, comment, continuation or triple-quoted string, `==`, or no terminator
/// on the line. Such a text holds whole tokens, balanced brackets and no line break, so a reader
/// that has read the same text before may skip it (TokenStream::skipUnreadTo).
std::string_view simpleTextTo(std::string_view src, std::size_t from, std::string_view terminators,
                              std::size_t &stop);

/// The last few texts a reader looked up, with their values: simple texts of the source (see
/// simpleTextTo), found by match(), or whole words such as operator names, found by find(). The
/// same annotation, keyword list or operator is most often written again within a few lines;
/// comparing these few costs less than scanning to the text's end and hashing it.
template <typename V, std::size_t N = 8>
class RecentTexts
{
public:
    /// The value of a remembered text that the source holds at `from` (after blanks), followed by
    /// blanks and `terminator` (not `==`): then simpleTextTo(src, from, {terminator}) gives that
    /// text, and `stop` is set where it would set it. Null when no remembered text is there.
    const V *match(std::string_view src, std::size_t from, char terminator, std::size_t &stop) const
    {
        if (from >= src.size())
            return nullptr;
        while (from < src.size() && (src[from] == ' ' || src[from] == '\t'))
            ++from;
        const std::string_view rest = src.substr(from);
        for (std::size_t i = 0; i < m_count; ++i) {
            if (!rest.starts_with(m_entries[i].text))
                continue;
            std::size_t p = from + m_entries[i].text.size();
            while (p < src.size() && (src[p] == ' ' || src[p] == '\t'))
                ++p;
            if (p < src.size() && src[p] == terminator
                && !(terminator == '=' && p + 1 < src.size() && src[p + 1] == '=')) {
                stop = p;
                return &m_entries[i].value;
            }
        }
        return nullptr;
    }
    /// The value of a remembered text equal to `text`, or null.
    const V *find(std::string_view text) const
    {
        for (std::size_t i = 0; i < m_count; ++i) {
            if (m_entries[i].text == text)
                return &m_entries[i].value;
        }
        return nullptr;
    }
    /// Remembers `text` (non-empty, and kept alive by the caller) and its value, in place of
    /// the oldest when full.
    void remember(std::string_view text, V value)
    {
        m_entries[m_next] = Entry { text, std::move(value) };
        m_next = (m_next + 1) % N;
        m_count = m_count < N ? m_count + 1 : N;
    }

private:
    struct Entry
    {
        std::string_view text;
        V value {};
    };
    std::array<Entry, N> m_entries {};
    std::size_t m_next = 0;
    std::size_t m_count = 0;
};

/// Canonical Python text of an expression (used for opaque attribute values and symbolic dims):
/// `R.shape([n])`, `n + 1`, `"text"`.
std::string exprText(const Expr &e);

/// A RelaxLexer with a look-ahead window and the Python expression grammar TVMScript uses.
/// Nesting is bounded: deeper than `maxDepth` brackets or operators is an error, not a crash.
class TokenStream
{
public:
    /// With `shareKeywords`, calls whose keyword text is the same share one parse of it.
    explicit TokenStream(std::string_view source, bool shareKeywords = true);

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
        drop();
        return t;
    }
    /// Consumes the next token, which peek() has buffered.
    void drop()
    {
        m_head = (m_head + 1) % lookahead;
        --m_buffered;
    }
    /// Consumes punctuation `p` or fails with "expected 'p' <context>, found ...".
    Token expect(std::string_view p, std::string_view context);
    /// Consumes a token of `kind` or fails.
    Token expectKind(TokenKind kind, std::string_view what);
    bool accept(std::string_view p);
    [[noreturn]] void fail(const Token &at, const std::string &message) const;
    [[nodiscard]] std::string_view source() const { return m_lexer.source(); }
    /// The offset in source() where the text not yet lexed starts, or npos when tokens are
    /// buffered ahead (then the next token is not at that offset).
    [[nodiscard]] std::size_t unreadOffset() const
    {
        return m_buffered == 0 ? m_lexer.position() : std::string_view::npos;
    }
    /// Skips the unread text up to `offset` without making tokens: text on the current line
    /// with whole tokens, balanced brackets and no line break (see RelaxLexer::skipTo).
    void skipUnreadTo(std::size_t offset) { m_lexer.skipTo(offset); }

    /// An expression; with `allowTuple`, a bare comma list `a, b` is a Tuple.
    Expr parseExpr(bool allowTuple = false);
    /// The target of a statement `lv3: T = ...` / `lv3 = ...`: when the next tokens are a plain
    /// name and `:` or `=`, the name (read without the expression grammar); else parseExpr(true).
    Expr parseTarget();

    /// True when some call reused the keyword arguments of an earlier call (whose positions
    /// they carry): an error found in them may be placed at the earlier call.
    [[nodiscard]] bool reusedKeywords() const { return m_reusedKeywords; }

    static constexpr int maxDepth = 200;

    /// Keeps `text` as long as the stream, for an Expr's text that is not in the source.
    std::string_view keep(std::string text) { return m_kept.emplace_back(std::move(text)); }
    /// At most this many distinct keyword texts are remembered, each at most this long.
    static constexpr std::size_t maxSharedKeywordTexts = 4096;
    static constexpr std::size_t maxSharedKeywordText = 2048;

private:
    Expr parseBinary(int minPrecedence);
    Expr parseUnary();
    Expr parsePostfix();
    Expr parseAtom();
    /// The value of string literal `t`: a view of the source when it has no prefix or escape.
    std::string_view stringValue(const Token &t);
    void parseCallArguments(Expr &call);
    /// After an argument of `call`: consumes `,`, or fails unless `)` follows.
    void endArgument(const Expr &call);
    /// Appends a lone name followed by `,` or `close` (the most common argument) as a Name
    /// without going through the expression grammar; false, taking nothing, for anything else.
    bool takeLoneName(std::vector<Expr> &items, std::string_view close);
    /// A name or path that is not `True`, `False`, `None` or `not`.
    static bool isPlainName(const Token &t);
    /// A Name expression of token `t`.
    static Expr nameExpr(const Token &t);
    /// The keyword arguments of a call, from the first `name=` to before the call's `)`:
    /// parsed, or those read before from the same text (the text is then skipped unlexed).
    std::shared_ptr<const KeywordArguments> parseKeywordArguments(const Expr &call);
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

    /// Keyword arguments by their source text (see parseKeywordArguments): a module repeats a
    /// few hundred keyword texts (`strides=[1, 1], padding=...`) over its calls.
    std::unordered_map<std::string_view, std::shared_ptr<const KeywordArguments>> m_sharedKeywords;
    RecentTexts<const std::shared_ptr<const KeywordArguments> *> m_recentKeywords;
    std::deque<std::string> m_kept; ///< See keep(): a deque never moves what it holds.
    bool m_shareKeywords = true;
    bool m_reusedKeywords = false;
};

/// "'x'", "end of line", "indentation", "end of file": how a token is named in messages.
std::string describe(const Token &t);

} // namespace cleave::relax
