// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_set>
#include <utility>

namespace cleave {

/// A process-wide set of immutable values, each kept once: interning a value returns the address
/// of its pooled copy, the same address for equal values, so holders keep one pointer and
/// compare by address. For the few distinct but endlessly repeated values of a model (strings,
/// output type lists, attribute maps). The pool only grows (entries never move or die, so their
/// addresses stay valid for the whole process) and is guarded by a mutex, so importers and
/// background workers on several threads may intern at once; reading a pooled value needs no
/// lock. `Hash` and `Equal` must be transparent when values are looked up by another key type.
template <typename T, typename Hash, typename Equal = std::equal_to<>>
class InternPool
{
public:
    /// The pool of the process for this T (never destroyed: pooled values outlive every static).
    static InternPool &instance()
    {
        static auto *pool = new InternPool;
        return *pool;
    }

    /// The pooled value equal to `key`, made with `make()` (which returns a T) on first use.
    template <typename Key, typename Make>
    const T &intern(const Key &key, Make &&make)
    {
        const std::scoped_lock lock(m_mutex);
        auto it = m_values.find(key);
        if (it == m_values.end())
            it = m_values.insert(std::forward<Make>(make)()).first;
        return *it;
    }

    /// The pooled value equal to `value` (moved into the pool on first use).
    const T &intern(T &&value)
    {
        const std::scoped_lock lock(m_mutex);
        return *m_values.insert(std::move(value)).first;
    }

    /// How many distinct values the pool holds.
    [[nodiscard]] std::size_t size()
    {
        const std::scoped_lock lock(m_mutex);
        return m_values.size();
    }

private:
    InternPool() = default;

    std::mutex m_mutex;
    // Node-based: values never move, so pointers to them stay valid.
    std::unordered_set<T, Hash, Equal> m_values;
};

} // namespace cleave
