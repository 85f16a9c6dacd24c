// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/InternedString.h"

#include "core/support/InternPool.h"

#include <functional>
#include <ostream>

namespace cleave {

namespace {

struct StringHash
{
    using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view> {}(s); }
};

using StringPool = InternPool<std::string, StringHash>;

} // namespace

const std::string &InternedString::emptyString()
{
    static const std::string empty;
    return empty;
}

const std::string &InternedString::pooled(std::uint32_t number)
{
    return StringPool::instance().at(number);
}

InternedString::InternedString(std::string_view text)
{
    if (text.empty())
        return;
    m_number = StringPool::instance().number(text, [text] { return std::string(text); });
}

std::ostream &operator<<(std::ostream &out, const InternedString &s)
{
    return out << s.str();
}

} // namespace cleave
