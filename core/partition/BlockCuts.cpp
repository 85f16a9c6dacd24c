// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/BlockCuts.h"

#include <algorithm>
#include <cctype>

namespace cleave {

namespace {

/// Drops a trailing `_<digits>` (TVM's suffix for a repeated name), if any.
std::string_view withoutRepeatSuffix(std::string_view name)
{
    const std::size_t underscore = name.rfind('_');
    if (underscore == std::string_view::npos || underscore + 1 == name.size())
        return name;
    const bool digits = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(underscore) + 1,
                                    name.end(), [](char c) { return std::isdigit(c) != 0; });
    return digits ? name.substr(0, underscore) : name;
}

/// Cuts after each chosen block (indices into `blocks`): one group per block, everything
/// listed after it.
PlanEdit cutAfterChosen(PartitionPlan &plan, const std::vector<FusedBlock> &blocks,
                        std::vector<std::size_t> chosen)
{
    std::sort(chosen.begin(), chosen.end());
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    std::vector<std::vector<NodeId>> groups;
    for (std::size_t b : chosen) {
        std::vector<NodeId> later;
        for (std::size_t k = b + 1; k < blocks.size(); ++k)
            later.insert(later.end(), blocks[k].nodes.begin(), blocks[k].nodes.end());
        if (!later.empty())
            groups.push_back(std::move(later));
    }
    return plan.cutBeforeNodes(groups);
}

} // namespace

std::string shortBlockName(std::string_view name)
{
    if (name.starts_with("tvmgen_")) {
        const std::size_t fused = name.find("_fused_");
        if (fused != std::string_view::npos)
            name.remove_prefix(fused + 1);
    }
    if (name.starts_with("fused_"))
        name.remove_prefix(6);
    else if (name.starts_with("fuse_"))
        name.remove_prefix(5);
    std::string out(name);
    std::replace(out.begin(), out.end(), '.', '_');
    return out;
}

bool blockNameMatches(std::string_view blockName, std::string_view query)
{
    const std::string block = shortBlockName(blockName);
    const std::string wanted = shortBlockName(query);
    if (wanted.empty())
        return false;
    return block == wanted || withoutRepeatSuffix(block) == wanted;
}

PlanEdit cutAfterBlocks(PartitionPlan &plan, const std::vector<FusedBlock> &blocks,
                        const std::vector<BlockSplitPoint> &points)
{
    std::vector<std::size_t> chosen;
    std::vector<Diagnostic> problems;
    for (const BlockSplitPoint &point : points) {
        std::size_t seen = 0;
        bool found = false;
        for (std::size_t b = 0; b < blocks.size() && !found; ++b) {
            if (!blockNameMatches(blocks[b].name, point.name))
                continue;
            if (seen == point.index) {
                chosen.push_back(b);
                found = true;
            }
            ++seen;
        }
        if (!found) {
            problems.push_back(Diagnostic::make(
                Severity::Error, "cut.split_point_not_found",
                "no block " + point.name + ":" + std::to_string(point.index) + ": the function has "
                    + std::to_string(seen) + " block(s) named " + shortBlockName(point.name)));
        }
    }
    if (!problems.empty()) {
        PlanEdit refused;
        refused.diagnostics = std::move(problems);
        return refused;
    }
    return cutAfterChosen(plan, blocks, std::move(chosen));
}

PlanEdit cutAfterBlock(PartitionPlan &plan, const std::vector<FusedBlock> &blocks,
                       std::size_t index)
{
    if (index >= blocks.size()) {
        PlanEdit refused;
        refused.diagnostics.push_back(
            Diagnostic::make(Severity::Error, "cut.split_point_not_found",
                             "no block " + std::to_string(index) + ": the function has "
                                 + std::to_string(blocks.size()) + " block(s)"));
        return refused;
    }
    return cutAfterChosen(plan, blocks, { index });
}

} // namespace cleave
