// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/SplitSolvers.h"
#include "core/support/Saturating.h"

#include <algorithm>

namespace cleave::autosplit {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

/// The cost of the stage [start, end) of an order, grown one unit at a time. Extending a stage
/// never lowers its compute, its transfer-in (new readers can only add received tensors) nor
/// its memory, which is what makes the early stop of the dynamic program exact.
class SegmentSweep
{
public:
    SegmentSweep(const CostGraph &g, const std::vector<std::int32_t> &order)
        : m_g(g)
        , m_order(order)
        , m_position(g.unitCount(), 0)
        , m_stamp(g.tensors().size(), -1)
        , m_dying(g.unitCount())
    {
        for (std::size_t p = 0; p < order.size(); ++p)
            m_position[static_cast<std::size_t>(order[p])] = static_cast<std::int32_t>(p);
        for (std::size_t t = 0; t < g.tensors().size(); ++t) {
            const CostTensor &ct = g.tensors()[t];
            if (ct.globalOutput || ct.consumers.empty())
                continue;
            std::int32_t last = 0;
            for (std::int32_t c : ct.consumers)
                last = std::max(last, m_position[static_cast<std::size_t>(c)]);
            m_dying[static_cast<std::size_t>(last)].push_back(static_cast<std::int32_t>(t));
        }
    }

    void begin(std::int32_t start)
    {
        m_start = start;
        ++m_sweep;
        inUs = 0;
        inBytes = 0;
        m_params = 0;
        m_held = 0;
        m_peak = 0;
    }

    /// Adds the unit at position `p` (the next one).
    void add(std::int32_t p)
    {
        const auto u = static_cast<std::size_t>(m_order[static_cast<std::size_t>(p)]);
        for (std::int32_t t : m_g.inputsOf(u)) {
            const CostTensor &ct = m_g.tensors()[static_cast<std::size_t>(t)];
            if (m_position[static_cast<std::size_t>(ct.producer)] < m_start
                && m_stamp[static_cast<std::size_t>(t)] != m_sweep) {
                m_stamp[static_cast<std::size_t>(t)] = m_sweep;
                inBytes = satAdd(inBytes, ct.bytes);
                inUs += m_g.link().transferUs(ct.bytes);
            }
        }
        m_params = satAdd(m_params, m_g.units()[u].paramBytes);
        m_held = satAdd(m_held, m_g.units()[u].activationBytes);
        m_peak = std::max(m_peak, m_held);
        for (std::int32_t t : m_dying[static_cast<std::size_t>(p)]) {
            const CostTensor &ct = m_g.tensors()[static_cast<std::size_t>(t)];
            if (m_position[static_cast<std::size_t>(ct.producer)] >= m_start)
                m_held = satRelease(m_held, ct.memoryBytes);
        }
    }

    [[nodiscard]] std::int64_t memory() const { return satAdd(satAdd(m_params, inBytes), m_peak); }

    double inUs = 0;
    std::int64_t inBytes = 0;

private:
    const CostGraph &m_g;
    const std::vector<std::int32_t> &m_order;
    std::vector<std::int32_t> m_position;
    std::vector<std::int64_t> m_stamp;
    std::vector<std::vector<std::int32_t>> m_dying;
    std::int32_t m_start = 0;
    std::int64_t m_sweep = 0; ///< Stamps tensors counted by the current sweep.
    std::int64_t m_params = 0;
    std::int64_t m_held = 0;
    std::int64_t m_peak = 0;
};

/// One dynamic-program layer's table: best value and its split point per prefix length.
struct Layer
{
    std::vector<double> value;
    std::vector<std::int64_t> bytes;
    std::vector<std::int32_t> from;

    explicit Layer(std::size_t n)
        : value(n + 1, infinity)
        , bytes(n + 1, std::numeric_limits<std::int64_t>::max())
        , from(n + 1, -1)
    {
    }
};

class ContiguousDp
{
public:
    ContiguousDp(const SplitProblem &p, const std::vector<std::int32_t> &order)
        : m_p(p)
        , m_order(order)
        , m_n(order.size())
        , m_sweep(*p.graph, order)
    {
        const CostGraph &g = *p.graph;
        m_prefix.assign(g.deviceCount(), std::vector<double>(m_n + 1, 0.0));
        m_suffixMin.assign(m_n + 1, 0.0);
        for (std::size_t d = 0; d < g.deviceCount(); ++d) {
            for (std::size_t q = 0; q < m_n; ++q)
                m_prefix[d][q + 1]
                    = m_prefix[d][q] + g.timeUs(d, static_cast<std::size_t>(order[q]));
        }
        for (std::size_t q = m_n; q-- > 0;) {
            double fastest = infinity;
            for (std::size_t d = 0; d < g.deviceCount(); ++d)
                fastest = std::min(fastest, g.timeUs(d, static_cast<std::size_t>(order[q])));
            m_suffixMin[q] = m_suffixMin[q + 1] + fastest;
        }
    }

    /// Min-max pass (throughput or memory), or the min-sum pass (latency): the optimum's value.
    double solveValue(double bound)
    {
        run(bound, false);
        return m_layers.back().value[m_n];
    }

    /// Second pass of the min-max objectives: fewest transfer bytes with every stage at most
    /// `optimum`.
    void solveBytes(double optimum) { run(optimum, true); }

    [[nodiscard]] SplitAnswer answer() const
    {
        SplitAnswer a;
        a.stageOf.assign(m_p.graph->unitCount(), -1);
        std::size_t end = m_n;
        a.value = infinity;
        for (std::size_t k = m_p.stages; k > 0; --k) {
            if (m_layers[k].from[end] < 0) { // no feasible split: nothing assigned
                std::fill(a.stageOf.begin(), a.stageOf.end(), -1);
                return a;
            }
            const auto start = static_cast<std::size_t>(m_layers[k].from[end]);
            for (std::size_t q = start; q < end; ++q)
                a.stageOf[static_cast<std::size_t>(m_order[q])] = static_cast<std::int32_t>(k - 1);
            end = start;
        }
        a.value = m_layers.back().value[m_n];
        a.bytes = m_layers.back().bytes[m_n];
        return a;
    }

private:
    void run(double bound, bool bytesPass)
    {
        const std::size_t stageCount = m_p.stages;
        const bool minMax
            = m_p.objective == StageObjective::Throughput || m_p.metric == Metric::Memory;
        // Pruning compares with a little slack so that rounding never cuts the optimum.
        const double slack = bound == infinity ? infinity : bound * (1 + 1e-9) + 1e-9;
        const double limit = bytesPass ? bound : slack;
        m_layers.assign(stageCount + 1, Layer(m_n));
        m_layers[0].value[0] = 0;
        m_layers[0].bytes[0] = 0;
        for (std::size_t k = 1; k <= stageCount; ++k) {
            const std::size_t device = m_p.deviceOf(k - 1);
            const std::vector<double> &prefix = m_prefix[device];
            const std::int64_t memLimit = m_p.memoryLimit[device];
            const Layer &prev = m_layers[k - 1];
            Layer &cur = m_layers[k];
            const std::size_t lastEnd = m_n - (stageCount - k);
            for (std::size_t i = k - 1; i + 1 <= lastEnd; ++i) {
                if (prev.value[i] == infinity || prev.value[i] > limit)
                    continue;
                if (minMax && m_p.metric == Metric::Time
                    && m_suffixMin[i] > static_cast<double>(stageCount - k + 1) * slack)
                    continue;
                m_sweep.begin(static_cast<std::int32_t>(i));
                for (std::size_t j = i + 1; j <= lastEnd; ++j) {
                    m_sweep.add(static_cast<std::int32_t>(j - 1));
                    const std::int64_t mem = m_sweep.memory();
                    if (mem > memLimit)
                        break;
                    const double time = prefix[j] - prefix[i] + m_sweep.inUs;
                    const double cost
                        = m_p.metric == Metric::Memory ? static_cast<double>(mem) : time;
                    if (cost > limit)
                        break;
                    if (k == stageCount && j != m_n)
                        continue;
                    if (minMax && m_p.metric == Metric::Time && k < stageCount
                        && m_suffixMin[j] > static_cast<double>(stageCount - k) * slack)
                        continue;
                    update(prev, cur, i, j, cost, minMax, bytesPass);
                }
            }
        }
    }

    void update(const Layer &prev, Layer &cur, std::size_t i, std::size_t j, double cost,
                bool minMax, bool bytesPass) const
    {
        const std::int64_t bytes = satAdd(prev.bytes[i], m_sweep.inBytes);
        if (bytesPass) {
            // Bytes saturate: a split moving "all" bytes still beats no split at all.
            if (cur.from[j] < 0 || bytes < cur.bytes[j]) {
                cur.bytes[j] = bytes;
                cur.value[j] = std::max(prev.value[i], cost);
                cur.from[j] = static_cast<std::int32_t>(i);
            }
            return;
        }
        const double value = minMax ? std::max(prev.value[i], cost) : prev.value[i] + cost;
        if (value < cur.value[j] || (value == cur.value[j] && !minMax && bytes < cur.bytes[j])) {
            cur.value[j] = value;
            cur.bytes[j] = bytes;
            cur.from[j] = static_cast<std::int32_t>(i);
        }
    }

    const SplitProblem &m_p;
    const std::vector<std::int32_t> &m_order;
    std::size_t m_n;
    SegmentSweep m_sweep;
    std::vector<std::vector<double>> m_prefix;
    std::vector<double> m_suffixMin;
    std::vector<Layer> m_layers;
};

} // namespace

std::optional<SplitAnswer> solveOrder(const SplitProblem &problem,
                                      const std::vector<std::int32_t> &order)
{
    if (order.size() < problem.stages || problem.stages == 0)
        return std::nullopt;
    const bool memoryUnlimited
        = std::all_of(problem.memoryLimit.begin(), problem.memoryLimit.end(),
                      [](std::int64_t l) { return l == std::numeric_limits<std::int64_t>::max(); });
    if (problem.objective == StageObjective::Throughput && problem.metric == Metric::Time
        && memoryUnlimited && problem.allowBisection && order.size() > bisectionThreshold)
        return solveOrderByBisection(problem, order);
    ContiguousDp dp(problem, order);
    const bool minMax
        = problem.objective == StageObjective::Throughput || problem.metric == Metric::Memory;
    double optimum = infinity;
    if (minMax) {
        // A search bounded by B finds the optimum whenever the optimum is <= B (pruning only
        // drops stages costlier than B), and runs faster the smaller B is: try growing bounds.
        double bound = std::max(problem.lowerBound, 1e-3) * 1.02;
        while (true) {
            const bool last = bound >= problem.upperBound;
            optimum = dp.solveValue(last ? problem.upperBound : bound);
            if (optimum != infinity || last)
                break;
            bound = problem.lowerBound + (bound - problem.lowerBound) * 4 + 1e-3;
        }
    } else {
        optimum = dp.solveValue(problem.upperBound);
    }
    if (optimum == infinity)
        return std::nullopt;
    if (minMax && problem.metric == Metric::Time) {
        dp.solveBytes(optimum);
        SplitAnswer a = dp.answer();
        a.value = optimum;
        return a;
    }
    return dp.answer();
}

} // namespace cleave::autosplit
