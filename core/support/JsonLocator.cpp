// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/JsonLocator.h"

#include <algorithm>

namespace cleave {

JsonLocator::JsonLocator(std::string_view text, std::string file)
    : m_size(text.size())
    , m_file(std::move(file))
{
    m_lineStarts.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n')
            m_lineStarts.push_back(i + 1);
    }
}

SourceLocation JsonLocator::at(std::size_t offset) const
{
    offset = std::min(offset, m_size);
    // The last line start that is <= offset.
    const auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset) - 1;
    const auto line = static_cast<int>(it - m_lineStarts.begin()) + 1;
    const auto column = static_cast<int>(offset - *it) + 1;
    return SourceLocation { m_file, line, column };
}

std::vector<std::size_t> JsonLocator::arrayElementOffsets(std::string_view text,
                                                          std::string_view key)
{
    std::vector<std::size_t> offsets;
    int depth = 0;
    bool inArray = false;
    bool expectElement = false;
    std::string_view lastString; // the most recent string at depth 1: a key before ':'
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (inArray && depth == 2 && expectElement && c != ']') {
            offsets.push_back(i);
            expectElement = false;
        }
        if (c == '"') {
            std::size_t j = i + 1;
            while (j < text.size() && text[j] != '"')
                j += text[j] == '\\' ? 2 : 1;
            if (depth == 1 && !inArray)
                lastString = text.substr(i + 1, std::min(j, text.size()) - i - 1);
            i = j;
            continue;
        }
        switch (c) {
        case '[':
            if (depth == 1 && lastString == key) {
                inArray = true;
                expectElement = true;
            }
            ++depth;
            break;
        case '{':
            ++depth;
            break;
        case ']':
        case '}':
            --depth;
            if (inArray && depth == 1)
                return offsets;
            break;
        case ',':
            if (inArray && depth == 2)
                expectElement = true;
            break;
        default:
            break;
        }
    }
    return offsets;
}

} // namespace cleave
