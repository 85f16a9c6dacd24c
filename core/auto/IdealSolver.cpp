// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/SplitSolvers.h"
#include "core/support/Saturating.h"

#include <algorithm>
#include <bit>
#include <string>
#include <unordered_map>

namespace cleave::autosplit {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

/// Every downset (set of units closed under predecessors) of the unit graph, as bitsets,
/// listed by size (breadth-first from the empty set).
class Ideals
{
public:
    Ideals(const CostGraph &g, std::size_t cap)
        : m_words((g.unitCount() + 63) / 64)
    {
        const std::size_t n = g.unitCount();
        std::vector<std::vector<std::int32_t>> preds(n);
        for (std::size_t u = 0; u < n; ++u) {
            for (std::int32_t t : g.inputsOf(u))
                preds[u].push_back(g.tensors()[static_cast<std::size_t>(t)].producer);
        }
        std::unordered_map<std::string, std::size_t> index;
        add(std::vector<std::uint64_t>(m_words, 0), index);
        for (std::size_t i = 0; i < count() && !overflow; ++i) {
            for (std::size_t u = 0; u < n && !overflow; ++u) {
                if (has(i, u))
                    continue;
                const bool ready
                    = std::all_of(preds[u].begin(), preds[u].end(), [&](std::int32_t p) {
                          return has(i, static_cast<std::size_t>(p));
                      });
                if (!ready)
                    continue;
                std::vector<std::uint64_t> next(bits(i), bits(i) + m_words);
                next[u / 64] |= std::uint64_t { 1 } << (u % 64);
                add(std::move(next), index);
                overflow = count() > cap;
            }
        }
    }

    bool overflow = false;

    [[nodiscard]] std::size_t count() const { return m_sizes.size(); }
    [[nodiscard]] const std::uint64_t *bits(std::size_t i) const { return &m_bits[i * m_words]; }
    [[nodiscard]] bool has(std::size_t i, std::size_t u) const
    {
        return (bits(i)[u / 64] >> (u % 64)) & 1U;
    }
    [[nodiscard]] std::size_t size(std::size_t i) const { return m_sizes[i]; }
    [[nodiscard]] bool subset(std::size_t a, std::size_t b) const
    {
        for (std::size_t w = 0; w < m_words; ++w) {
            if (bits(a)[w] & ~bits(b)[w])
                return false;
        }
        return true;
    }

private:
    void add(std::vector<std::uint64_t> set, std::unordered_map<std::string, std::size_t> &index)
    {
        std::string key(reinterpret_cast<const char *>(set.data()), set.size() * 8);
        if (!index.emplace(std::move(key), count()).second)
            return;
        std::size_t size = 0;
        for (std::uint64_t w : set)
            size += static_cast<std::size_t>(std::popcount(w));
        m_sizes.push_back(size);
        m_bits.insert(m_bits.end(), set.begin(), set.end());
    }

    std::size_t m_words;
    std::vector<std::uint64_t> m_bits;
    std::vector<std::size_t> m_sizes;
};

/// Time, transfer bytes and memory of the stage b \ a on a device.
struct PairCost
{
    double time = 0;
    std::int64_t bytes = 0;
    std::int64_t memory = 0;
};

class IdealDp
{
public:
    IdealDp(const SplitProblem &p, const Ideals &ideals)
        : m_p(p)
        , m_g(*p.graph)
        , m_ideals(ideals)
        , m_inStage(m_g.unitCount(), 0)
        , m_stamp(m_g.tensors().size(), 0)
        , m_lastReader(m_g.tensors().size(), -1)
    {
        for (std::size_t t = 0; t < m_g.tensors().size(); ++t) {
            const CostTensor &ct = m_g.tensors()[t];
            if (!ct.globalOutput && !ct.consumers.empty())
                m_lastReader[t] = ct.consumers.back();
        }
        // Compute of every downset per device, for the cheap first filter.
        m_work.assign(m_g.deviceCount(), std::vector<double>(ideals.count(), 0.0));
        for (std::size_t d = 0; d < m_g.deviceCount(); ++d) {
            for (std::size_t i = 0; i < ideals.count(); ++i) {
                for (std::size_t u = 0; u < m_g.unitCount(); ++u) {
                    if (ideals.has(i, u))
                        m_work[d][i] += m_g.timeUs(d, u);
                }
            }
        }
    }

    /// Runs the DP; `bytesPass` minimises bytes with every stage within `bound`.
    bool run(double bound, bool bytesPass)
    {
        const std::size_t stageCount = m_p.stages;
        const std::size_t idealCount = m_ideals.count();
        const bool minMax
            = m_p.objective == StageObjective::Throughput || m_p.metric == Metric::Memory;
        const double slack = bound == infinity ? infinity : bound * (1 + 1e-9) + 1e-9;
        const double limit = bytesPass ? bound : slack;
        m_value.assign(stageCount + 1, std::vector<double>(idealCount, infinity));
        m_bytes.assign(
            stageCount + 1,
            std::vector<std::int64_t>(idealCount, std::numeric_limits<std::int64_t>::max()));
        m_from.assign(stageCount + 1, std::vector<std::int32_t>(idealCount, -1));
        m_value[0][0] = 0;
        m_bytes[0][0] = 0;
        const std::size_t full = idealCount - 1; // the largest downset is everything
        for (std::size_t k = 1; k <= stageCount; ++k) {
            const std::size_t device = m_p.deviceOf(k - 1);
            const auto &pairs = pairsOf(device, limit);
            for (std::size_t b = 1; b < idealCount; ++b) {
                if (k == stageCount && b != full)
                    continue;
                if (m_ideals.size(b) < k || m_g.unitCount() - m_ideals.size(b) < stageCount - k)
                    continue;
                for (const auto &[a, c] : pairs[b]) {
                    const double before = m_value[k - 1][static_cast<std::size_t>(a)];
                    if (before == infinity || before > limit)
                        continue;
                    const double cost
                        = m_p.metric == Metric::Memory ? static_cast<double>(c.memory) : c.time;
                    if (cost > limit)
                        continue;
                    const std::int64_t bytes
                        = satAdd(m_bytes[k - 1][static_cast<std::size_t>(a)], c.bytes);
                    const double value = minMax ? std::max(before, cost) : before + cost;
                    // Bytes saturate: a split moving "all" bytes still beats no split at all.
                    const bool better = bytesPass ? m_from[k][b] < 0 || bytes < m_bytes[k][b]
                                                  : value < m_value[k][b]
                            || (value == m_value[k][b] && !minMax && bytes < m_bytes[k][b]);
                    if (better) {
                        m_value[k][b] = value;
                        m_bytes[k][b] = bytes;
                        m_from[k][b] = a;
                    }
                }
            }
        }
        return m_value[stageCount][full] != infinity;
    }

    [[nodiscard]] SplitAnswer answer() const
    {
        SplitAnswer out;
        out.stageOf.assign(m_g.unitCount(), -1);
        std::size_t b = m_ideals.count() - 1;
        out.value = m_value[m_p.stages][b];
        out.bytes = m_bytes[m_p.stages][b];
        for (std::size_t k = m_p.stages; k > 0; --k) {
            const auto a = static_cast<std::size_t>(m_from[k][b]);
            for (std::size_t u = 0; u < m_g.unitCount(); ++u) {
                if (m_ideals.has(b, u) && !m_ideals.has(a, u))
                    out.stageOf[u] = static_cast<std::int32_t>(k - 1);
            }
            b = a;
        }
        return out;
    }

private:
    using PairList = std::vector<std::vector<std::pair<std::int32_t, PairCost>>>;

    /// For every downset b, the downsets a inside it whose stage b \ a fits the memory limit
    /// of `device` and (for time) whose compute alone stays within `limit`; built once per
    /// device with the first (loosest) limit, then reused by every layer and pass.
    const PairList &pairsOf(std::size_t device, double limit)
    {
        if (m_pairs.size() <= device)
            m_pairs.resize(device + 1);
        if (!m_pairs[device].empty())
            return m_pairs[device];
        PairList &pairs = m_pairs[device];
        pairs.resize(m_ideals.count());
        for (std::size_t b = 1; b < m_ideals.count(); ++b) {
            for (std::size_t a = 0; a < b; ++a) {
                if (m_ideals.size(a) >= m_ideals.size(b) || !m_ideals.subset(a, b))
                    continue;
                if (m_p.metric == Metric::Time && m_work[device][b] - m_work[device][a] > limit)
                    continue;
                const PairCost c = stageCost(a, b, device);
                if (c.memory <= m_p.memoryLimit[device])
                    pairs[b].emplace_back(static_cast<std::int32_t>(a), c);
            }
        }
        return pairs;
    }

    /// The stage b \ a evaluated as CostGraph::evaluate does (program order).
    PairCost stageCost(std::size_t a, std::size_t b, std::size_t device)
    {
        PairCost c;
        ++m_epoch;
        std::vector<std::size_t> &members = m_members;
        members.clear();
        for (std::size_t u = 0; u < m_g.unitCount(); ++u) {
            const bool in = m_ideals.has(b, u) && !m_ideals.has(a, u);
            m_inStage[u] = in ? m_epoch : 0;
            if (in)
                members.push_back(u);
        }
        std::int64_t params = 0;
        std::int64_t held = 0;
        std::int64_t peak = 0;
        for (std::size_t u : members) {
            c.time += m_g.timeUs(device, u);
            params = satAdd(params, m_g.units()[u].paramBytes);
            for (std::int32_t t : m_g.inputsOf(u)) {
                const CostTensor &ct = m_g.tensors()[static_cast<std::size_t>(t)];
                if (m_inStage[static_cast<std::size_t>(ct.producer)] != m_epoch
                    && m_stamp[static_cast<std::size_t>(t)] != m_epoch) {
                    m_stamp[static_cast<std::size_t>(t)] = m_epoch;
                    c.bytes = satAdd(c.bytes, ct.bytes);
                    c.time += m_g.link().transferUs(ct.bytes);
                }
            }
            held = satAdd(held, m_g.units()[u].activationBytes);
            peak = std::max(peak, held);
            for (std::int32_t t : dyingAt(u)) {
                const CostTensor &ct = m_g.tensors()[static_cast<std::size_t>(t)];
                if (m_inStage[static_cast<std::size_t>(ct.producer)] == m_epoch)
                    held = satRelease(held, ct.memoryBytes);
            }
        }
        c.memory = satAdd(satAdd(params, c.bytes), peak);
        return c;
    }

    std::span<const std::int32_t> dyingAt(std::size_t u)
    {
        if (m_dying.empty()) {
            m_dying.assign(m_g.unitCount(), {});
            for (std::size_t t = 0; t < m_lastReader.size(); ++t) {
                if (m_lastReader[t] >= 0)
                    m_dying[static_cast<std::size_t>(m_lastReader[t])].push_back(
                        static_cast<std::int32_t>(t));
            }
        }
        return m_dying[u];
    }

    const SplitProblem &m_p;
    const CostGraph &m_g;
    const Ideals &m_ideals;
    std::vector<std::uint32_t> m_inStage;
    std::vector<std::uint32_t> m_stamp;
    std::vector<std::int32_t> m_lastReader;
    std::vector<std::vector<std::int32_t>> m_dying;
    std::vector<std::size_t> m_members;
    std::uint32_t m_epoch = 0;
    std::vector<std::vector<double>> m_work;
    std::vector<PairList> m_pairs;
    std::vector<std::vector<double>> m_value;
    std::vector<std::vector<std::int64_t>> m_bytes;
    std::vector<std::vector<std::int32_t>> m_from;
};

} // namespace

std::optional<SplitAnswer> solveIdeals(const SplitProblem &problem, std::size_t cap,
                                       std::size_t &ideals, bool &feasible)
{
    feasible = false;
    ideals = 0;
    if (problem.graph->unitCount() + 1 > cap)
        return std::nullopt;
    const Ideals set(*problem.graph, cap);
    ideals = set.count();
    if (set.overflow)
        return std::nullopt;
    IdealDp dp(problem, set);
    if (!dp.run(problem.upperBound, false))
        return SplitAnswer {};
    feasible = true;
    SplitAnswer first = dp.answer();
    const bool minMax
        = problem.objective == StageObjective::Throughput || problem.metric == Metric::Memory;
    if (minMax && problem.metric == Metric::Time) {
        dp.run(first.value, true);
        SplitAnswer a = dp.answer();
        a.value = first.value;
        return a;
    }
    return first;
}

} // namespace cleave::autosplit
