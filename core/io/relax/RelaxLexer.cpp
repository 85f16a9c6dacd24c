// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relax/RelaxLexer.h"

#include "core/support/Utf8.h"

#include <array>
#include <cctype>

namespace cleave::relax {

namespace {

// What each byte can be, looked up once per byte instead of compared range by range.
enum CharClass : std::uint8_t {
    IdentStart = 1, ///< a-z, A-Z, _, and any byte of a UTF-8 sequence
    Digit = 2,
    Blank = 4, ///< ' ', '\t', '\f', '\r': skipped between tokens
    Punct = 8, ///< a one-character operator or bracket
};

constexpr std::array<std::uint8_t, 256> charClasses = [] {
    std::array<std::uint8_t, 256> classes {};
    for (int c = 0; c < 256; ++c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80)
            classes[c] |= IdentStart;
        if (c >= '0' && c <= '9')
            classes[c] |= Digit;
    }
    for (const char c : std::string_view(" \t\f\r"))
        classes[static_cast<unsigned char>(c)] |= Blank;
    for (const char c : std::string_view("()[]{},:.;=+-*/%<>@~&|^!"))
        classes[static_cast<unsigned char>(c)] |= Punct;
    return classes;
}();

bool hasClass(char c, std::uint8_t mask)
{
    return (charClasses[static_cast<unsigned char>(c)] & mask) != 0;
}

bool isIdentStart(char c)
{
    return hasClass(c, IdentStart);
}

bool isIdentChar(char c)
{
    return hasClass(c, IdentStart | Digit);
}

bool isDigit(char c)
{
    return hasClass(c, Digit);
}

char closerOf(char open)
{
    return open == '(' ? ')' : open == '[' ? ']' : '}';
}

} // namespace

RelaxLexer::RelaxLexer(std::string_view source)
    : m_src(source)
{
    // A UTF-8 byte order mark is not part of the text.
    if (m_src.substr(0, 3) == "\xEF\xBB\xBF") {
        m_pos = 3;
        m_lineStart = 3;
    }
}

Token RelaxLexer::make(TokenKind kind, std::size_t begin, std::size_t end, int line,
                       int column) const
{
    Token t;
    t.kind = kind;
    t.text = m_src.substr(begin, end - begin);
    t.line = line;
    t.column = column;
    t.offset = begin;
    return t;
}

void RelaxLexer::fail(const std::string &message, int line, int column) const
{
    throw ParseError { message, line, column, "relax.syntax" };
}

// At the start of a logical line outside brackets: skips blank and comment-only lines, then
// compares the indentation with the stack. Returns true with `out` set when it produced an
// Indent or Dedent token.
bool RelaxLexer::beginLine(Token &out)
{
    for (;;) {
        int width = 0;
        std::size_t p = m_pos;
        while (p < m_src.size() && (m_src[p] == ' ' || m_src[p] == '\t' || m_src[p] == '\f')) {
            width = m_src[p] == '\t' ? (width / 8 + 1) * 8 : m_src[p] == '\f' ? 0 : width + 1;
            ++p;
        }
        if (p >= m_src.size()) {
            m_pos = p;
            return false; // end of input: endOfInput() closes the levels
        }
        const char c = m_src[p];
        if (c == '\n' || c == '\r' || c == '#') {
            while (p < m_src.size() && m_src[p] != '\n')
                ++p;
            if (p < m_src.size())
                ++p;
            m_pos = p;
            newLine(p);
            continue;
        }
        m_pos = p;
        m_atLineStart = false;
        const int col = column(p);
        if (width > m_indents.back()) {
            m_indents.push_back(width);
            out = make(TokenKind::Indent, p, p, m_line, col);
            return true;
        }
        int dedents = 0;
        while (width < m_indents.back()) {
            m_indents.pop_back();
            ++dedents;
        }
        if (width != m_indents.back())
            fail("unindent does not match any outer indentation level", m_line, col);
        if (dedents > 0) {
            m_pendingDedents = dedents - 1;
            out = make(TokenKind::Dedent, p, p, m_line, col);
            return true;
        }
        return false;
    }
}

Token RelaxLexer::endOfInput()
{
    if (!m_brackets.empty()) {
        const Bracket &b = m_brackets.back();
        fail(std::string("'") + b.open + "' is never closed", b.line, b.column);
    }
    const int col = column(m_pos);
    if (m_lineHasTokens) {
        m_lineHasTokens = false;
        return make(TokenKind::Newline, m_pos, m_pos, m_line, col);
    }
    if (m_indents.size() > 1) {
        m_indents.pop_back();
        return make(TokenKind::Dedent, m_pos, m_pos, m_line, col);
    }
    m_ended = true;
    return make(TokenKind::End, m_pos, m_pos, m_line, col);
}

Token RelaxLexer::next()
{
    if (m_pendingDedents > 0) {
        --m_pendingDedents;
        return make(TokenKind::Dedent, m_pos, m_pos, m_line, column(m_pos));
    }
    if (m_ended)
        return make(TokenKind::End, m_pos, m_pos, m_line, column(m_pos));
    for (;;) {
        if (m_atLineStart && m_brackets.empty()) {
            Token t;
            if (beginLine(t))
                return t;
            m_atLineStart = false;
        }
        while (m_pos < m_src.size() && hasClass(m_src[m_pos], Blank))
            ++m_pos;
        if (m_pos >= m_src.size())
            return endOfInput();
        const char c = m_src[m_pos];
        if (c == '#') {
            while (m_pos < m_src.size() && m_src[m_pos] != '\n')
                ++m_pos;
            continue;
        }
        if (c == '\\' && m_pos + 1 < m_src.size()
            && (m_src[m_pos + 1] == '\n' || m_src[m_pos + 1] == '\r')) {
            m_pos
                += m_src[m_pos + 1] == '\r' && m_pos + 2 < m_src.size() && m_src[m_pos + 2] == '\n'
                ? 3
                : 2;
            newLine(m_pos);
            continue;
        }
        if (c == '\n') {
            const std::size_t at = m_pos;
            const int line = m_line;
            const int col = column(at);
            ++m_pos;
            newLine(m_pos);
            if (!m_brackets.empty())
                continue;
            m_atLineStart = true;
            if (!m_lineHasTokens)
                continue;
            m_lineHasTokens = false;
            return make(TokenKind::Newline, at, at, line, col);
        }
        m_lineHasTokens = true;
        const std::size_t begin = m_pos;
        if (isIdentStart(c)) {
            std::size_t p = m_pos + 1;
            while (p < m_src.size() && isIdentChar(m_src[p]))
                ++p;
            if (p < m_src.size() && (m_src[p] == '"' || m_src[p] == '\'') && p - begin <= 2) {
                const std::string_view prefix = m_src.substr(begin, p - begin);
                static constexpr std::array<std::string_view, 8> prefixes
                    = { "r", "R", "b", "B", "u", "U", "rb", "br" };
                for (std::string_view known : prefixes) {
                    if (prefix == known)
                        return lexString(begin);
                }
            }
            // `R.nn.conv2d`: the path is one token (a name after `.` is joined unless a string
            // literal follows it, `x.b"..."`, which the parser reports).
            TokenKind kind = TokenKind::Name;
            while (p + 1 < m_src.size() && m_src[p] == '.' && isIdentStart(m_src[p + 1])) {
                std::size_t q = p + 2;
                while (q < m_src.size() && isIdentChar(m_src[q]))
                    ++q;
                if (q < m_src.size() && (m_src[q] == '"' || m_src[q] == '\''))
                    break;
                p = q;
                kind = TokenKind::Path;
            }
            m_pos = p;
            return make(kind, begin, p, m_line, column(begin));
        }
        if (isDigit(c) || (c == '.' && m_pos + 1 < m_src.size() && isDigit(m_src[m_pos + 1])))
            return lexNumber(begin);
        if (c == '"' || c == '\'')
            return lexString(begin);
        return lexPunct(begin);
    }
}

Token RelaxLexer::lexString(std::size_t begin)
{
    std::size_t p = begin;
    while (p < m_src.size() && m_src[p] != '"' && m_src[p] != '\'')
        ++p;
    const char quote = m_src[p];
    const int line = m_line;
    const int col = column(begin);
    const bool triple = p + 2 < m_src.size() && m_src[p + 1] == quote && m_src[p + 2] == quote;
    p += triple ? 3 : 1;
    for (;;) {
        if (p >= m_src.size())
            fail(triple ? "unterminated triple-quoted string" : "unterminated string", line, col);
        const char c = m_src[p];
        if (c == '\\' && p + 1 < m_src.size()) {
            if (m_src[p + 1] == '\n')
                newLine(p + 2);
            p += 2;
            continue;
        }
        if (c == '\n') {
            if (!triple)
                fail("unterminated string", line, col);
            ++p;
            newLine(p);
            continue;
        }
        if (c == quote) {
            if (!triple) {
                ++p;
                break;
            }
            if (p + 2 < m_src.size() && m_src[p + 1] == quote && m_src[p + 2] == quote) {
                p += 3;
                break;
            }
        }
        ++p;
    }
    m_pos = p;
    return make(TokenKind::String, begin, p, line, col);
}

Token RelaxLexer::lexNumber(std::size_t begin)
{
    std::size_t p = begin;
    if (m_src[p] == '0' && p + 1 < m_src.size() && (m_src[p + 1] == 'x' || m_src[p + 1] == 'X')) {
        p += 2;
        while (p < m_src.size() && std::isxdigit(static_cast<unsigned char>(m_src[p])))
            ++p;
    } else {
        while (p < m_src.size() && (isDigit(m_src[p]) || m_src[p] == '_'))
            ++p;
        if (p < m_src.size() && m_src[p] == '.') {
            ++p;
            while (p < m_src.size() && isDigit(m_src[p]))
                ++p;
        }
        if (p < m_src.size() && (m_src[p] == 'e' || m_src[p] == 'E')) {
            std::size_t q = p + 1;
            if (q < m_src.size() && (m_src[q] == '+' || m_src[q] == '-'))
                ++q;
            if (q < m_src.size() && isDigit(m_src[q])) {
                p = q;
                while (p < m_src.size() && isDigit(m_src[p]))
                    ++p;
            }
        }
    }
    if (p < m_src.size() && isIdentStart(m_src[p]))
        fail("invalid number literal", m_line, column(begin));
    m_pos = p;
    return make(TokenKind::Number, begin, p, m_line, column(begin));
}

Token RelaxLexer::lexPunct(std::size_t begin)
{
    const int line = m_line;
    const int col = column(begin);
    // Two-character operators: `->`, `**`, `//`, `==`, `!=`, `<=`, `>=`, `<<`, `>>`, `:=` and
    // the augmented assignments `+=`, `-=`, ... (looked up by character, not by string).
    if (begin + 1 < m_src.size()) {
        const char a = m_src[begin];
        const char b = m_src[begin + 1];
        const bool twoChar = (a == '-' && b == '>') || (a == '*' && b == '*')
            || (a == '/' && b == '/') || (a == '<' && b == '<') || (a == '>' && b == '>')
            || (b == '=' && std::string_view("=!<>+-*/%&|^:").find(a) != std::string_view::npos);
        if (twoChar) {
            m_pos = begin + 2;
            return make(TokenKind::Punct, begin, begin + 2, line, col);
        }
    }
    const char c = m_src[begin];
    if (!hasClass(c, Punct))
        fail(unexpectedByteMessage(c), line, col);
    if (c == '(' || c == '[' || c == '{') {
        if (m_brackets.size() >= 512)
            fail("brackets nested too deeply", line, col);
        m_brackets.push_back({ c, line, col });
    } else if (c == ')' || c == ']' || c == '}') {
        if (m_brackets.empty())
            fail(std::string("unmatched '") + c + "'", line, col);
        const Bracket open = m_brackets.back();
        if (closerOf(open.open) != c)
            fail(std::string("closing '") + c + "' does not match '" + open.open + "' opened at "
                     + std::to_string(open.line) + ":" + std::to_string(open.column),
                 line, col);
        m_brackets.pop_back();
    }
    m_pos = begin + 1;
    return make(TokenKind::Punct, begin, begin + 1, line, col);
}

std::string decodeString(const Token &tok)
{
    std::string_view t = tok.text;
    bool raw = false;
    while (!t.empty() && t.front() != '"' && t.front() != '\'') {
        raw = raw || t.front() == 'r' || t.front() == 'R';
        t.remove_prefix(1);
    }
    const char quote = t.empty() ? '"' : t.front();
    const bool triple = t.size() >= 6 && t[1] == quote && t[2] == quote;
    const std::size_t q = triple ? 3 : 1;
    if (t.size() < 2 * q)
        throw ParseError { "malformed string literal", tok.line, tok.column, "relax.syntax" };
    t = t.substr(q, t.size() - 2 * q);
    std::string out;
    out.reserve(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c != '\\' || raw || i + 1 >= t.size()) {
            out += c;
            continue;
        }
        const char e = t[++i];
        switch (e) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case '0':
            out += '\0';
            break;
        case '\n':
            break;
        case '\\':
        case '\'':
        case '"':
            out += e;
            break;
        case 'x':
        case 'u': {
            const std::size_t digits = e == 'x' ? 2 : 4;
            unsigned value = 0;
            for (std::size_t k = 1; k <= digits; ++k) {
                const char h = i + k < t.size() ? t[i + k] : 'g';
                if (!std::isxdigit(static_cast<unsigned char>(h)))
                    throw ParseError { "malformed escape in string literal", tok.line, tok.column,
                                       "relax.syntax" };
                value = value * 16
                    + static_cast<unsigned>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
            }
            i += digits;
            if (value < 0x80) {
                out += static_cast<char>(value);
            } else if (value < 0x800) {
                out += static_cast<char>(0xC0 | (value >> 6));
                out += static_cast<char>(0x80 | (value & 0x3F));
            } else {
                out += static_cast<char>(0xE0 | (value >> 12));
                out += static_cast<char>(0x80 | ((value >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (value & 0x3F));
            }
            break;
        }
        default:
            out += '\\';
            out += e;
        }
    }
    return out;
}

} // namespace cleave::relax
