// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace cleave {

/// A map kept as one vector of (key, value) pairs sorted by key: the subset of std::map's API
/// that a Layout needs (iteration over `[key, value]` in key order, find, at, count, contains,
/// operator[], emplace, erase), with a fraction of its memory (no tree node per entry: a
/// Layout's 24k node rectangles take 40 bytes each instead of 80) and lookups by binary search.
/// Inserting a key that is not the largest moves the entries after it: build large maps in key
/// order (appending is the fast path of every insertion) or with fromUnsorted(). Iterators and
/// pointers to values are invalidated by every insertion and erasure (a built Layout is shared as
/// const, so they hold for its life).
template <typename Key, typename Value>
class FlatMap
{
public:
    using Item = std::pair<Key, Value>;
    using Iterator = typename std::vector<Item>::iterator;
    using ConstIterator = typename std::vector<Item>::const_iterator;

    FlatMap() = default;

    /// A map of `items` in any order; of entries with equal keys the last one is kept (as
    /// assigning them one by one with operator[] would).
    [[nodiscard]] static FlatMap fromUnsorted(std::vector<Item> items)
    {
        std::stable_sort(items.begin(), items.end(),
                         [](const Item &a, const Item &b) { return a.first < b.first; });
        // Keep the last of each run of equal keys: move it onto the run's first slot.
        std::size_t out = 0;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const bool repeated = out > 0 && !(items[out - 1].first < items[i].first);
            if (!repeated)
                ++out;
            if (out - 1 != i)
                items[out - 1] = std::move(items[i]);
        }
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(out), items.end());
        FlatMap map;
        map.m_items = std::move(items);
        return map;
    }

    [[nodiscard]] Iterator begin() { return m_items.begin(); }
    [[nodiscard]] Iterator end() { return m_items.end(); }
    [[nodiscard]] ConstIterator begin() const { return m_items.begin(); }
    [[nodiscard]] ConstIterator end() const { return m_items.end(); }
    [[nodiscard]] ConstIterator cbegin() const { return m_items.cbegin(); }
    [[nodiscard]] ConstIterator cend() const { return m_items.cend(); }

    [[nodiscard]] std::size_t size() const { return m_items.size(); }
    /// The entry of the largest key; the map must not be empty.
    [[nodiscard]] const Item &back() const { return m_items.back(); }
    [[nodiscard]] bool empty() const { return m_items.empty(); }
    void clear() { m_items.clear(); }
    void reserve(std::size_t n) { m_items.reserve(n); }

    /// The first entry whose key is not less than `key`.
    [[nodiscard]] Iterator lowerBound(const Key &key)
    {
        return std::lower_bound(m_items.begin(), m_items.end(), key, keyLess);
    }
    [[nodiscard]] ConstIterator lowerBound(const Key &key) const
    {
        return std::lower_bound(m_items.begin(), m_items.end(), key, keyLess);
    }

    /// The entry of `key`, or end().
    [[nodiscard]] Iterator find(const Key &key)
    {
        const auto it = lowerBound(key);
        return it != m_items.end() && !(key < it->first) ? it : m_items.end();
    }
    [[nodiscard]] ConstIterator find(const Key &key) const
    {
        const auto it = lowerBound(key);
        return it != m_items.end() && !(key < it->first) ? it : m_items.end();
    }
    [[nodiscard]] bool contains(const Key &key) const { return find(key) != m_items.end(); }
    [[nodiscard]] std::size_t count(const Key &key) const { return contains(key) ? 1 : 0; }

    /// The value of `key`; throws std::out_of_range when absent (as std::map::at).
    [[nodiscard]] Value &at(const Key &key)
    {
        const auto it = find(key);
        if (it == m_items.end())
            throw std::out_of_range("FlatMap::at: no such key");
        return it->second;
    }
    [[nodiscard]] const Value &at(const Key &key) const
    {
        const auto it = find(key);
        if (it == m_items.end())
            throw std::out_of_range("FlatMap::at: no such key");
        return it->second;
    }

    /// The value of `key`, inserted value-initialised when absent.
    Value &operator[](const Key &key) { return tryEmplace(key).first->second; }

    /// Inserts (key, value made from `args`) unless `key` is present; the entry and whether
    /// it was inserted.
    template <typename... Args>
    std::pair<Iterator, bool> tryEmplace(const Key &key, Args &&...args)
    {
        if (m_items.empty() || m_items.back().first < key) {
            m_items.emplace_back(std::piecewise_construct, std::forward_as_tuple(key),
                                 std::forward_as_tuple(std::forward<Args>(args)...));
            return { std::prev(m_items.end()), true };
        }
        const auto it = lowerBound(key);
        if (it != m_items.end() && !(key < it->first))
            return { it, false };
        return { m_items.emplace(it, std::piecewise_construct, std::forward_as_tuple(key),
                                 std::forward_as_tuple(std::forward<Args>(args)...)),
                 true };
    }
    template <typename... Args>
    std::pair<Iterator, bool> emplace(const Key &key, Args &&...args)
    {
        return tryEmplace(key, std::forward<Args>(args)...);
    }
    /// Sets the value of `key`, inserting it when absent.
    template <typename V>
    std::pair<Iterator, bool> insertOrAssign(const Key &key, V &&value)
    {
        auto result = tryEmplace(key, std::forward<V>(value));
        if (!result.second)
            result.first->second = std::forward<V>(value);
        return result;
    }

    /// Removes the entry of `key`; how many were removed (0 or 1).
    std::size_t erase(const Key &key)
    {
        const auto it = find(key);
        if (it == m_items.end())
            return 0;
        m_items.erase(it);
        return 1;
    }
    Iterator erase(ConstIterator it) { return m_items.erase(it); }

    friend bool operator==(const FlatMap &, const FlatMap &) = default;

private:
    static bool keyLess(const Item &item, const Key &key) { return item.first < key; }

    std::vector<Item> m_items;
};

} // namespace cleave
