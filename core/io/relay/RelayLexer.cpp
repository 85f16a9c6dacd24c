// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relay/RelayLexer.h"

#include "core/graph/JsonParse.h"
#include "core/support/Utf8.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace cleave::relay {

namespace {

// Character classes by table: one load per character instead of a locale-aware <cctype> call.
enum CharClass : std::uint8_t {
    Digit = 1,
    Alpha = 2,
    IdentExtra = 4, // `_` and `/` continue identifiers (`_`, also starts them)
    LocalExtra = 8, // `_ . / : -` occur in local names
};

constexpr std::array<std::uint8_t, 256> charClasses = [] {
    std::array<std::uint8_t, 256> t {};
    for (int c = '0'; c <= '9'; ++c)
        t[c] = Digit;
    for (int c = 'a'; c <= 'z'; ++c)
        t[c] = Alpha;
    for (int c = 'A'; c <= 'Z'; ++c)
        t[c] = Alpha;
    t['_'] = IdentExtra | LocalExtra;
    t['/'] = IdentExtra | LocalExtra;
    for (const char c : { '.', ':', '-' })
        t[static_cast<unsigned char>(c)] = LocalExtra;
    return t;
}();

bool hasClass(char c, unsigned classes)
{
    return (charClasses[static_cast<unsigned char>(c)] & classes) != 0;
}

bool isIdentStart(char c)
{
    return hasClass(c, Alpha) || c == '_';
}

bool isIdentChar(char c)
{
    return hasClass(c, Digit | Alpha | IdentExtra);
}

// Local names are printed verbatim, so `.`, `/` and `:` occur in them (TVM's Relay printer).
bool isLocalChar(char c)
{
    return hasClass(c, Digit | Alpha | LocalExtra);
}

bool isDigit(char c)
{
    return hasClass(c, Digit);
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// `inff`, `-nanf16` ...: the special float spellings TVM prints.
std::string_view specialFloatSuffix(std::string_view word)
{
    for (std::string_view base : { "inf", "nan" }) {
        if (word.substr(0, 3) != base)
            continue;
        const std::string_view rest = word.substr(3);
        if (rest == "f" || rest == "f32")
            return "float32";
        if (rest == "f16")
            return "float16";
        if (rest == "f64")
            return "float64";
    }
    return {};
}

} // namespace

RelayLexer::RelayLexer(std::string_view source, int firstLine, int firstColumn)
    : m_src(source)
    , m_line(firstLine)
    , m_lineStart(1 - static_cast<std::ptrdiff_t>(firstColumn))
{
}

void RelayLexer::advance(std::size_t n)
{
    // Counts the lines with memchr; columns are measured from the last line start.
    const std::size_t end = std::min(m_src.size(), m_pos + n);
    const char *p = m_src.data() + m_pos;
    const char *const stop = m_src.data() + end;
    while (p < stop) {
        const void *hit = std::memchr(p, '\n', static_cast<std::size_t>(stop - p));
        if (!hit)
            break;
        ++m_line;
        p = static_cast<const char *>(hit) + 1;
        m_lineStart = p - m_src.data();
    }
    m_pos = end;
}

void RelayLexer::seek(std::uint32_t offset)
{
    if (offset > m_pos)
        advance(offset - m_pos);
}

std::size_t RelayLexer::matchingClose(std::size_t offset, int depth, bool stopAtComment) const
{
    for (std::size_t i = offset; i < m_src.size(); ++i) {
        const char c = m_src[i];
        if (c == '"' || c == '\'') {
            for (++i; i < m_src.size() && m_src[i] != c; ++i) {
                if (m_src[i] == '\\')
                    ++i;
            }
            continue;
        }
        if (stopAtComment && c == '/' && i + 1 < m_src.size()
            && (m_src[i + 1] == '*' || m_src[i + 1] == '/'))
            return std::string_view::npos;
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0)
                return i;
        }
    }
    return std::string_view::npos;
}

std::string_view RelayLexer::keep(const std::string &text)
{
    m_kept.push_back(text);
    return m_kept.back();
}

void RelayLexer::setError(Token &tok, std::string_view message) const
{
    tok = Token {};
    tok.kind = TokenKind::Error;
    tok.text = message;
    tok.offset = static_cast<std::uint32_t>(m_pos);
    tok.line = m_line;
    tok.column = column();
}

void RelayLexer::noteComment(Token &tok, std::string_view body)
{
    body = trim(body);
    if (body.substr(0, 3) == "ty=") {
        std::string_view rest = body.substr(3);
        // ` span=` found by its `s` (one memchr over a type, which rarely holds an `s`; a
        // search for the leading space would stop at every space of the type).
        std::size_t sp = rest.find("span=");
        while (sp != std::string_view::npos && (sp == 0 || rest[sp - 1] != ' '))
            sp = rest.find("span=", sp + 1);
        if (sp != std::string_view::npos) {
            tok.span = trim(rest.substr(sp + 5));
            rest = rest.substr(0, sp - 1);
        }
        tok.ty = trim(rest);
    } else if (body.substr(0, 5) == "span=") {
        tok.span = trim(body.substr(5));
    } else if (body.find("metadata section has been omitted") != std::string_view::npos
               || body.find("meta data omitted") != std::string_view::npos) {
        m_metadataNotice = true;
    } else if (tok.span.empty() && body.size() < 512 && body.find('\n') == std::string_view::npos) {
        tok.span = body; // v0.8-era name comment: `/* resnet_model/Pad */`
    }
}

// Skips whitespace and comments, attaching type/span comments to `tok`. Returns false (and sets
// an Error token) on an unterminated block comment.
bool RelayLexer::skipTrivia(Token &tok)
{
    while (m_pos < m_src.size()) {
        const char c = m_src[m_pos];
        if (c == ' ' || c == '\t' || c == '\r') {
            ++m_pos;
            continue;
        }
        if (c == '\n') {
            ++m_pos;
            ++m_line;
            m_lineStart = static_cast<std::ptrdiff_t>(m_pos);
            continue;
        }
        if (c == '/' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '/') {
            const std::size_t start = m_pos + 2;
            std::size_t end = m_src.find('\n', start);
            if (end == std::string_view::npos)
                end = m_src.size();
            noteComment(tok, m_src.substr(start, end - start));
            skip(end - m_pos); // a line comment ends before its newline
            continue;
        }
        if (c == '/' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '*') {
            const int line = m_line;
            const int column = this->column();
            const std::size_t start = m_pos + 2;
            int depth = 1; // TVM's tokenizer allows nested block comments
            // Both `/*` and `*/` hold a `/`: jump from one `/` to the next. A `*` just before
            // the `/` closes unless an opener already took it (it lies before `i` then).
            std::size_t i = start;
            while (depth > 0) {
                const void *hit = std::memchr(m_src.data() + i, '/', m_src.size() - i);
                if (!hit) {
                    i = m_src.size();
                    break;
                }
                const auto j
                    = static_cast<std::size_t>(static_cast<const char *>(hit) - m_src.data());
                if (j > i && m_src[j - 1] == '*') {
                    --depth;
                    i = j + 1;
                } else if (j + 1 < m_src.size() && m_src[j + 1] == '*') {
                    ++depth;
                    i = j + 2;
                } else {
                    i = j + 1;
                }
            }
            if (depth > 0) {
                setError(tok, {});
                tok.line = line;
                tok.column = column;
                m_scratch = "unterminated block comment opened at " + std::to_string(line) + ":"
                    + std::to_string(column);
                tok.text = keep(m_scratch);
                advance(m_src.size() - m_pos);
                return false;
            }
            noteComment(tok, m_src.substr(start, i - 2 - start));
            advance(i - m_pos);
            continue;
        }
        break;
    }
    return true;
}

void RelayLexer::next(Token &tok)
{
    tok = Token {};
    if (!skipTrivia(tok))
        return;
    tok.offset = static_cast<std::uint32_t>(m_pos);
    tok.line = m_line;
    tok.column = column();
    if (m_pos >= m_src.size())
        return;
    const char c = m_src[m_pos];
    const char n1 = m_pos + 1 < m_src.size() ? m_src[m_pos + 1] : '\0';
    if (c == '%')
        lexVariable(tok);
    else if (c == '@')
        lexGlobal(tok);
    else if (isDigit(c)
             || (c == '-'
                 && (isDigit(n1) || m_src.substr(m_pos + 1, 3) == "inf"
                     || m_src.substr(m_pos + 1, 3) == "nan")))
        lexNumber(tok);
    else if (c == '"' || c == '\'')
        lexString(tok, c);
    else if (c == '#')
        lexDirective(tok);
    else if (isIdentStart(c))
        lexWord(tok);
    else
        lexPunct(tok);
}

// `%12` (a graph variable) or `%name` (a local).
void RelayLexer::lexVariable(Token &tok)
{
    std::size_t i = m_pos + 1;
    if (i < m_src.size() && isDigit(m_src[i])) {
        while (i < m_src.size() && isDigit(m_src[i]))
            ++i;
        tok.kind = TokenKind::GraphVar;
    } else {
        while (i < m_src.size() && isLocalChar(m_src[i]))
            ++i;
        // A trailing `:` (or `.`) belongs to the syntax around the name: `%x: T`.
        while (i > m_pos + 1 && (m_src[i - 1] == ':' || m_src[i - 1] == '.' || m_src[i - 1] == '-'))
            --i;
        tok.kind = TokenKind::Local;
    }
    if (i == m_pos + 1) {
        setError(tok, "expected a variable name after '%'");
        return;
    }
    tok.text = m_src.substr(m_pos + 1, i - m_pos - 1);
    skip(i - m_pos);
}

void RelayLexer::lexGlobal(Token &tok)
{
    std::size_t i = m_pos + 1;
    while (i < m_src.size() && (isIdentChar(m_src[i]) || m_src[i] == '.'))
        ++i;
    if (i == m_pos + 1) {
        setError(tok, "expected a global name after '@'");
        return;
    }
    tok.kind = TokenKind::Global;
    tok.text = m_src.substr(m_pos + 1, i - m_pos - 1);
    skip(i - m_pos);
}

// `#[metadata]` or `#[version = "0.0.5"]`.
void RelayLexer::lexDirective(Token &tok)
{
    if (m_pos + 1 >= m_src.size() || m_src[m_pos + 1] != '[') {
        setError(tok, "unexpected character '#'");
        return;
    }
    const std::size_t close = m_src.find(']', m_pos);
    if (close == std::string_view::npos) {
        setError(tok, "unterminated '#[' directive");
        return;
    }
    const std::string_view body = m_src.substr(m_pos + 2, close - m_pos - 2);
    if (trim(body) == "metadata") {
        tok.kind = TokenKind::Metadata;
    } else {
        const std::size_t q1 = body.find('"');
        const std::size_t q2 = q1 == std::string_view::npos ? q1 : body.find('"', q1 + 1);
        if (body.find("version") == std::string_view::npos || q2 == std::string_view::npos) {
            setError(tok, "unknown directive");
            return;
        }
        tok.kind = TokenKind::Version;
        tok.text = body.substr(q1 + 1, q2 - q1 - 1);
    }
    advance(close + 1 - m_pos);
}

// `v0.0.4` on a line of its own is the v0.6 version header.
bool RelayLexer::lexBareVersion(Token &tok)
{
    if (m_src[m_pos] != 'v' || m_pos + 1 >= m_src.size() || !isDigit(m_src[m_pos + 1]))
        return false;
    std::size_t j = m_pos + 1;
    while (j < m_src.size() && (isDigit(m_src[j]) || m_src[j] == '.'))
        ++j;
    if (m_src.substr(m_pos, j - m_pos).find('.') == std::string_view::npos
        || (j < m_src.size() && isIdentChar(m_src[j])))
        return false;
    tok.kind = TokenKind::Version;
    tok.text = m_src.substr(m_pos + 1, j - m_pos - 1);
    skip(j - m_pos);
    return true;
}

// meta[type.key][index] is one token; `i` is just after `meta`.
void RelayLexer::lexMetaRef(Token &tok, std::size_t i)
{
    std::size_t j = i + 1;
    while (j < m_src.size() && (isIdentChar(m_src[j]) || m_src[j] == '.'))
        ++j;
    if (j + 1 < m_src.size() && m_src[j] == ']' && m_src[j + 1] == '[') {
        std::size_t k = j + 2;
        while (k < m_src.size() && isDigit(m_src[k]))
            ++k;
        if (k > j + 2 && k < m_src.size() && m_src[k] == ']') {
            tok.kind = TokenKind::MetaRef;
            tok.text = m_src.substr(m_pos, k + 1 - m_pos);
            skip(k + 1 - m_pos);
            return;
        }
    }
    setError(tok, "malformed meta reference (expected meta[type_key][index])");
}

// Identifiers (dotted op names joined), keywords, special floats, `meta[...][...]`,
// `METADATA:` and a bare version header.
void RelayLexer::lexWord(Token &tok)
{
    if (lexBareVersion(tok))
        return;
    std::size_t i = m_pos + 1;
    for (;;) {
        while (i < m_src.size() && isIdentChar(m_src[i]))
            ++i;
        // Dotted op names (`nn.conv2d`, `qnn.op.add`) are one identifier.
        if (i + 1 < m_src.size() && m_src[i] == '.' && isIdentStart(m_src[i + 1])) {
            i += 2;
            continue;
        }
        break;
    }
    tok.text = m_src.substr(m_pos, i - m_pos);
    tok.kind = TokenKind::Identifier;
    // The special words all start with `m`, `M`, `i` or `n`: other identifiers skip the checks.
    const char first = tok.text[0];
    if (first != 'm' && first != 'M' && first != 'i' && first != 'n') {
        skip(i - m_pos);
        return;
    }
    if (tok.text == "meta" && i < m_src.size() && m_src[i] == '[')
        return lexMetaRef(tok, i);
    if (tok.text == "METADATA" && i < m_src.size() && m_src[i] == ':') {
        tok.kind = TokenKind::Metadata;
        skip(i + 1 - m_pos);
        return;
    }
    const std::string_view special = specialFloatSuffix(tok.text);
    if (!special.empty()) {
        tok.kind = TokenKind::Float;
        tok.suffix = special;
    }
    skip(i - m_pos);
}

// Punctuation, or an error naming the unexpected character.
void RelayLexer::lexPunct(Token &tok)
{
    const char c = m_src[m_pos];
    const char n1 = m_pos + 1 < m_src.size() ? m_src[m_pos + 1] : '\0';
    tok.kind = TokenKind::Punct;
    switch (c) {
    case '-':
    case '=':
    case '<':
    case '>':
    case '!':
        // `->`, `=>`, `<=`, `>=`, `==`, `!=`; a lone `-` or `!` is not punctuation.
        if ((c == '-' && n1 == '>') || (c == '=' && n1 == '>') || (c == '<' && n1 == '=')
            || (c == '>' && n1 == '=') || (c == '=' && n1 == '=') || (c == '!' && n1 == '=')) {
            tok.text = m_src.substr(m_pos, 2);
            skip(2);
            return;
        }
        if (c == '-' || c == '!')
            break;
        [[fallthrough]];
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case ',':
    case ';':
    case ':':
    case '.':
    case '?':
    case '*':
    case '+':
    case '/':
        tok.text = m_src.substr(m_pos, 1);
        skip(1);
        return;
    default:
        break;
    }
    m_scratch = unexpectedByteMessage(c);
    setError(tok, {});
    tok.text = keep(m_scratch);
}

void RelayLexer::lexNumber(Token &tok)
{
    std::size_t i = m_pos;
    if (m_src[i] == '-')
        ++i;
    const std::string_view word = m_src.substr(i, 6);
    if (!isDigit(m_src[i])) {
        // -inff / -nanf
        std::size_t j = i;
        while (j < m_src.size() && isIdentChar(m_src[j]))
            ++j;
        const std::string_view suffix = specialFloatSuffix(m_src.substr(i, j - i));
        if (suffix.empty()) {
            setError(tok, "malformed number");
            return;
        }
        tok.kind = TokenKind::Float;
        tok.suffix = suffix;
        tok.text = m_src.substr(m_pos, j - m_pos);
        skip(j - m_pos);
        return;
    }
    (void)word;
    bool isFloat = false;
    while (i < m_src.size() && isDigit(m_src[i]))
        ++i;
    if (i + 1 < m_src.size() && m_src[i] == '.' && isDigit(m_src[i + 1])) {
        isFloat = true;
        ++i;
        while (i < m_src.size() && isDigit(m_src[i]))
            ++i;
    }
    if (i < m_src.size() && (m_src[i] == 'e' || m_src[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < m_src.size() && (m_src[j] == '+' || m_src[j] == '-'))
            ++j;
        if (j < m_src.size() && isDigit(m_src[j])) {
            isFloat = true;
            i = j;
            while (i < m_src.size() && isDigit(m_src[i]))
                ++i;
        }
    }
    const std::size_t numberEnd = i;
    std::size_t s = i;
    while (s < m_src.size() && std::isalnum(static_cast<unsigned char>(m_src[s])))
        ++s;
    const std::string_view suffix = m_src.substr(numberEnd, s - numberEnd);
    if (suffix.empty()) {
        tok.kind = isFloat ? TokenKind::Float : TokenKind::Integer;
        tok.suffix = isFloat ? "float32" : "int32";
    } else if (suffix == "f" || suffix == "f32") {
        tok.kind = TokenKind::Float;
        tok.suffix = "float32";
    } else if (suffix == "f16") {
        tok.kind = TokenKind::Float;
        tok.suffix = "float16";
    } else if (suffix == "f64") {
        tok.kind = TokenKind::Float;
        tok.suffix = "float64";
    } else if (!isFloat
               && (suffix == "i8" || suffix == "i16" || suffix == "i32" || suffix == "i64")) {
        tok.kind = TokenKind::Integer;
        static constexpr std::string_view names[] = { "int8", "int16", "int32", "int64" };
        tok.suffix = suffix == "i8" ? names[0]
            : suffix == "i16"       ? names[1]
            : suffix == "i32"       ? names[2]
                                    : names[3];
    } else if (!isFloat
               && (suffix == "u8" || suffix == "u16" || suffix == "u32" || suffix == "u64")) {
        tok.kind = TokenKind::Integer;
        static constexpr std::string_view names[] = { "uint8", "uint16", "uint32", "uint64" };
        tok.suffix = suffix == "u8" ? names[0]
            : suffix == "u16"       ? names[1]
            : suffix == "u32"       ? names[2]
                                    : names[3];
    } else {
        skip(numberEnd - m_pos);
        m_scratch = "unknown number suffix '" + std::string(suffix) + "'";
        setError(tok, {});
        tok.text = keep(m_scratch);
        return;
    }
    tok.text = m_src.substr(m_pos, numberEnd - m_pos);
    skip(s - m_pos);
}

void RelayLexer::lexString(Token &tok, char quote)
{
    m_scratch.clear();
    std::size_t i = m_pos + 1;
    while (i < m_src.size() && m_src[i] != quote) {
        char c = m_src[i];
        if (c == '\n') {
            break;
        }
        if (c == '\\' && i + 1 < m_src.size()) {
            const char e = m_src[i + 1];
            i += 2;
            switch (e) {
            case 'n':
                m_scratch += '\n';
                break;
            case 't':
                m_scratch += '\t';
                break;
            case 'r':
                m_scratch += '\r';
                break;
            case 'x':
                if (i + 1 < m_src.size() && std::isxdigit(static_cast<unsigned char>(m_src[i]))
                    && std::isxdigit(static_cast<unsigned char>(m_src[i + 1]))) {
                    m_scratch += static_cast<char>(
                        std::stoi(std::string(m_src.substr(i, 2)), nullptr, 16));
                    i += 2;
                } else {
                    m_scratch += 'x';
                }
                break;
            default:
                m_scratch += e;
            }
            continue;
        }
        m_scratch += c;
        ++i;
    }
    if (i >= m_src.size() || m_src[i] != quote) {
        setError(tok, "unterminated string literal");
        return;
    }
    if (firstInvalidUtf8(m_scratch) != std::string_view::npos) {
        setError(tok, "the escapes of this string make invalid UTF-8");
        return;
    }
    tok.kind = quote == '"' ? TokenKind::String : TokenKind::QuotedName;
    const std::string_view raw = m_src.substr(m_pos + 1, i - m_pos - 1);
    if (raw.find('\\') == std::string_view::npos)
        tok.text = raw;
    else
        tok.text = keep(m_scratch);
    skip(i + 1 - m_pos);
}

std::string describe(const Token &tok)
{
    // Token texts are bounded and control bytes escaped: a string or a digit run may be
    // megabytes long or span lines.
    switch (tok.kind) {
    case TokenKind::End:
        return "end of file";
    case TokenKind::Identifier:
    case TokenKind::QuotedName:
    case TokenKind::Punct:
        return quoteBounded(tok.text);
    case TokenKind::GraphVar:
    case TokenKind::Local:
        return quoteBounded("%" + std::string(tok.text));
    case TokenKind::Global:
        return quoteBounded("@" + std::string(tok.text));
    case TokenKind::Integer:
    case TokenKind::Float:
        return "number " + quoteBounded(tok.text);
    case TokenKind::String:
        return "string " + quoteBounded(tok.text);
    case TokenKind::MetaRef:
        return quoteBounded(tok.text);
    case TokenKind::Version:
        return "version header";
    case TokenKind::Metadata:
        return "metadata section";
    case TokenKind::Error:
        return std::string(tok.text);
    }
    return "token";
}

} // namespace cleave::relay
