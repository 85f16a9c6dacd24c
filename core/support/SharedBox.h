// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace cleave {

/// A copy-on-write box for a rarely set value: empty, or a pointer to a heap block holding the
/// value and an atomic count of the boxes that share it. Copies share the block; unshared()
/// gives the value to write, copying it first when another box shares it. One pointer (8 bytes)
/// where a std::shared_ptr takes two: it is a field of every node of a graph.
template <typename T>
class SharedBox
{
public:
    SharedBox() = default;
    SharedBox(const SharedBox &other) noexcept
        : m_block(other.m_block)
    {
        if (m_block != nullptr)
            m_block->shares.fetch_add(1, std::memory_order_relaxed);
    }
    SharedBox(SharedBox &&other) noexcept
        : m_block(std::exchange(other.m_block, nullptr))
    {
    }
    SharedBox &operator=(const SharedBox &other) noexcept
    {
        if (this != &other) {
            SharedBox copy(other);
            std::swap(m_block, copy.m_block);
        }
        return *this;
    }
    SharedBox &operator=(SharedBox &&other) noexcept
    {
        SharedBox taken(std::move(other));
        std::swap(m_block, taken.m_block);
        return *this;
    }
    ~SharedBox() { release(); }

    /// True when it holds a value.
    [[nodiscard]] bool hasValue() const { return m_block != nullptr; }
    /// The value (it must hold one).
    [[nodiscard]] const T &value() const { return m_block->value; }
    /// How many boxes share the value (0 when empty).
    [[nodiscard]] std::size_t shares() const
    {
        return m_block != nullptr ? m_block->shares.load(std::memory_order_acquire) : 0;
    }
    /// The value to change: a default one made when empty, a copy of its own made first when
    /// other boxes share it (they keep theirs).
    T &unshared()
    {
        if (m_block == nullptr) {
            m_block = new Block();
        } else if (m_block->shares.load(std::memory_order_acquire) > 1) {
            auto *own = new Block(m_block->value);
            release();
            m_block = own;
        }
        return m_block->value;
    }

private:
    struct Block
    {
        Block() = default;
        explicit Block(T v)
            : value(std::move(v))
        {
        }
        std::atomic<std::uint32_t> shares { 1 };
        T value {};
    };
    void release() noexcept
    {
        if (m_block != nullptr && m_block->shares.fetch_sub(1, std::memory_order_acq_rel) == 1)
            delete m_block;
        m_block = nullptr;
    }

    Block *m_block = nullptr;
};

} // namespace cleave
