// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The grouping behind fuseOps (FusionAnalysis.h); not for other callers.
#pragma once

#include "core/analysis/FusionAnalysis.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace cleave {

/// Groups the operators of one function into fused kernels as TVM's FuseOps does
/// (IndexedForwardGraph + DominatorTree + GraphPartitioner).
class FusionGrouper
{
public:
    /// No node, no group.
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    /// The op nothing fuses across, and that fused names leave out.
    static constexpr std::string_view stopFusionOp = "annotation.stop_fusion";
    /// Fuses as the `add` of its folded shift when FusionOptions::foldBatchNorm is set.
    static constexpr std::string_view batchNormOp = "nn.batch_norm";

    FusionGrouper(const Graph &graph, FunctionId f, const FusionOptions &options)
        : m_graph(graph)
        , m_function(f)
        , m_options(options)
        , m_patterns(options.patterns ? *options.patterns : OpPatternTable::builtin())
    {
    }

    std::vector<FusedBlock> run();

private:
    struct Edge
    {
        std::uint32_t node;
        OpPatternKind pattern;
    };
    struct Group
    {
        std::uint32_t parent = none;
        OpPatternKind pattern = OpPatternKind::Opaque;
        bool anchor = false;
        std::size_t numNodes = 1;
    };

    OpPatternKind opPattern(const Node &n) const;
    OpPatternKind nodePattern(const Node &n) const;
    void buildOrder();
    void buildForwardGraph();
    void buildPostDominators();
    std::uint32_t leastCommonAncestor(std::uint32_t a, std::uint32_t b,
                                      OpPatternKind &pattern) const;
    std::uint32_t findRoot(std::uint32_t g);
    void mergeFromTo(std::uint32_t child, std::uint32_t parent);
    template <typename Cond>
    bool checkPath(std::uint32_t src, std::uint32_t sink, Cond cond);
    void commitFuse(std::uint32_t src, std::uint32_t sink);
    bool fitsMaxDepth(std::uint32_t child, std::uint32_t domParent);
    void runFuse(int phase);
    /// The groups as blocks: members, root, pattern, name and signature (FusionAnalysis.cpp).
    std::vector<FusedBlock> collectBlocks();
    void nextVisit()
    {
        if (++m_epoch == 0) {
            std::fill(m_visited.begin(), m_visited.end(), 0);
            m_epoch = 1;
        }
    }

    const Graph &m_graph;
    FunctionId m_function;
    const FusionOptions &m_options;
    const OpPatternTable &m_patterns;

    std::vector<NodeId> m_order; // post-DFS order of the function's nodes
    std::vector<std::uint32_t> m_index; // NodeId → position in m_order, or none
    std::vector<OpPatternKind> m_pattern;
    std::vector<bool> m_extern;
    std::vector<std::vector<Edge>> m_outputs;
    std::vector<std::uint32_t> m_domParent;
    std::vector<std::uint32_t> m_domDepth;
    std::vector<OpPatternKind> m_domPattern;
    std::vector<Group> m_groups;
    std::vector<std::uint32_t> m_visited;
    std::uint32_t m_epoch = 0;
    std::vector<std::uint32_t> m_stack;
};

} // namespace cleave
