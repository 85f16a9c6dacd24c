// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace cleave {

/// Finds ids by a string key that lives elsewhere (a node's name): an open-addressing hash
/// table of ids, 8 bytes a slot, filled to at most 3/4. Each slot keeps 32 bits of its key's hash
/// besides the id, so a probe reads another key (through `keyOf(id)`) only when those bits
/// match. Building it for n ids is one hash per key, in id order; nothing is sorted.
class HashedIdIndex
{
public:
    static constexpr std::uint32_t none = 0xffffffffU;

    /// Empties the index and sizes it for `count` ids.
    void reset(std::size_t count)
    {
        const std::size_t want = count + count / 3 + 1;
        m_slots.assign(std::bit_ceil(std::max<std::size_t>(want, 8)), 0);
    }

    /// Adds `id` under `key`, unless an id with an equal key is there: then returns that id
    /// (and adds nothing); otherwise none. `keyOf(id)` gives the key of an id already added.
    template <typename KeyOf>
    std::uint32_t insert(std::string_view key, std::uint32_t id, const KeyOf &keyOf)
    {
        return insertHashed(hashOf(key), key, id, keyOf);
    }

    /// The hash insertHashed() takes.
    [[nodiscard]] static std::uint64_t hashOf(std::string_view key)
    {
        return std::hash<std::string_view> {}(key);
    }

    /// Asks the processor to load the slot a key with hash `h` starts probing at: bulk inserts
    /// hash a batch of keys, prefetch their slots and then insert them, so the cache misses of
    /// a large table overlap instead of following each other.
    void prefetch(std::uint64_t h) const { __builtin_prefetch(&m_slots[h & (m_slots.size() - 1)]); }

    /// insert() with the key's hashOf() already computed.
    template <typename KeyOf>
    std::uint32_t insertHashed(std::uint64_t h, std::string_view key, std::uint32_t id,
                               const KeyOf &keyOf)
    {
        const std::uint64_t tag = h >> 32U;
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            std::uint64_t &slot = m_slots[i];
            if (slot == 0) {
                slot = tag << 32U | (static_cast<std::uint64_t>(id) + 1);
                return none;
            }
            const auto other = static_cast<std::uint32_t>(slot - 1);
            if (slot >> 32U == tag && keyOf(other) == key)
                return other;
        }
    }

    /// The id added under `key`, or none.
    template <typename KeyOf>
    [[nodiscard]] std::uint32_t find(std::string_view key, const KeyOf &keyOf) const
    {
        if (m_slots.empty())
            return none;
        const std::uint64_t h = hashOf(key);
        const std::uint64_t tag = h >> 32U;
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const std::uint64_t slot = m_slots[i];
            if (slot == 0)
                return none;
            const auto other = static_cast<std::uint32_t>(slot - 1);
            if (slot >> 32U == tag && keyOf(other) == key)
                return other;
        }
    }

private:
    std::vector<std::uint64_t> m_slots; // hash tag << 32 | (id + 1); 0 is empty
};

} // namespace cleave
