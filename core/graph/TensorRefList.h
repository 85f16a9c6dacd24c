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
/// vector of TensorRef that keeps up to two of them in place and only more in a heap block. 20
/// bytes, aligned to 4 (a std::vector takes 24, aligned to 8): most operators read one or two
/// tensors and most blocks have one output, so most lists hold no heap block at all, where a
/// std::vector made one of 32 bytes (malloc's smallest) per list, and a node packs the list
/// beside its 4-byte fields. The subset of std::vector's interface the graph code uses;
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

    [[nodiscard]] std::size_t size() const { return count(); }
    [[nodiscard]] bool empty() const { return count() == 0; }
    [[nodiscard]] std::size_t capacity() const
    {
        return isInline() ? inlineCapacity : heapCapacity();
    }
    [[nodiscard]] TensorRef *data() { return isInline() ? m_inPlace : heapData(); }
    [[nodiscard]] const TensorRef *data() const { return isInline() ? m_inPlace : heapData(); }
    [[nodiscard]] iterator begin() { return data(); }
    [[nodiscard]] iterator end() { return data() + count(); }
    [[nodiscard]] const_iterator begin() const { return data(); }
    [[nodiscard]] const_iterator end() const { return data() + count(); }
    [[nodiscard]] const_iterator cbegin() const { return begin(); }
    [[nodiscard]] const_iterator cend() const { return end(); }
    TensorRef &operator[](std::size_t i) { return data()[i]; }
    const TensorRef &operator[](std::size_t i) const { return data()[i]; }
    /// Bounds-checked access; throws std::out_of_range as std::vector::at does.
    [[nodiscard]] const TensorRef &at(std::size_t i) const;
    TensorRef &front() { return data()[0]; }
    TensorRef &back() { return data()[count() - 1]; }
    [[nodiscard]] const TensorRef &front() const { return data()[0]; }
    [[nodiscard]] const TensorRef &back() const { return data()[count() - 1]; }

    void reserve(std::size_t n)
    {
        if (n > capacity())
            grow(n);
    }
    void push_back(TensorRef value) // NOLINT(readability-identifier-naming): std spelling
    {
        const std::uint32_t n = count();
        if (n == capacity())
            grow(std::max<std::size_t>(4, capacity() * 2));
        data()[n] = value;
        ++m_size;
    }
    TensorRef &emplace_back(TensorRef value) // NOLINT(readability-identifier-naming)
    {
        push_back(value);
        return back();
    }
    void pop_back() { --m_size; } // NOLINT(readability-identifier-naming)
    void clear() { m_size &= heapFlag; }
    /// Grows with invalid refs, or shrinks.
    void resize(std::size_t n)
    {
        reserve(n);
        std::fill(data() + std::min<std::size_t>(n, count()), data() + n, TensorRef {});
        setCount(n);
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
        return a.count() == b.count() && std::equal(a.begin(), a.end(), b.begin());
    }
    friend bool operator==(const TensorRefList &a, const std::vector<TensorRef> &b)
    {
        return a.count() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    static constexpr std::uint32_t inlineCapacity = 2;
    /// In m_size: the refs are in a heap block (whose address and capacity m_inPlace holds).
    static constexpr std::uint32_t heapFlag = 0x80000000U;

    [[nodiscard]] bool isInline() const { return (m_size & heapFlag) == 0; }
    [[nodiscard]] std::uint32_t count() const { return m_size & ~heapFlag; }
    void setCount(std::size_t n) { m_size = (m_size & heapFlag) | static_cast<std::uint32_t>(n); }
    /// A heap block's address and capacity, copied in and out of the bytes of m_inPlace (which
    /// is aligned to 4 only, so that the list is 20 bytes).
    struct HeapBlock
    {
        TensorRef *refs = nullptr;
        std::uint32_t capacity = 0;
    };
    static_assert(sizeof(HeapBlock) <= sizeof(TensorRef) * inlineCapacity,
                  "a heap block's address and capacity fit where the refs in place are");
    [[nodiscard]] HeapBlock heapBlock() const
    {
        HeapBlock block;
        std::memcpy(static_cast<void *>(&block), static_cast<const void *>(m_inPlace),
                    sizeof(HeapBlock));
        return block;
    }
    [[nodiscard]] TensorRef *heapData() const { return heapBlock().refs; }
    [[nodiscard]] std::uint32_t heapCapacity() const { return heapBlock().capacity; }
    /// Takes `heap` (of `capacity` refs) as the storage, keeping the count.
    void setHeap(TensorRef *heap, std::size_t capacity)
    {
        const HeapBlock block { heap, static_cast<std::uint32_t>(capacity) };
        std::memcpy(static_cast<void *>(m_inPlace), static_cast<const void *>(&block),
                    sizeof(HeapBlock));
        m_size |= heapFlag;
    }
    void grow(std::size_t capacity);
    void release()
    {
        if (!isInline())
            ::operator delete(heapData());
        m_size = 0;
    }
    void take(TensorRefList &other) noexcept
    {
        std::memcpy(static_cast<void *>(m_inPlace), static_cast<const void *>(other.m_inPlace),
                    sizeof m_inPlace);
        m_size = other.m_size;
        other.m_size = 0;
    }

    // The refs in place (up to two), or the heap block's address and capacity (larger lists).
    TensorRef m_inPlace[inlineCapacity] {}; // NOLINT(modernize-avoid-c-arrays)
    std::uint32_t m_size = 0; // the count, with heapFlag
};

static_assert(sizeof(TensorRefList) == 20 && alignof(TensorRefList) == 4,
              "a TensorRefList packs beside 4-byte fields");

} // namespace cleave
