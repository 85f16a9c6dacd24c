// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace cleave {

/// A process-wide set of immutable values, each kept once and numbered: interning a value
/// returns its number (1, 2, ... in the order values were first pooled; 0 is left for "no
/// value"), which at() turns back into the pooled copy (the same object for equal values). Holders
/// keep the 4-byte number and compare by it: for the few distinct but endlessly repeated values of
/// a model (strings, output type lists, attribute maps), held by every node. The pool only grows
/// (entries never move or die, so references to them stay valid for the whole process) and is
/// guarded by a mutex, so importers and background workers on several threads may intern at once;
/// at() takes no lock (a number reaches a reader only after the interning that made it). `Hash` and
/// `Equal` must be transparent when values are looked up by another key type.
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

    /// The number of the pooled value equal to `key`, made with `make()` (which returns a T) on
    /// first use.
    template <typename Key, typename Make>
    std::uint32_t number(const Key &key, Make &&make)
    {
        const std::scoped_lock lock(m_mutex);
        auto it = m_values.find(key);
        if (it == m_values.end())
            it = add(std::forward<Make>(make)());
        return it->second;
    }

    /// The number of the pooled value equal to `value` (moved into the pool on first use).
    std::uint32_t number(T &&value)
    {
        const std::scoped_lock lock(m_mutex);
        auto it = m_values.find(value);
        if (it == m_values.end())
            it = add(std::move(value));
        return it->second;
    }

    /// The value numbered `n` (1 ≤ n ≤ size()).
    [[nodiscard]] const T &at(std::uint32_t n) const
    {
        const std::uint32_t i = n - 1;
        return *m_chunks[i >> chunkBits][i & chunkMask];
    }

    /// How many distinct values the pool holds.
    [[nodiscard]] std::size_t size()
    {
        const std::scoped_lock lock(m_mutex);
        return m_values.size();
    }

private:
    using Map = std::unordered_map<T, std::uint32_t, Hash, Equal>;

    InternPool() = default;

    typename Map::iterator add(T &&value)
    {
        const std::size_t i = m_values.size();
        if (i >= maxChunks << chunkBits)
            throw std::length_error("more distinct values than an intern pool numbers");
        if (!m_chunks[i >> chunkBits])
            m_chunks[i >> chunkBits]
                = std::make_unique<const T *[]>(std::size_t { 1 } << chunkBits);
        auto it = m_values.emplace(std::move(value), static_cast<std::uint32_t>(i + 1)).first;
        m_chunks[i >> chunkBits][i & chunkMask] = &it->first;
        return it;
    }

    // The values by number in chunks of 4096 that never move: a reader indexes them while
    // another thread adds values (to other slots). 2^24 values at most; the directory is 32 KB.
    static constexpr unsigned chunkBits = 12;
    static constexpr std::uint32_t chunkMask = (1U << chunkBits) - 1;
    static constexpr std::size_t maxChunks = std::size_t { 1 } << 12;

    std::mutex m_mutex;
    // Node-based: values never move, so pointers to them stay valid.
    Map m_values;
    std::unique_ptr<std::unique_ptr<const T *[]>[]> m_chunks
        = std::make_unique<std::unique_ptr<const T *[]>[]>(maxChunks);
};

} // namespace cleave
