// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/TypeList.h"

#include "core/support/HashMix.h"
#include "core/support/InternPool.h"

#include <algorithm>
#include <functional>

namespace cleave {

namespace {

// Interned strings are equal exactly when their texts are the same object, so the address hashes
// them consistently with Type's operator==.
std::size_t hashOf(const InternedString &s)
{
    return std::hash<const void *> {}(&s.str());
}

std::size_t hashOf(const Type &t)
{
    auto seed = static_cast<std::size_t>(t.kind);
    for (const Dim &d : t.shape) {
        hashMix(seed, std::hash<std::int64_t> {}(d.value));
        hashMix(seed, hashOf(d.symbol));
    }
    hashMix(seed, hashOf(t.dtype));
    hashMix(seed, hashOf(t.name));
    for (const Type &f : t.fields)
        hashMix(seed, hashOf(f));
    for (const Type &r : t.result)
        hashMix(seed, hashOf(r));
    return seed;
}

std::size_t hashOf(std::span<const Type> types)
{
    std::size_t seed = types.size();
    for (const Type &t : types)
        hashMix(seed, hashOf(t));
    return seed;
}

} // namespace

std::size_t detail::TypeListHash::operator()(std::span<const Type> types) const
{
    return hashOf(types);
}

bool detail::TypeListEqual::operator()(std::span<const Type> a, std::span<const Type> b) const
{
    return std::ranges::equal(a, b);
}

TypeList::TypeList(std::span<const Type> types)
{
    if (types.empty())
        return;
    m_number = detail::TypeListPool::instance().number(
        types, [types] { return std::vector<Type>(types.begin(), types.end()); });
}

TypeList TypeList::with(std::size_t i, Type type) const
{
    std::vector<Type> types = toVector();
    if (types.size() <= i)
        types.resize(i + 1);
    types[i] = std::move(type);
    return TypeList(types);
}

std::size_t TypeList::poolSize()
{
    return detail::TypeListPool::instance().size();
}

} // namespace cleave
