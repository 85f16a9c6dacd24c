// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/KernelMapping.h"
#include "core/graph/Diagnostic.h"
#include "core/partition/PartitionPlan.h"

#include <memory>
#include <optional>
#include <vector>

namespace cleave {

struct BlockGraph;

/// A plan carried from one level (graph.json kernels, Relay ops) to the other, with what the
/// conversion noticed.
struct PlanConversion
{
    std::optional<PartitionPlan> plan;
    std::vector<Diagnostic> diagnostics;
};

/// Carries a plan over the kernels of a graph.json to the Relay ops they were built from: each
/// matched kernel's ops join the kernel's partition (same names, targets and order), so a cut
/// between kernels becomes a cut between their op groups. Relay nodes no kernel accounts for
/// (projections, tuples, dropped or unmatched ops) follow their latest producer, or the first
/// partition when they read only inputs (warning `convert.unmatched`). `relay` must be the
/// graph `mapping` was computed against.
PlanConversion kernelPlanToRelay(const PartitionPlan &kernelPlan, const KernelMapping &mapping,
                                 const Graph &relay);

/// Carries a plan over Relay ops to the kernels of a graph.json: each matched kernel goes to
/// the partition of its Relay ops. A kernel whose ops lie in several partitions cannot be split
/// at kernel level: error `convert.split_kernel` naming the partitions (the kernel goes with
/// its output op). Unmatched kernels follow their latest producer (warning).
PlanConversion relayPlanToKernels(const PartitionPlan &relayPlan, const KernelMapping &mapping,
                                  const Graph &kernels);
/// The same over `kernels`, the kernels graph's main function viewed already (made once,
/// e.g. off the UI thread, it is the bulk of the work: every conversion of a plan at this level
/// can share it).
PlanConversion relayPlanToKernels(const PartitionPlan &relayPlan, const KernelMapping &mapping,
                                  std::shared_ptr<const FunctionView> kernels);

/// The same for the Fused Blocks level (`view` views blocks.graph's main function): each
/// kernel of `blocks` goes to the partition of its original nodes, as relayPlanToKernels()
/// does over blocks.mapping(), without making that mapping.
PlanConversion relayPlanToBlocks(const PartitionPlan &relayPlan, const BlockGraph &blocks,
                                 std::shared_ptr<const FunctionView> view);

} // namespace cleave
