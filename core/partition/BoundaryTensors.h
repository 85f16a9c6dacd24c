// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"
#include "core/graph/Type.h"
#include "core/partition/PartitionPlan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// The uses of one boundary tensor inside one consuming partition: the tensor enters the
/// partition once, as `inputName`, and is read there by `nodes` (program order).
struct BoundaryConsumer
{
    PartitionId partition;
    std::string inputName;
    std::vector<NodeId> nodes;
};

/// One tensor produced in one partition and consumed in at least one other: ONE entry per
/// tensor, never per use. When a tuple-typed value crosses, the boundary carries its fields:
/// `field` says which one (TupleGetItem consumers read their field, other consumers all fields).
struct BoundaryTensor
{
    TensorRef tensor;
    std::optional<std::uint32_t> field;
    PartitionId producerPartition;
    std::uint32_t outputIndex = 0; ///< Index among the producer partition's outputs.
    std::vector<BoundaryConsumer> consumers; ///< In plan order.
    Type type; ///< The tensor's (or the field's) type.
    std::optional<std::int64_t> bytes; ///< Bytes per inference, when the shape is static.
};

/// One input of a partition: a global input (keeps its source name) or a boundary tensor
/// (named `data_n_<k>`).
struct PartitionInput
{
    std::string name;
    NodeId globalInput; ///< Valid for global inputs.
    int boundary = -1; ///< Index into BoundaryTable::tensors for cut inputs.
};

/// One output of a partition: a boundary tensor, a global output of the function, or both.
struct PartitionOutput
{
    TensorRef tensor;
    std::optional<std::uint32_t> field;
    int boundary = -1; ///< Index into BoundaryTable::tensors, or -1.
    int globalOutput = -1; ///< Index among the function's outputs, or -1.
};

/// The signature of one partition, in the order an exporter emits it.
struct PartitionInterface
{
    PartitionId partition;
    std::vector<PartitionInput> inputs; ///< By first use in program order.
    std::vector<PartitionOutput> outputs; ///< By first reference (graph_split order).
    std::int64_t bytesIn = 0; ///< Boundary bytes entering (static shapes only; saturating).
    std::int64_t bytesOut = 0; ///< Boundary bytes leaving, counted once per tensor.
    /// Nodes of other partitions that this partition computes again instead of receiving their
    /// values (see ReplicatedValue), in program order. An exporter writes them into the module
    /// with the partition's own nodes; the weights they read are the module's global inputs.
    std::vector<NodeId> replicas;
};

/// A value computed from weights only (WeightFollowers) that later partitions read: instead of
/// sending it over a boundary, each of them computes it again from the weights, because that
/// costs less than the transfer (replicationIsCheaper) and the closure is `replicable`. Only
/// partitions on the producer's target do (another target, a BYOC region, may not support the
/// ops). `nodes` is the weight-only closure
/// the readers duplicate (the value's producer and the weight-only nodes it is computed from that
/// sit outside the reader, program order).
struct ReplicatedValue
{
    TensorRef tensor;
    PartitionId producerPartition;
    std::vector<PartitionId> readers; ///< The partitions that compute it again, plan order.
    std::vector<NodeId> nodes;
    std::int64_t flops = 0; ///< FLOPs of one copy of `nodes`.
    std::optional<std::int64_t> bytes; ///< What a transfer would have moved per reader.
};

/// True when recomputing `flops` on a stage costs less than receiving `bytes` over a link: at the
/// cost model's defaults (1 TFLOP/s, 10 GB/s plus 20 µs a transfer) that is
/// flops / 1e12 < bytes / 1e10 + 2e-5, so below 100 FLOPs per byte plus 2e7. The transposes,
/// reshapes, casts and concatenations of weights that frontends emit compute 0–1 FLOP per byte.
bool replicationIsCheaper(std::int64_t flops, std::optional<std::int64_t> bytes);

/// Every crossing tensor of a plan plus each partition's interface. Cut inputs are named
/// `data_n_<k>` with one counter across the plan, numbered in partition order, then by first
/// use; global inputs keep their names (without `%`). A partition's outputs are ordered as
/// graph_split orders them: by the first `data_n_<k>` they feed, then the global outputs.
struct BoundaryTable
{
    std::vector<BoundaryTensor> tensors; ///< By producer partition, then output index.
    std::vector<PartitionInterface> interfaces; ///< One per partition, in plan order.
    /// Weight-only values the reading partitions compute again instead of receiving them.
    std::vector<ReplicatedValue> replicated;

    /// The boundary entry of a tensor (and field), or nullptr.
    [[nodiscard]] const BoundaryTensor *find(TensorRef tensor,
                                             std::optional<std::uint32_t> field = {}) const;
};

/// Computes the boundary of a plan in O(nodes + edges) (plus the replicated closures). A value
/// computed from weights only that another partition reads does not cross when
/// replicationIsCheaper: the reader computes it again (ReplicatedValue, interface replicas).
BoundaryTable computeBoundary(const PartitionPlan &plan);

/// True when a weight-only closure may be computed again in another stage: no node has scopes
/// (If, Match) or calls a local closure (the recomposition check can merge neither back), and
/// none draws random numbers (drawsRandomNumbers) or is an impure `relax.call_packed` (each copy
/// would compute another value).
bool replicable(const Graph &graph, const std::vector<NodeId> &closure);

/// The nodes module `k` computes: the partition's own nodes and its replicas, in program order.
std::vector<NodeId> moduleNodes(const PartitionPlan &plan, const BoundaryTable &boundary,
                                std::size_t k);

/// The name a global input keeps in partition signatures: its source name without `%`.
std::string globalInputName(const Graph &graph, NodeId input);

} // namespace cleave
