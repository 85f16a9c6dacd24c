// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/partition/PartitionPlan.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// A split point at the level of fused kernels: cut after the `index`-th (0-based) block, in
/// program order, whose fused name answers to `name` (`--cut-after-block nn_conv2d_relu:2`).
struct BlockSplitPoint
{
    std::string name;
    std::size_t index = 0;
};

/// True when the block name `blockName` answers to what a user typed. Both sides drop the
/// `tvmgen_<module>_` and `fused_` / `fuse_` prefixes and read `.` as `_`, so
/// `nn_conv2d_add_nn_relu`, `fused_nn_conv2d_add_nn_relu` and
/// `tvmgen_default_fused_nn_conv2d_add_nn_relu` all name the same kernel. A query without a
/// repeat suffix also matches the `_1`, `_2` variants TVM gives structurally different blocks
/// of one name; a query with the suffix (`add_1`) matches only that variant.
bool blockNameMatches(std::string_view blockName, std::string_view query);

/// The short form of a block name: without `tvmgen_<module>_` and `fused_` prefixes.
std::string shortBlockName(std::string_view blockName);

/// Cuts `plan` after the given blocks. `blocks` are the fused blocks of the plan's function in
/// program order (as fuseOps() lists them). Everything in the blocks up to and including the
/// chosen one stays in the earlier partition; the blocks after it, with all their descendants,
/// move to a new partition placed right after, exactly as PartitionPlan::cutBeforeNodes does.
/// Because blocks are single-output and listed in a topological order of the block graph, the
/// earlier part is closed under ancestors and no block is ever split. A point that names no
/// block gives a `cut.split_point_not_found` error and nothing changes.
PlanEdit cutAfterBlocks(PartitionPlan &plan, const std::vector<FusedBlock> &blocks,
                        const std::vector<BlockSplitPoint> &points);

/// Cuts `plan` after block `index` of `blocks` (the editor's *Cut After This Block*), as
/// cutAfterBlocks does for a named point: the blocks after it and their descendants move to a
/// new partition. An index past the last block gives a `cut.split_point_not_found` error.
PlanEdit cutAfterBlock(PartitionPlan &plan, const std::vector<FusedBlock> &blocks,
                       std::size_t index);

} // namespace cleave
