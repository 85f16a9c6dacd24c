// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/SplitSolvers.h"
#include "core/support/Saturating.h"

#include <queue>

#include <algorithm>
#include <cmath>
#include <utility>

namespace cleave::autosplit {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

/// 128-bit sums of 64-bit byte counts (GCC and clang; __extension__ keeps -Wpedantic quiet).
__extension__ using Wide = __int128;

/// A Fenwick tree over reader positions of the bytes and the number of tensors keyed there
/// (1-based: entry q covers position q - 1), so that a prefix up to j sums positions < j.
struct KeyedTensors
{
    std::vector<Wide> bytes;
    std::vector<std::int64_t> count;
    std::size_t size = 0;

    void reset(std::size_t n)
    {
        size = n;
        bytes.assign(n + 1, 0);
        count.assign(n + 1, 0);
    }

    void add(std::size_t position, std::int64_t b, int sign)
    {
        for (std::size_t q = position + 1; q <= size; q += q & (~q + 1)) {
            bytes[q] += sign > 0 ? Wide { b } : -Wide { b };
            count[q] += sign;
        }
    }

    /// The largest power of two not above size (the first step of a descent), 0 when empty.
    [[nodiscard]] std::size_t topStep() const
    {
        std::size_t step = 1;
        while (step * 2 <= size)
            step *= 2;
        return size == 0 ? 0 : step;
    }
};

class Bisection
{
public:
    Bisection(const SplitProblem &p, const std::vector<std::int32_t> &order)
        : m_p(p)
        , m_order(order)
        , m_n(order.size())
        , m_position(p.graph->unitCount(), 0)
    {
        const CostGraph &g = *p.graph;
        for (std::size_t q = 0; q < m_n; ++q)
            m_position[static_cast<std::size_t>(order[q])] = static_cast<std::int32_t>(q);
        for (std::size_t k = 0; k < p.stages; ++k) {
            const std::size_t d = p.deviceOf(k);
            if (std::find(m_devices.begin(), m_devices.end(), d) == m_devices.end())
                m_devices.push_back(d);
        }
        m_prefix.assign(g.deviceCount(), {});
        for (std::size_t d : m_devices) {
            m_prefix[d].assign(m_n + 1, 0.0);
            for (std::size_t q = 0; q < m_n; ++q)
                m_prefix[d][q + 1]
                    = m_prefix[d][q] + g.timeUs(d, static_cast<std::size_t>(order[q]));
        }
        m_cut = cutBytes();
        m_readerPositions.resize(g.tensors().size());
        for (std::size_t t = 0; t < g.tensors().size(); ++t) {
            for (std::int32_t c : g.tensors()[t].consumers)
                m_readerPositions[t].push_back(m_position[static_cast<std::size_t>(c)]);
            std::sort(m_readerPositions[t].begin(), m_readerPositions[t].end());
        }
        m_next.assign(g.tensors().size(), 0);
    }

    /// The smallest bottleneck over contiguous K-splits of the order, to a relative 1e-6 (the
    /// split is then evaluated exactly: its stages are what the answer reports), or
    /// infinity when even `upper` is not reachable.
    double optimum(double lower, double upper, bool boundFromOrder)
    {
        if (!std::isfinite(upper))
            upper = totalCost();
        // The bound may be a baseline's value from CostGraph::evaluate, whose sums round
        // differently: the same slack as the dynamic program's, so that it is met.
        upper = upper * (1 + 1e-9) + 1e-9;
        if (!feasible(upper))
            return infinity;
        // A bound another order reached: unless this order beats it by more than the precision,
        // one check decides (the other orders of searchStages cost one pass, not a search).
        if (boundFromOrder && !feasible(upper * (1 - 1e-6)))
            return infinity;
        lower = std::max(0.0, std::min(lower, upper));
        // The optimum is at most `upper` and at least `lower`: halve the gap between them.
        for (int i = 0; i < 200 && upper - lower > 1e-6 * upper + 1e-9; ++i) {
            const double mid = lower + (upper - lower) / 2;
            if (feasible(mid))
                upper = mid;
            else
                lower = mid;
        }
        return upper;
    }

    /// A split with every stage at most `bound` whose cuts carry the fewest bytes (each cut
    /// counted with the tensors live across it), or an empty one when none exists.
    [[nodiscard]] std::vector<std::int32_t> split(double bound)
    {
        reachEnds(bound);
        const std::size_t stages = m_p.stages;
        // best[k][j]: fewest cut bytes of k stages covering [0, j); from[k][j] the start of the
        // last one. A start i serves ends (i, maxEnd(i)]: a heap of the live starts by cost.
        std::vector<std::vector<std::int64_t>> best(
            stages + 1,
            std::vector<std::int64_t>(m_n + 1, std::numeric_limits<std::int64_t>::max()));
        std::vector<std::vector<std::int32_t>> from(stages + 1,
                                                    std::vector<std::int32_t>(m_n + 1, -1));
        best[0][0] = 0;
        for (std::size_t k = 1; k <= stages; ++k) {
            const std::vector<std::size_t> &maxEnd = m_maxEnd[m_p.deviceOf(k - 1)];
            using Entry = std::pair<std::int64_t, std::size_t>; // cost, start
            std::priority_queue<Entry, std::vector<Entry>, std::greater<>> live;
            for (std::size_t j = 1; j <= m_n; ++j) {
                const std::size_t i = j - 1;
                if (best[k - 1][i] != std::numeric_limits<std::int64_t>::max() && maxEnd[i] > i)
                    live.emplace(satAdd(best[k - 1][i], i == 0 ? 0 : m_cut[i]), i);
                while (!live.empty() && maxEnd[live.top().second] < j)
                    live.pop();
                if (!live.empty()) {
                    best[k][j] = live.top().first;
                    from[k][j] = static_cast<std::int32_t>(live.top().second);
                }
            }
        }
        std::vector<std::int32_t> stageOf;
        if (from[stages][m_n] < 0)
            return stageOf;
        stageOf.assign(m_p.graph->unitCount(), -1);
        std::size_t end = m_n;
        for (std::size_t k = stages; k > 0; --k) {
            const auto start = static_cast<std::size_t>(from[k][end]);
            for (std::size_t q = start; q < end; ++q)
                stageOf[static_cast<std::size_t>(m_order[q])] = static_cast<std::int32_t>(k - 1);
            end = start;
        }
        return stageOf;
    }

    /// The fewest stages, at most K, that cover the order with each at most `bound` (K + 1 when
    /// even K do not).
    std::size_t fewestStages(double bound)
    {
        std::size_t fewest = m_p.stages + 1;
        (void)feasible(bound, &fewest);
        return fewest;
    }

private:
    /// Whether K stages, each at most `bound`, cover the order; `fewest`, when given, gets the
    /// first layer that covers it.
    bool feasible(double bound, std::size_t *fewest = nullptr)
    {
        reachEnds(bound);
        // reach: the positions k stages can end at; a start i reaches (i, maxEnd(i)].
        std::vector<char> reach(m_n + 1, 0);
        std::vector<char> next(m_n + 1, 0);
        reach[0] = 1;
        for (std::size_t k = 1; k <= m_p.stages; ++k) {
            const std::vector<std::size_t> &maxEnd = m_maxEnd[m_p.deviceOf(k - 1)];
            std::fill(next.begin(), next.end(), 0);
            std::size_t covered = 0; // every j <= covered is reachable from a start seen so far
            for (std::size_t j = 1; j <= m_n; ++j) {
                if (reach[j - 1])
                    covered = std::max(covered, maxEnd[j - 1]);
                next[j] = covered >= j ? 1 : 0;
            }
            std::swap(reach, next);
            if (fewest != nullptr && reach[m_n] != 0 && *fewest > k)
                *fewest = k;
        }
        return reach[m_n] != 0;
    }

    /// For every device used and every start i, the largest end j with cost(i, j) <= bound
    /// (i when not even one unit fits). A stage [i, j) receives every tensor produced before i
    /// whose first reader at or after i is before j: with each such tensor keyed by that reader
    /// in a Fenwick tree (bytes and count), the transfer-in of [i, j) is a prefix sum, and the
    /// largest j is found by descending the tree, compute time read from the prefix sums along
    /// the way (both grow with j). Moving i past a unit re-keys the tensors it read and adds the
    /// ones it made: O((N + E) log N) per bound.
    void reachEnds(double bound)
    {
        m_maxEnd.assign(m_p.graph->deviceCount(), {});
        const CostGraph &g = *m_p.graph;
        const LinkSpec &link = g.link();
        const double usPerByte = 1e6 / link.bytesPerSecond;
        for (std::size_t d : m_devices) {
            std::vector<std::size_t> &maxEnd = m_maxEnd[d];
            maxEnd.assign(m_n, 0);
            const std::vector<double> &prefix = m_prefix[d];
            m_keyed.reset(m_n);
            std::fill(m_next.begin(), m_next.end(), 0);
            for (std::size_t i = 0; i < m_n; ++i) {
                if (i > 0)
                    advancePast(i - 1);
                // Descend: the largest j whose cost is within the bound.
                const double limit = bound + prefix[i];
                std::size_t pos = 0;
                Wide bytes = 0;
                std::int64_t count = 0;
                for (std::size_t step = m_keyed.topStep(); step > 0; step >>= 1) {
                    const std::size_t next = pos + step;
                    if (next > m_n)
                        continue;
                    const Wide b = bytes + m_keyed.bytes[next];
                    const std::int64_t c = count + m_keyed.count[next];
                    const double cost = prefix[next] + static_cast<double>(b) * usPerByte
                        + static_cast<double>(c) * link.latencyUs;
                    if (cost <= limit) {
                        pos = next;
                        bytes = b;
                        count = c;
                    }
                }
                maxEnd[i] = pos > i ? pos : i;
            }
        }
    }

    /// The start moves past position p: the tensors unit p read (produced before it) are keyed
    /// by their next reader, or leave the tree; the tensors p made join it.
    void advancePast(std::size_t p)
    {
        const CostGraph &g = *m_p.graph;
        const auto u = static_cast<std::size_t>(m_order[p]);
        for (std::int32_t t : g.inputsOf(u)) {
            const auto ti = static_cast<std::size_t>(t);
            const std::int32_t producer = g.tensors()[ti].producer;
            if (producer < 0
                || static_cast<std::size_t>(m_position[static_cast<std::size_t>(producer)]) >= p)
                continue;
            const std::vector<std::int32_t> &readers = m_readerPositions[ti];
            std::size_t &k = m_next[ti];
            if (k < readers.size() && static_cast<std::size_t>(readers[k]) == p) {
                m_keyed.add(p, g.tensors()[ti].bytes, -1);
                ++k;
                if (k < readers.size())
                    m_keyed.add(static_cast<std::size_t>(readers[k]), g.tensors()[ti].bytes, +1);
            }
        }
        for (std::int32_t t : g.outputsOf(u)) {
            const auto ti = static_cast<std::size_t>(t);
            const std::vector<std::int32_t> &readers = m_readerPositions[ti];
            std::size_t &k = m_next[ti];
            while (k < readers.size() && static_cast<std::size_t>(readers[k]) <= p)
                ++k;
            if (k < readers.size())
                m_keyed.add(static_cast<std::size_t>(readers[k]), g.tensors()[ti].bytes, +1);
        }
    }

    /// The whole order as one stage on the slowest device: a bound every split meets.
    [[nodiscard]] double totalCost() const
    {
        double worst = 0;
        for (std::size_t d : m_devices)
            worst = std::max(worst, m_prefix[d][m_n]);
        double transfers = 0;
        for (const CostTensor &t : m_p.graph->tensors())
            transfers += m_p.graph->link().transferUs(t.bytes);
        return worst + transfers + 1;
    }

    /// Per position q: the bytes of the tensors produced before q and read at q or later (what
    /// a cut before q sends; 128-bit sums, saturated when stored).
    [[nodiscard]] std::vector<std::int64_t> cutBytes() const
    {
        std::vector<Wide> delta(m_n + 2, 0);
        for (const CostTensor &t : m_p.graph->tensors()) {
            if (t.producer < 0 || t.consumers.empty())
                continue;
            const std::size_t from
                = static_cast<std::size_t>(m_position[static_cast<std::size_t>(t.producer)]) + 1;
            std::size_t last = 0;
            for (std::int32_t c : t.consumers)
                last = std::max(last,
                                static_cast<std::size_t>(m_position[static_cast<std::size_t>(c)]));
            if (last >= from) {
                delta[from] += t.bytes;
                delta[last + 1] -= t.bytes;
            }
        }
        std::vector<std::int64_t> cut(m_n + 1, 0);
        Wide running = 0;
        for (std::size_t q = 0; q <= m_n; ++q) {
            running += delta[q];
            cut[q] = running > saturatedCount
                ? saturatedCount
                : static_cast<std::int64_t>(std::max<Wide>(running, 0));
        }
        return cut;
    }

    const SplitProblem &m_p;
    const std::vector<std::int32_t> &m_order;
    std::size_t m_n;
    std::vector<std::int32_t> m_position;
    std::vector<std::size_t> m_devices; ///< The devices the stages run on, each once.
    std::vector<std::vector<double>> m_prefix; ///< Per device: compute time of order[0, q).
    std::vector<std::vector<std::size_t>> m_maxEnd; ///< Per device, per start (reachEnds).
    /// Per tensor: the positions of its readers, ascending, and the index of the next one.
    std::vector<std::vector<std::int32_t>> m_readerPositions;
    std::vector<std::size_t> m_next;
    KeyedTensors m_keyed;
    std::vector<std::int64_t> m_cut;
};

} // namespace

std::optional<SplitAnswer> solveOrderByBisection(const SplitProblem &problem,
                                                 const std::vector<std::int32_t> &order)
{
    if (order.size() < problem.stages || problem.stages == 0)
        return std::nullopt;
    Bisection search(problem, order);
    const double optimum
        = search.optimum(problem.lowerBound, problem.upperBound, problem.boundFromOrder);
    if (optimum == infinity)
        return std::nullopt;
    SplitAnswer a;
    a.stageOf = search.split(optimum);
    if (a.stageOf.empty())
        return std::nullopt;
    // The value the dynamic program would report: the largest stage cost as it counts them
    // (compute plus transfer-in: CostGraph::evaluate's time without the device's fixed run
    // overhead), at most `optimum`; and the bytes the stages receive.
    for (const StageCost &s : problem.graph->evaluate(a.stageOf, problem.stages)) {
        a.value = std::max(a.value, s.computeUs + s.transferInUs);
        a.bytes = satAdd(a.bytes, s.bytesIn);
    }
    a.fewestStages = search.fewestStages(a.value * (1 + 1e-9) + 1e-9);
    return a;
}

} // namespace cleave::autosplit
