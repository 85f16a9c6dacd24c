// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Type.h"
#include "core/support/InternPool.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace cleave {

namespace detail {

struct TypeListHash
{
    using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
    std::size_t operator()(std::span<const Type> types) const;
    std::size_t operator()(const std::vector<Type> &types) const
    {
        return (*this)(std::span<const Type>(types));
    }
};
struct TypeListEqual
{
    using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
    bool operator()(std::span<const Type> a, std::span<const Type> b) const;
};
using TypeListPool = InternPool<std::vector<Type>, TypeListHash, TypeListEqual>;

} // namespace detail

/// An immutable list of types kept once per process: a node's output types. A model has only a
/// few hundred distinct lists among tens of thousands of nodes, so a node holds the 4-byte
/// number of a pooled list instead of a vector of its own; copying a node copies the number, and
/// equal lists are the same entry (equality compares numbers). The pool only grows and is
/// guarded by a mutex, so importers and background workers on several threads may intern at
/// once; reading a list needs no lock.
class TypeList
{
public:
    using value_type = Type; // NOLINT(readability-identifier-naming): std container spelling
    using const_iterator = const Type *; // NOLINT(readability-identifier-naming)

    /// The empty list.
    TypeList() = default;
    /// The pooled copy of `types` (interned on first use).
    explicit TypeList(std::span<const Type> types);
    TypeList(std::initializer_list<Type> types)
        : TypeList(std::span<const Type>(types.begin(), types.size()))
    {
    }

    [[nodiscard]] std::size_t size() const { return m_number != 0 ? types().size() : 0; }
    [[nodiscard]] bool empty() const { return m_number == 0; }
    [[nodiscard]] const Type &operator[](std::size_t i) const { return types()[i]; }
    /// The type at `i`, or null past the end (one look-up in the pool, where size() and
    /// operator[] take one each).
    [[nodiscard]] const Type *get(std::size_t i) const
    {
        if (m_number == 0)
            return nullptr;
        const std::vector<Type> &list = types();
        return i < list.size() ? &list[i] : nullptr;
    }
    /// The first type; the list must not be empty.
    [[nodiscard]] const Type &front() const { return types().front(); }
    /// The pooled types, or null for the empty list. Equal lists give the same address.
    [[nodiscard]] const Type *data() const { return m_number != 0 ? types().data() : nullptr; }
    [[nodiscard]] const_iterator begin() const { return data(); }
    [[nodiscard]] const_iterator end() const { return data() + size(); }
    /// A mutable copy of the types.
    [[nodiscard]] std::vector<Type> toVector() const { return { begin(), end() }; }
    /// This list with element `i` replaced by `type`, grown with Unknown types when `i` is past
    /// the end.
    [[nodiscard]] TypeList with(std::size_t i, Type type) const;

    /// How many distinct non-empty lists the process has interned (the pool never shrinks).
    [[nodiscard]] static std::size_t poolSize();

    friend bool operator==(const TypeList &a, const TypeList &b)
    {
        return a.m_number == b.m_number;
    }

private:
    [[nodiscard]] const std::vector<Type> &types() const
    {
        return detail::TypeListPool::instance().at(m_number);
    }

    std::uint32_t m_number = 0; ///< The pool's number of the list; 0 for the empty list.
};

} // namespace cleave
