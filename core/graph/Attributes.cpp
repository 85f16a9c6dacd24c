// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/AttrValue.h"
#include "core/support/HashMix.h"
#include "core/support/InternPool.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>

namespace cleave {

// Every field counts, a float by its bits and its spelling (AttrValue's == calls 1e-05f and
// 1.0e-05f equal, and -0f and 0f).
bool identical(const AttrValue &a, const AttrValue &b)
{
    return a.kind == b.kind && a.intValue == b.intValue
        && std::bit_cast<std::uint64_t>(a.floatValue) == std::bit_cast<std::uint64_t>(b.floatValue)
        && a.boolValue == b.boolValue && a.dtype == b.dtype && a.text == b.text && a.keys == b.keys
        && std::ranges::equal(a.list, b.list, identical);
}

std::size_t identityHash(const AttrValue &v)
{
    auto seed = static_cast<std::size_t>(v.kind);
    hashMix(seed, std::hash<std::int64_t> {}(v.intValue));
    hashMix(seed, std::hash<std::uint64_t> {}(std::bit_cast<std::uint64_t>(v.floatValue)));
    hashMix(seed, v.boolValue ? 1U : 0U);
    hashMix(seed, std::hash<const void *> {}(&v.dtype.str())); // interned: same text, same address
    hashMix(seed, std::hash<std::string> {}(v.text));
    for (const std::string &k : v.keys)
        hashMix(seed, std::hash<std::string> {}(k));
    for (const AttrValue &item : v.list)
        hashMix(seed, identityHash(item));
    return seed;
}

std::size_t detail::AttributeItemsHash::operator()(const AttributeItems &items) const
{
    std::size_t seed = items.size();
    for (const auto &[key, value] : items) {
        hashMix(seed, std::hash<std::string> {}(key));
        hashMix(seed, identityHash(value));
    }
    return seed;
}

bool detail::AttributeItemsIdentical::operator()(const AttributeItems &a,
                                                 const AttributeItems &b) const
{
    return std::ranges::equal(a, b, [](const Attributes::Item &x, const Attributes::Item &y) {
        return x.first == y.first && identical(x.second, y.second);
    });
}

Attributes::Attributes(std::vector<Item> items)
{
    if (!items.empty())
        m_number = detail::AttributeItemsPool::instance().number(std::move(items));
}

const std::vector<Attributes::Item> &Attributes::noItems()
{
    static const std::vector<Item> none;
    return none;
}

const AttrValue *Attributes::find(const std::string &key) const
{
    for (const Item &item : items()) {
        if (item.first == key)
            return &item.second;
    }
    return nullptr;
}

void Attributes::set(std::string key, AttrValue value)
{
    std::vector<Item> changed = items();
    setItem(changed, std::move(key), std::move(value));
    *this = Attributes(std::move(changed));
}

void Attributes::setItem(std::vector<Item> &items, std::string key, AttrValue value)
{
    const auto it = std::find_if(items.begin(), items.end(),
                                 [&key](const Item &item) { return item.first == key; });
    if (it != items.end())
        it->second = std::move(value);
    else
        items.emplace_back(std::move(key), std::move(value));
}

std::int64_t Attributes::intOr(const std::string &key, std::int64_t fallback) const
{
    const AttrValue *v = find(key);
    if (!v)
        return fallback;
    return v->toInt().value_or(fallback);
}

std::string Attributes::stringOr(const std::string &key, const std::string &fallback) const
{
    const AttrValue *v = find(key);
    if (!v || v->kind != AttrValue::Kind::String)
        return fallback;
    return v->text;
}

std::optional<std::vector<std::int64_t>> Attributes::intList(const std::string &key) const
{
    const AttrValue *v = find(key);
    if (!v)
        return std::nullopt;
    return v->toIntList();
}

} // namespace cleave
