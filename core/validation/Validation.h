// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The partition validation rules (docs/DESIGN.md §4): one free function per rule, each returning
// all of its findings. Codes are stable; messages quote the numbers.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace cleave {

class LatencyTable;

/// The operators a target supports, from an op-support list file:
/// `{"target": "dnnl", "ops": ["nn.conv2d", ...]}` (or a JSON array of such objects).
struct OpSupportList
{
    std::string target;
    std::unordered_set<std::string> ops;
};

/// Parses an op-support list; problems become diagnostics naming `path` (code `opsupport.*`).
std::vector<OpSupportList> parseOpSupport(const std::string &jsonText, const std::string &path,
                                          std::vector<Diagnostic> &diagnostics);

/// Reads and parses an op-support list file; an unreadable file is an `opsupport.unreadable`
/// error.
std::vector<OpSupportList> loadOpSupportFile(const std::string &path,
                                             std::vector<Diagnostic> &diagnostics);

/// What validateAll checks beyond the always-on rules.
struct ValidationOptions
{
    std::vector<OpSupportList> opSupport; ///< Empty: target support is not checked.
    /// Measured latencies; when set, checkBalance reports the pipeline's bottleneck. Must
    /// outlive the call.
    const LatencyTable *latency = nullptr;
    /// Global inputs the user marks as parameters (weights), by name.
    std::vector<std::string> params;
    /// True when the module writer chosen for the model can forward a value of any type
    /// (tuples, shapes, objects) from one module to another: Relax modules return and take
    /// any value, while the pipeline executor's config carries only tensors. Set it from the
    /// writer (`applyWriterCapabilities` in core/formats); false is the pipeline executor's rule.
    bool forwardsAnyValue = false;
};

/// `partition.unassigned` (error): operator nodes with no partition, or one that does not exist.
/// (A plan holds one partition per node, so nodes cannot be doubly assigned in memory; a plan
/// file listing a node twice gets `plan.doubly_assigned` when it is loaded.)
std::vector<Diagnostic> checkAssignment(const PartitionPlan &plan);
/// `partition.empty` (error): partitions without nodes.
std::vector<Diagnostic> checkEmptyPartitions(const PartitionPlan &plan);
/// `partition.cycle` (error, one witness cycle per strongly connected group of partitions,
/// given as the boundary edges around it) and `partition.order` (error: a partition feeds an
/// earlier one although the partitions could be ordered).
std::vector<Diagnostic> checkPartitionCycles(const PartitionPlan &plan,
                                             const BoundaryTable &boundary);
/// `partition.nonconvex` (error): a path leaves a partition and re-enters it (the witness path).
/// Only partitions on a cycle can be non-convex, so this is linear on valid plans.
std::vector<Diagnostic> checkConvexity(const PartitionPlan &plan, const BoundaryTable &boundary);
/// `partition.disconnected` (warning): a partition made of several unconnected pieces.
std::vector<Diagnostic> checkConnectivity(const PartitionPlan &plan);
/// Global inputs read by several partitions. Weights (weightInputs, plus the inputs named in
/// `params`) are parameters fed to each module through param_connection: no finding.
/// `pipeline.routed_input` (info): a value the export forwards through its first reader (an
/// extra output of that module): any tensor, and any value at all when `forwardsAnyValue` (the
/// writer can route tuples and objects). `pipeline.shared_global_input` (error): a value that
/// nothing can forward (a tuple or ADT input under the pipeline executor). Both offer the
/// `mark_params` fix.
std::vector<Diagnostic> checkSharedGlobalInputs(const PartitionPlan &plan,
                                                const std::vector<std::string> &params = {},
                                                bool forwardsAnyValue = false);
/// `partition.tuple_crossing` (warning): a tuple value crosses a cut; its fields cross instead.
std::vector<Diagnostic> checkTupleCrossings(const PartitionPlan &plan,
                                            const BoundaryTable &boundary);
/// `partition.implied_edge` (warning): a boundary edge between two partitions that a cut line
/// separated, which the line itself did not cross (a skip connection, a second branch).
std::vector<Diagnostic> checkImpliedEdges(const PartitionPlan &plan, const BoundaryTable &boundary);
/// `partition.duplicated_constant` (info): a constant used by several partitions, with bytes.
std::vector<Diagnostic> checkDuplicatedConstants(const PartitionPlan &plan);
/// Values computed from weights only (WeightFollowers) that later stages read too. They sit
/// with their first consumer; the other readers compute them again when that is cheaper than
/// the transfer (`partition.weight_duplicated`, info: the nodes, FLOPs and bytes saved), else
/// the value is sent (`partition.weight_crossing`, warning, with the bytes).
std::vector<Diagnostic> checkWeightCrossings(const PartitionPlan &plan,
                                             const BoundaryTable &boundary);
/// `target.unsupported_op` (error): an op its partition's target does not support, for targets
/// that have an op-support list.
std::vector<Diagnostic> checkTargetSupport(const PartitionPlan &plan,
                                           const std::vector<OpSupportList> &opSupport);
/// `cost.balance` (info): with a latency table, each partition's share of the total and the
/// bottleneck stage that bounds the pipeline's throughput; `cost.latency_missing` (warning):
/// operator nodes the table has no entry for (counted as 0), by op name.
std::vector<Diagnostic> checkBalance(const PartitionPlan &plan, const BoundaryTable &boundary,
                                     const LatencyTable &latency);
/// `partition.boundary` (info): per pair of partitions, how many tensors and bytes cross.
std::vector<Diagnostic> summarizeBoundary(const PartitionPlan &plan, const BoundaryTable &boundary);

/// Runs every rule and keeps every finding (rule order, then the rule's own order).
std::vector<Diagnostic> validateAll(const PartitionPlan &plan, const BoundaryTable &boundary,
                                    const ValidationOptions &options = {});
/// Same, computing the boundary first.
std::vector<Diagnostic> validateAll(const PartitionPlan &plan,
                                    const ValidationOptions &options = {});

} // namespace cleave
