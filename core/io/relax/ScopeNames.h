// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/support/Decimal.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cleave::relax {

/// The names bound in one Relax scope, each to a `V`. TVM names most bindings `lv<N>` and
/// `gv<N>`, numbered from 1 in order; those live in one array per prefix, indexed by the number,
/// with no key string and no hash node (a hash map of strings took some 90 bytes a binding).
/// Every other name (`x`, `lv`, `lv007`, `conv1_weight`), and a number far past the numbers seen
/// so far (a later array slot would cost memory for every number in between), goes to a hash
/// map. Lookups give the same answers as one map of all names.
template <typename V>
class ScopeNames
{
public:
    /// Makes room for about `n` names without growing (address space: unused room is never
    /// written, so it costs no memory).
    void reserve(std::size_t n)
    {
        for (Numbered &numbered : m_numbered)
            numbered.values.reserve(n);
    }

    /// The value bound to `name`, or null.
    [[nodiscard]] const V *find(std::string_view name) const
    {
        return findAt(numberedSlot(name), name);
    }

    [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }

    /// Binds `name` to `value` unless it is bound: gives the value bound now and whether it is
    /// the new one.
    std::pair<const V *, bool> emplace(std::string_view name, const V &value)
    {
        const auto slot = numberedSlot(name);
        if (slot) {
            if (const V *bound = findAt(slot, name))
                return { bound, false };
            Numbered &numbered = m_numbered[slot->first];
            const std::size_t i = slot->second;
            if (i < numbered.bound.size() + maxGap) {
                if (i >= numbered.bound.size()) {
                    numbered.values.resize(i + 1);
                    numbered.bound.resize(i + 1, false);
                }
                numbered.bound[i] = true;
                numbered.values[i] = value;
                return { &numbered.values[i], true };
            }
        }
        const auto [it, inserted] = m_others.emplace(std::string(name), value);
        if (slot && inserted)
            ++m_numberedOthers;
        return { &it->second, inserted };
    }

    /// Unbinds `name` (nothing when it is not bound).
    void erase(std::string_view name)
    {
        const auto slot = numberedSlot(name);
        if (slot) {
            Numbered &numbered = m_numbered[slot->first];
            if (slot->second < numbered.bound.size() && numbered.bound[slot->second]) {
                numbered.bound[slot->second] = false;
                return;
            }
        }
        const auto it = m_others.find(name);
        if (it == m_others.end())
            return;
        m_others.erase(it);
        if (slot)
            --m_numberedOthers;
    }

    /// How far past the last numbered slot a new number may be and still get one.
    static constexpr std::size_t maxGap = 4096;

private:
    struct Numbered
    {
        std::vector<V> values;
        std::vector<bool> bound;
    };
    static constexpr std::string_view prefixes[2] = { "lv", "gv" };

    // {prefix, number} of `lv<N>` / `gv<N>` with N a canonical decimal (no leading zero) below
    // 10^9; none for every other name.
    static std::optional<std::pair<std::size_t, std::size_t>> numberedSlot(std::string_view name)
    {
        for (std::size_t p = 0; p < 2; ++p) {
            if (name.size() <= 2 || name.size() > 11 || !name.starts_with(prefixes[p]))
                continue;
            const std::optional<std::uint32_t> n = canonicalDecimal(name.substr(2));
            if (!n)
                return std::nullopt;
            return std::pair { p, std::size_t { *n } };
        }
        return std::nullopt;
    }

    // find() with `name`'s numbered slot already read.
    [[nodiscard]] const V *findAt(const std::optional<std::pair<std::size_t, std::size_t>> &slot,
                                  std::string_view name) const
    {
        if (slot) {
            const Numbered &numbered = m_numbered[slot->first];
            const std::size_t i = slot->second;
            if (i < numbered.bound.size() && numbered.bound[i])
                return &numbered.values[i];
            if (m_numberedOthers == 0)
                return nullptr;
        }
        const auto it = m_others.find(name);
        return it == m_others.end() ? nullptr : &it->second;
    }

    // Hashes std::string and std::string_view alike: lookups build no string.
    struct Hash
    {
        using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
        std::size_t operator()(std::string_view s) const
        {
            return std::hash<std::string_view> {}(s);
        }
    };

    Numbered m_numbered[2];
    std::unordered_map<std::string, V, Hash, std::equal_to<>> m_others;
    std::size_t m_numberedOthers = 0; // numbered names in m_others (bound far past the rest)
};

} // namespace cleave::relax
