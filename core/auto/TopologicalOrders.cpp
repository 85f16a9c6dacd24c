// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/SplitSolvers.h"

#include <algorithm>

namespace cleave::autosplit {

namespace {

/// Successor units and in-degrees of the unit graph.
struct UnitDag
{
    std::vector<std::vector<std::int32_t>> succ;
    std::vector<std::int32_t> indegree;

    explicit UnitDag(const CostGraph &g)
        : succ(g.unitCount())
        , indegree(g.unitCount(), 0)
    {
        for (const CostTensor &t : g.tensors()) {
            for (std::int32_t c : t.consumers)
                succ[static_cast<std::size_t>(t.producer)].push_back(c);
        }
        for (auto &s : succ) {
            std::sort(s.begin(), s.end());
            s.erase(std::unique(s.begin(), s.end()), s.end());
            for (std::int32_t c : s)
                ++indegree[static_cast<std::size_t>(c)];
        }
    }
};

} // namespace

std::vector<std::int32_t> programOrder(const CostGraph &graph)
{
    std::vector<std::int32_t> order(graph.unitCount());
    for (std::size_t u = 0; u < order.size(); ++u)
        order[u] = static_cast<std::int32_t>(u);
    return order;
}

std::vector<std::int32_t> branchOrder(const CostGraph &graph)
{
    UnitDag dag(graph);
    std::vector<std::int32_t> stack;
    for (std::size_t u = graph.unitCount(); u-- > 0;) {
        if (dag.indegree[u] == 0)
            stack.push_back(static_cast<std::int32_t>(u));
    }
    std::vector<std::int32_t> order;
    order.reserve(graph.unitCount());
    while (!stack.empty()) {
        const std::int32_t u = stack.back();
        stack.pop_back();
        order.push_back(u);
        // Push in reverse so that the first successor made ready runs next: a branch is
        // followed to its join before the next branch starts.
        const auto &s = dag.succ[static_cast<std::size_t>(u)];
        for (std::size_t i = s.size(); i-- > 0;) {
            if (--dag.indegree[static_cast<std::size_t>(s[i])] == 0)
                stack.push_back(s[i]);
        }
    }
    return order;
}

std::vector<std::int32_t> minLiveOrder(const CostGraph &graph)
{
    UnitDag dag(graph);
    std::vector<std::int32_t> pending(graph.tensors().size()); // readers not yet scheduled
    for (std::size_t t = 0; t < pending.size(); ++t)
        pending[t] = static_cast<std::int32_t>(graph.tensors()[t].consumers.size());
    std::vector<std::int32_t> ready;
    for (std::size_t u = 0; u < graph.unitCount(); ++u) {
        if (dag.indegree[u] == 0)
            ready.push_back(static_cast<std::int32_t>(u));
    }
    std::vector<std::int32_t> order;
    order.reserve(graph.unitCount());
    while (!ready.empty()) {
        // The ready unit that grows the live bytes least (ties: program order).
        std::size_t best = 0;
        std::int64_t bestDelta = std::numeric_limits<std::int64_t>::max();
        for (std::size_t r = 0; r < ready.size(); ++r) {
            const auto u = static_cast<std::size_t>(ready[r]);
            std::int64_t delta = graph.units()[u].activationBytes;
            for (std::int32_t t : graph.inputsOf(u)) {
                const CostTensor &ct = graph.tensors()[static_cast<std::size_t>(t)];
                if (pending[static_cast<std::size_t>(t)] == 1 && !ct.globalOutput)
                    delta -= ct.memoryBytes;
            }
            if (delta < bestDelta || (delta == bestDelta && ready[r] < ready[best])) {
                bestDelta = delta;
                best = r;
            }
        }
        const std::int32_t u = ready[best];
        ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
        order.push_back(u);
        for (std::int32_t t : graph.inputsOf(static_cast<std::size_t>(u)))
            --pending[static_cast<std::size_t>(t)];
        for (std::int32_t s : dag.succ[static_cast<std::size_t>(u)]) {
            if (--dag.indegree[static_cast<std::size_t>(s)] == 0)
                ready.push_back(s);
        }
    }
    return order;
}

} // namespace cleave::autosplit
