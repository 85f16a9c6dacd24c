// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace cleave {

/// A strongly typed index. `Tag` only distinguishes id kinds so that a NodeId cannot be passed
/// where a FunctionId is expected. A default-constructed id is invalid.
template <typename Tag>
struct TypedId
{
    static constexpr std::uint32_t invalidValue = std::numeric_limits<std::uint32_t>::max();

    std::uint32_t value = invalidValue;

    constexpr TypedId() = default;
    constexpr explicit TypedId(std::uint32_t v)
        : value(v)
    {
    }
    constexpr explicit TypedId(std::size_t v)
        : value(static_cast<std::uint32_t>(v))
    {
    }

    [[nodiscard]] constexpr bool isValid() const { return value != invalidValue; }
    [[nodiscard]] constexpr std::size_t index() const { return value; }

    friend constexpr bool operator==(TypedId a, TypedId b) = default;
    friend constexpr auto operator<=>(TypedId a, TypedId b)
        = default; // NOLINT(modernize-use-nullptr): tidy 14 misreads the defaulted <=>
};

struct NodeIdTag;
struct FunctionIdTag;
struct PartitionIdTag;

/// Identifies a node of a Graph (index into Graph::nodes()).
using NodeId = TypedId<NodeIdTag>;
/// Identifies a function of a Graph (index into Graph::functions()).
using FunctionId = TypedId<FunctionIdTag>;
/// Identifies a partition of a partition plan.
using PartitionId = TypedId<PartitionIdTag>;

/// One output of a node: the unit of data that flows along an edge. Relay nodes have exactly one
/// output (possibly of tuple type); graph.json kernels may have several.
struct TensorRef
{
    NodeId node;
    std::uint32_t output = 0;

    [[nodiscard]] constexpr bool isValid() const { return node.isValid(); }
    friend constexpr bool operator==(TensorRef a, TensorRef b) = default;
    friend constexpr auto operator<=>(TensorRef a, TensorRef b)
        = default; // NOLINT(modernize-use-nullptr): tidy 14 misreads the defaulted <=>
};

/// One use of a tensor: the consumer node and which of its inputs it is.
struct Use
{
    NodeId consumer;
    std::uint32_t input = 0;

    friend constexpr bool operator==(Use a, Use b) = default;
};

/// Identifies one edge of a function: `tensor` read by `consumer` (one edge per pair, however
/// many inputs of the consumer read the tensor). Cut lines, plans, validation and the layout all
/// name edges this way.
struct EdgeRef
{
    TensorRef tensor;
    NodeId consumer;

    friend constexpr bool operator==(EdgeRef a, EdgeRef b) = default;
    friend constexpr auto operator<=>(EdgeRef a, EdgeRef b)
        = default; // NOLINT(modernize-use-nullptr): tidy 14 misreads the defaulted <=>
};

} // namespace cleave

template <typename Tag>
struct std::hash<cleave::TypedId<Tag>>
{
    std::size_t operator()(cleave::TypedId<Tag> id) const noexcept { return id.value; }
};

template <>
struct std::hash<cleave::TensorRef>
{
    std::size_t operator()(cleave::TensorRef t) const noexcept
    {
        return (static_cast<std::size_t>(t.node.value) << 8U) ^ t.output;
    }
};
