// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Type.h"

#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

namespace cleave {

/// An immutable list of types kept once per process: a node's output types. A model has only a
/// few hundred distinct lists among tens of thousands of nodes, so a node holds one pointer to a
/// pooled list instead of a vector of its own; copying a node copies the pointer, and equal lists
/// are the same entry (equality is a pointer comparison). The pool only grows and is guarded by a
/// mutex, so importers and background workers on several threads may intern at once; reading a
/// list needs no lock.
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

    [[nodiscard]] std::size_t size() const { return m_types ? m_types->size() : 0; }
    [[nodiscard]] bool empty() const { return m_types == nullptr; }
    [[nodiscard]] const Type &operator[](std::size_t i) const { return (*m_types)[i]; }
    /// The first type; the list must not be empty.
    [[nodiscard]] const Type &front() const { return m_types->front(); }
    /// The pooled types, or null for the empty list. Equal lists give the same address.
    [[nodiscard]] const Type *data() const { return m_types ? m_types->data() : nullptr; }
    [[nodiscard]] const_iterator begin() const { return data(); }
    [[nodiscard]] const_iterator end() const { return data() + size(); }
    /// A mutable copy of the types.
    [[nodiscard]] std::vector<Type> toVector() const { return { begin(), end() }; }
    /// This list with element `i` replaced by `type`, grown with Unknown types when `i` is past
    /// the end.
    [[nodiscard]] TypeList with(std::size_t i, Type type) const;

    /// How many distinct non-empty lists the process has interned (the pool never shrinks).
    [[nodiscard]] static std::size_t poolSize();

    friend bool operator==(const TypeList &a, const TypeList &b) { return a.m_types == b.m_types; }

private:
    const std::vector<Type> *m_types = nullptr; ///< Null for the empty list.
};

} // namespace cleave
