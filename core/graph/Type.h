// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/support/InternedString.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// One dimension of a tensor shape: a known extent, the dynamic dimension `?`, or a symbolic
/// dimension printed by TVM as a meta reference (`meta[tir.Var][0]`). 16 bytes: symbols are rare
/// and interned.
struct Dim
{
    static constexpr std::int64_t dynamic = -1;

    std::int64_t value = dynamic;
    InternedString symbol; ///< Source text of a symbolic dim; empty for known and `?` dims.

    [[nodiscard]] bool isKnown() const { return value >= 0 && symbol.empty(); }
    static Dim known(std::int64_t v) { return Dim { v, {} }; }
    static Dim unknown() { return Dim {}; }
    static Dim symbolic(std::string_view text) { return Dim { dynamic, InternedString(text) }; }

    friend bool operator==(const Dim &a, const Dim &b) = default;
};

/// The type of a value: a tensor (shape + dtype; a scalar is a rank-0 tensor), a tuple of types,
/// a function type, a named (ADT or type variable) type with arguments, or unknown. The dtype and
/// name are interned (a model spells a handful of them thousands of times).
struct Type
{
    enum class Kind : std::uint8_t {
        Unknown, ///< Not annotated and not inferred.
        Incomplete, ///< `_` in the source.
        Tensor,
        Tuple,
        Function, ///< `fn (A, B) -> C`: fields are the parameter types, `result` the return type.
        Named, ///< ADT or type variable: `List[A]`, `A`, `tensor_float32_t`.
        Reference, ///< `ref(T)`: fields[0] is T.
    };

    Kind kind = Kind::Unknown;
    std::vector<Dim> shape; ///< Tensor only.
    InternedString dtype; ///< Tensor only: "float32", "int64", "bool", ...
    InternedString name; ///< Named only.
    std::vector<Type> fields; ///< Tuple fields, function parameters, type arguments.
    std::vector<Type> result; ///< Function only: zero or one element (the return type).

    static Type unknown() { return {}; }
    static Type tensor(std::vector<Dim> shape, std::string_view dtype);
    static Type tensor(std::vector<Dim> shape, InternedString dtype);
    static Type tuple(std::vector<Type> fields);

    [[nodiscard]] bool isUnknown() const { return kind == Kind::Unknown; }
    [[nodiscard]] bool isTensor() const { return kind == Kind::Tensor; }
    [[nodiscard]] bool isTuple() const { return kind == Kind::Tuple; }
    /// True when every dim of a tensor type is a known extent (false for non-tensors).
    [[nodiscard]] bool hasStaticShape() const;
    /// Number of elements of a static tensor type, or nullopt.
    [[nodiscard]] std::optional<std::int64_t> elementCount() const;
    /// Bytes of a static tensor type (elements × dtype width); for tuples the sum of the fields.
    [[nodiscard]] std::optional<std::int64_t> byteSize() const;
    /// The field of a tuple type, or Unknown when out of range or not a tuple.
    [[nodiscard]] const Type &field(std::size_t i) const;

    /// Prints the type as Relay does: `Tensor[(1, 3, 224, 224), float32]`, `float32`, `(A, B)`.
    [[nodiscard]] std::string toRelay() const;
    /// A short human form for badges: `1×64×56×56 float32`.
    [[nodiscard]] std::string toShortString() const;

    friend bool operator==(const Type &a, const Type &b) = default;
};

/// Bits of one element of `dtype` ("float32" → 32, "bool" → 8, "float32x4" → 128); nullopt for
/// unknown or custom dtypes.
std::optional<int> dtypeBits(const std::string &dtype);

} // namespace cleave
