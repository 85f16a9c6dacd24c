// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/InternedString.h"

#include <functional>
#include <mutex>
#include <ostream>
#include <unordered_set>

namespace cleave {

namespace {

struct Pool
{
    struct Hash
    {
        using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
        std::size_t operator()(std::string_view s) const
        {
            return std::hash<std::string_view> {}(s);
        }
    };
    std::mutex mutex;
    // Node-based: the strings never move, so pointers to them stay valid.
    std::unordered_set<std::string, Hash, std::equal_to<>> strings;
};

Pool &pool()
{
    static Pool *p = new Pool; // never destroyed: interned strings outlive every static
    return *p;
}

} // namespace

const std::string &InternedString::emptyString()
{
    static const std::string empty;
    return empty;
}

InternedString::InternedString(std::string_view text)
{
    if (text.empty())
        return;
    Pool &p = pool();
    const std::scoped_lock lock(p.mutex);
    auto it = p.strings.find(text);
    if (it == p.strings.end())
        it = p.strings.emplace(text).first;
    m_text = &*it;
}

std::ostream &operator<<(std::ostream &out, const InternedString &s)
{
    return out << s.str();
}

} // namespace cleave
