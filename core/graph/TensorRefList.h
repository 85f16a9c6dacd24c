// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <span>
#include <vector>

namespace cleave {

/// A short list of tensors, such as a node's inputs or a fused block's inputs and outputs: a
/// vector of TensorRef that keeps up to two of them in place and only more in a heap block. As
/// large as a std::vector (24 bytes), but most operators read one or two tensors and most
/// blocks have one output, so most lists hold no heap block at all, where a std::vector made
/// one of 32 bytes (malloc's smallest) per list: per node of a large model, about a twentieth
/// of what the editor holds. The subset of std::vector's interface the graph code uses;
/// iterators are pointers (contiguous, so a std::span views it), invalidated as a
/// std::vector's are.
class TensorRefList
{
public:
    using value_type = TensorRef; // NOLINT(readability-identifier-naming): standard spelling
    using iterator = TensorRef *; // NOLINT(readability-identifier-naming)
    using const_iterator = const TensorRef *; // NOLINT(readability-identifier-naming)
    using size_type = std::size_t; // NOLINT(readability-identifier-naming)

    TensorRefList() = default;
    TensorRefList(std::initializer_list<TensorRef> items) { assign(items.begin(), items.end()); }
    /// A copy of `items` (a list built in a std::vector first).
    TensorRefList(const std::vector<TensorRef> &items) // NOLINT(google-explicit-constructor)
    {
        assign(items.data(), items.data() + items.size());
    }
    TensorRefList(const TensorRef *first, const TensorRef *last) { assign(first, last); }
    TensorRefList(const TensorRefList &other) { assign(other.begin(), other.end()); }
    TensorRefList(TensorRefList &&other) noexcept { take(other); }
    TensorRefList &operator=(const TensorRefList &other)
    {
        if (this != &other)
            assign(other.begin(), other.end());
        return *this;
    }
    TensorRefList &operator=(TensorRefList &&other) noexcept
    {
        if (this != &other) {
            release();
            take(other);
        }
        return *this;
    }
    TensorRefList &operator=(const std::vector<TensorRef> &items)
    {
        assign(items.data(), items.data() + items.size());
        return *this;
    }
    TensorRefList &operator=(std::initializer_list<TensorRef> items)
    {
        assign(items.begin(), items.end());
        return *this;
    }
    ~TensorRefList() { release(); }

    [[nodiscard]] std::size_t size() const { return m_size; }
    [[nodiscard]] bool empty() const { return m_size == 0; }
    [[nodiscard]] std::size_t capacity() const { return m_capacity; }
    [[nodiscard]] TensorRef *data() { return isInline() ? m_store.inPlace : m_store.heap; }
    [[nodiscard]] const TensorRef *data() const
    {
        return isInline() ? m_store.inPlace : m_store.heap;
    }
    [[nodiscard]] iterator begin() { return data(); }
    [[nodiscard]] iterator end() { return data() + m_size; }
    [[nodiscard]] const_iterator begin() const { return data(); }
    [[nodiscard]] const_iterator end() const { return data() + m_size; }
    [[nodiscard]] const_iterator cbegin() const { return begin(); }
    [[nodiscard]] const_iterator cend() const { return end(); }
    TensorRef &operator[](std::size_t i) { return data()[i]; }
    const TensorRef &operator[](std::size_t i) const { return data()[i]; }
    /// Bounds-checked access; throws std::out_of_range as std::vector::at does.
    [[nodiscard]] const TensorRef &at(std::size_t i) const;
    TensorRef &front() { return data()[0]; }
    TensorRef &back() { return data()[m_size - 1]; }
    [[nodiscard]] const TensorRef &front() const { return data()[0]; }
    [[nodiscard]] const TensorRef &back() const { return data()[m_size - 1]; }

    void reserve(std::size_t n)
    {
        if (n > m_capacity)
            grow(n);
    }
    void push_back(TensorRef value) // NOLINT(readability-identifier-naming): std spelling
    {
        if (m_size == m_capacity)
            grow(std::max<std::size_t>(4, std::size_t { m_capacity } * 2));
        data()[m_size++] = value;
    }
    TensorRef &emplace_back(TensorRef value) // NOLINT(readability-identifier-naming)
    {
        push_back(value);
        return back();
    }
    void pop_back() { --m_size; } // NOLINT(readability-identifier-naming)
    void clear() { m_size = 0; }
    /// Grows with invalid refs, or shrinks.
    void resize(std::size_t n)
    {
        reserve(n);
        std::fill(data() + std::min<std::size_t>(n, m_size), data() + n, TensorRef {});
        m_size = static_cast<std::uint32_t>(n);
    }
    /// Inserts `value` before `pos`; the position of the inserted value.
    iterator insert(const_iterator pos, TensorRef value);
    /// Removes [first, last); the position after the removed ones.
    iterator erase(const_iterator first, const_iterator last);
    iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
    /// Replaces the contents with [first, last) (which must not lie inside this list).
    void assign(const TensorRef *first, const TensorRef *last);

    /// The inputs as a std::vector (for code that keeps or edits a list of its own).
    [[nodiscard]] std::vector<TensorRef> toVector() const { return { begin(), end() }; }

    friend bool operator==(const TensorRefList &a, const TensorRefList &b)
    {
        return a.m_size == b.m_size && std::equal(a.begin(), a.end(), b.begin());
    }
    friend bool operator==(const TensorRefList &a, const std::vector<TensorRef> &b)
    {
        return a.m_size == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    static constexpr std::uint32_t inlineCapacity = 2;
    [[nodiscard]] bool isInline() const { return m_capacity == inlineCapacity; }
    void grow(std::size_t capacity);
    void release()
    {
        if (!isInline())
            ::operator delete(m_store.heap);
        m_capacity = inlineCapacity;
        m_size = 0;
    }
    void take(TensorRefList &other) noexcept
    {
        std::memcpy(static_cast<void *>(m_store.inPlace),
                    static_cast<const void *>(other.m_store.inPlace), sizeof m_store.inPlace);
        m_size = other.m_size;
        m_capacity = other.m_capacity;
        other.m_size = 0;
        other.m_capacity = inlineCapacity;
    }

    // The refs in place (capacity 2) or the heap block (larger capacities).
    union Store
    {
        TensorRef inPlace[inlineCapacity] {}; // NOLINT(modernize-avoid-c-arrays)
        TensorRef *heap;
    };
    Store m_store;
    std::uint32_t m_size = 0;
    std::uint32_t m_capacity = inlineCapacity;
};

static_assert(sizeof(TensorRefList) == 24, "an TensorRefList is as large as a std::vector");

} // namespace cleave
