// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/JsonParse.h"

#include "core/support/JsonLocator.h"

#include <charconv>
#include <unordered_map>

namespace cleave {

namespace {

using Json = nlohmann::json;

/// nlohmann's DOM builder with a nesting bound and a record of where parsing failed, instead of
/// an exception (out_of_range 406 for `1e999` is not a parse_error and used to escape).
class BoundedDomParser : public nlohmann::detail::json_sax_dom_parser<Json>
{
public:
    BoundedDomParser(Json &root, std::size_t maxDepth)
        : json_sax_dom_parser(root, false)
        , m_maxDepth(maxDepth)
    {
    }

    bool start_object(std::size_t len) { return enter() && json_sax_dom_parser::start_object(len); }
    bool start_array(std::size_t len) { return enter() && json_sax_dom_parser::start_array(len); }
    bool end_object()
    {
        --m_depth;
        return json_sax_dom_parser::end_object();
    }
    bool end_array()
    {
        --m_depth;
        return json_sax_dom_parser::end_array();
    }

    template <class Exception>
    bool parse_error(std::size_t position, const std::string &lastToken, const Exception &ex)
    {
        m_failed = true;
        m_position = position;
        m_lastToken = lastToken;
        m_what = ex.what();
        m_id = ex.id;
        return false;
    }

    bool tooDeep() const { return m_tooDeep; }
    bool failed() const { return m_failed; }
    std::size_t position() const { return m_position; }
    const std::string &lastToken() const { return m_lastToken; }
    const std::string &what() const { return m_what; }
    int id() const { return m_id; }

private:
    bool enter()
    {
        if (++m_depth > m_maxDepth) {
            m_tooDeep = true;
            return false;
        }
        return true;
    }

    std::size_t m_maxDepth;
    std::size_t m_depth = 0;
    bool m_tooDeep = false;
    bool m_failed = false;
    std::size_t m_position = 0;
    std::string m_lastToken;
    std::string m_what;
    int m_id = 0;
};

/// Offset of the bracket that first exceeds `maxDepth` levels (strings skipped).
std::size_t tooDeepOffset(std::string_view text, std::size_t maxDepth)
{
    std::size_t depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                i += text[i] == '\\' ? 1 : 0;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return text.size();
}

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
/// column 2: " prefix (Cleave prints its own location).
std::string plainMessage(const std::string &what)
{
    std::string_view s(what);
    if (const auto close = s.find("] "); close != std::string_view::npos)
        s.remove_prefix(close + 2);
    if (s.starts_with("parse error")) {
        if (const auto colon = s.find(": "); colon != std::string_view::npos)
            s.remove_prefix(colon + 2);
    }
    if (s.size() > 160)
        return std::string(s.substr(0, 160)) + "…";
    return std::string(s);
}

void skipSpace(std::string_view text, std::size_t &i)
{
    while (i < text.size()
           && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        ++i;
}

/// Moves `i` past the string starting at text[i] == '"'; returns its raw (escaped) content.
std::string_view skipString(std::string_view text, std::size_t &i)
{
    const std::size_t start = ++i;
    while (i < text.size() && text[i] != '"')
        i += text[i] == '\\' ? 2 : 1;
    const std::string_view raw = text.substr(start, std::min(i, text.size()) - start);
    ++i;
    return raw;
}

/// Moves `i` past the value starting at text[i] (iteratively: no recursion on nesting).
void skipValue(std::string_view text, std::size_t &i)
{
    std::size_t depth = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"') {
            skipString(text, i);
        } else if (c == '[' || c == '{') {
            ++depth;
            ++i;
        } else if (c == ']' || c == '}') {
            if (depth == 0)
                return;
            --depth;
            ++i;
        } else if (c == ',' && depth == 0) {
            return;
        } else {
            ++i;
        }
        if (depth == 0 && (c == '"' || c == ']' || c == '}'))
            return;
    }
}

std::vector<std::string> pointerTokens(std::string_view pointer)
{
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < pointer.size() && pointer[i] == '/') {
        const std::size_t end = std::min(pointer.find('/', i + 1), pointer.size());
        std::string token;
        for (std::size_t k = i + 1; k < end; ++k) {
            if (pointer[k] == '~' && k + 1 < end) {
                token += pointer[k + 1] == '1' ? '/' : '~';
                ++k;
            } else {
                token += pointer[k];
            }
        }
        tokens.push_back(std::move(token));
        i = end;
    }
    return tokens;
}

/// The members of the object at text[i] ('{'): raw (escaped) name → offset of its value. The
/// first of duplicate names wins.
std::unordered_map<std::string, std::size_t> memberOffsets(std::string_view text, std::size_t i)
{
    std::unordered_map<std::string, std::size_t> members;
    ++i; // '{'
    for (;;) {
        skipSpace(text, i);
        if (i >= text.size() || text[i] != '"')
            return members;
        const std::string_view name = skipString(text, i);
        skipSpace(text, i);
        if (i >= text.size() || text[i] != ':')
            return members;
        ++i;
        skipSpace(text, i);
        members.emplace(name, i);
        skipValue(text, i);
        skipSpace(text, i);
        if (i >= text.size() || text[i] != ',')
            return members;
        ++i;
    }
}

/// The offsets of the elements of the array at text[i] ('[').
std::vector<std::size_t> elementOffsets(std::string_view text, std::size_t i)
{
    std::vector<std::size_t> elements;
    ++i; // '['
    for (;;) {
        skipSpace(text, i);
        if (i >= text.size() || text[i] == ']')
            return elements;
        elements.push_back(i);
        skipValue(text, i);
        skipSpace(text, i);
        if (i >= text.size() || text[i] != ',')
            return elements;
        ++i;
    }
}

} // namespace

std::optional<Json> parseJsonLocated(std::string_view text, const std::string &file,
                                     const std::string &code, std::vector<Diagnostic> &diagnostics,
                                     const std::string &what, std::size_t maxDepth)
{
    Json root;
    BoundedDomParser handler(root, maxDepth);
    bool ok = false;
    try {
        ok = Json::sax_parse(text.begin(), text.end(), &handler);
    } catch (const Json::exception &e) { // 408 excessive size cannot happen for text input
        handler.parse_error(0, {}, e);
    }
    if (ok && !handler.failed() && !handler.tooDeep())
        return root;
    const JsonLocator locator(text, file);
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    if (handler.tooDeep()) {
        d.message = what + ": arrays and objects nest more than " + std::to_string(maxDepth)
            + " levels deep";
        d.where = locator.at(tooDeepOffset(text, maxDepth));
    } else {
        // The position counts the bytes read, the offending one included.
        std::size_t offset = handler.position() > 0 ? handler.position() - 1 : 0;
        if (handler.id() == 406) { // number overflow: point at the number's first byte
            offset = handler.position() >= handler.lastToken().size()
                ? handler.position() - handler.lastToken().size()
                : 0;
            d.message = "number out of range: " + quoteBounded(handler.lastToken());
        } else {
            d.message = what + ": " + plainMessage(handler.what());
        }
        d.where = locator.at(offset);
    }
    diagnostics.push_back(std::move(d));
    return std::nullopt;
}

SourceLocation locateJsonValue(std::string_view text, const std::string &file,
                               std::string_view pointer)
{
    return JsonValueLocator(text, file).at(pointer);
}

JsonValueLocator::JsonValueLocator(std::string_view text, std::string file)
    : m_text(text)
    , m_lines(text, std::move(file))
{
}

SourceLocation JsonValueLocator::at(std::string_view pointer)
{
    std::size_t i = 0;
    skipSpace(m_text, i);
    for (const std::string &token : pointerTokens(pointer)) {
        if (i >= m_text.size())
            break;
        std::size_t next = std::string_view::npos;
        if (m_text[i] == '{') {
            auto cached = m_members.find(i);
            if (cached == m_members.end())
                cached = m_members.emplace(i, memberOffsets(m_text, i)).first;
            if (const auto member = cached->second.find(token); member != cached->second.end())
                next = member->second;
        } else if (m_text[i] == '[') {
            std::size_t index = 0;
            const auto [end, ec]
                = std::from_chars(token.data(), token.data() + token.size(), index);
            auto cached = m_elements.find(i);
            if (cached == m_elements.end())
                cached = m_elements.emplace(i, elementOffsets(m_text, i)).first;
            if (ec == std::errc() && end == token.data() + token.size()
                && index < cached->second.size())
                next = cached->second[index];
        }
        if (next == std::string_view::npos)
            break;
        i = next;
    }
    return m_lines.at(i);
}

std::string quoteBounded(std::string_view s, std::size_t limit)
{
    std::size_t cut = std::min(limit, s.size());
    while (cut > 0 && cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut; // do not split a UTF-8 sequence
    std::string out = "'";
    static const char hex[] = "0123456789abcdef";
    for (const char c : s.substr(0, cut)) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') {
            out += "\\n";
        } else if (u < 0x20 || u == 0x7f) {
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    if (cut < s.size())
        return out + "…' (" + std::to_string(s.size()) + " bytes)";
    return out + "'";
}

std::string boundedJson(const nlohmann::json &value)
{
    std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() <= 60)
        return text;
    std::size_t cut = 60;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return text.substr(0, cut) + "…";
}

} // namespace cleave
