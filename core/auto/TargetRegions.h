// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/auto/CostModel.h"
#include "core/partition/PartitionPlan.h"
#include "core/validation/Validation.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cleave {

/// What target-driven region search needs: op-support lists in priority order (an op goes to
/// the first target whose list accepts it), the fallback target for everything else, the
/// smallest region worth offloading, and what it takes to weigh a region's transfers against
/// its measured gain.
struct RegionOptions
{
    std::vector<OpSupportList> targets;
    std::string fallback = "llvm";
    std::size_t minRegionOps = 1;
    LinkSpec link;
    /// Measured latencies per target (not owned). A region is weighed only when both its
    /// target and the fallback have a table (or a rate below): gain = Σ fallback time − Σ
    /// target time over its nodes; a region whose transfers cost more stays on the fallback.
    std::map<std::string, const LatencyTable *> latency;
    double fallbackGflops = defaultFlopsRateGflops; ///< Fallback time where no table covers.
};

/// One region: a maximal convex group of nodes offered to one target.
struct Region
{
    std::string target;
    std::vector<NodeId> nodes; ///< Program order.
    std::size_t ops = 0;
};

/// Regions in a topological order, plus why regions went back to the fallback.
struct RegionResult
{
    std::vector<Region> regions;
    std::vector<std::string> notes;
};

/// Offers every op to the first target that supports it (Tuple and TupleGetItem follow their
/// producers), then grows regions the way MergeCompilerRegions does: two regions of one target
/// joined by an edge merge unless the union would not be convex (A → B → A with a direct A → A
/// edge stays three regions). Regions with fewer than `minRegionOps` ops, or whose transfers
/// cost more than their measured gain, return to the fallback, and regions are formed again.
RegionResult findTargetRegions(const FunctionView &view, const RegionOptions &options);

/// The plan of the regions: one partition per region (named `<target>_<i>`), in order.
PartitionPlan planFromRegions(const std::shared_ptr<const FunctionView> &view,
                              const RegionResult &regions);

} // namespace cleave
