// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Automatic partitioning (core/auto): the stage search against an exhaustive enumeration on
// random DAGs, hand-computed ResNet-18 splits, memory limits, target-driven BYOC regions, and
// the recomposition check on exports of automatic plans.
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/LatencyTable.h"
#include "core/auto/AutoPlan.h"
#include "core/auto/CostModel.h"
#include "core/auto/DeviceFile.h"
#include "core/auto/SplitSolvers.h"
#include "core/auto/StageSearch.h"
#include "core/auto/TargetRegions.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/partition/BoundaryTensors.h"
#include "core/support/FileIo.h"
#include "core/support/Saturating.h"
#include "core/validation/Validation.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

using namespace cleave;

namespace {

/// A random DAG in topological index order: per node a time and the bytes of its one output
/// tensor, and its predecessors.
struct Dag
{
    std::vector<double> time;
    std::vector<std::int64_t> bytes;
    std::vector<std::vector<int>> preds;
    [[nodiscard]] int size() const { return static_cast<int>(time.size()); }
};

/// Shapes: 0 chain, 1 diamonds (fork / join), 2 residual (skip edges), 3 inception-like
/// (a fan-out into 2-3 branches of 1-3 nodes joined by a concat node).
Dag randomDag(int shape, int n, std::mt19937 &rng)
{
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Dag d;
    d.preds.resize(static_cast<std::size_t>(n));
    auto edge = [&](int from, int to) {
        if (from >= 0 && from < to)
            d.preds[static_cast<std::size_t>(to)].push_back(from);
    };
    int v = 1;
    switch (shape) {
    case 0:
        for (int i = 1; i < n; ++i)
            edge(i - 1, i);
        break;
    case 1: // 0 -> (1, 2) -> 3 -> (4, 5) -> 6 ...
        while (v < n) {
            const int fork = v - 1;
            edge(fork, v);
            if (v + 1 < n)
                edge(fork, v + 1);
            if (v + 2 < n) {
                edge(v, v + 2);
                edge(v + 1, v + 2);
            } else if (v + 1 < n) {
                edge(v, v + 1);
            }
            v += 3;
        }
        break;
    case 2:
        for (int i = 1; i < n; ++i) {
            edge(i - 1, i);
            if (i >= 3 && pick(0, 2) == 0)
                edge(i - pick(2, 3), i);
        }
        break;
    default: // inception-like
        while (v < n) {
            const int source = v - 1;
            const int branches = pick(2, 3);
            std::vector<int> ends;
            for (int b = 0; b < branches && v < n; ++b) {
                const int length = pick(1, 3);
                int prev = source;
                for (int k = 0; k < length && v < n; ++k) {
                    edge(prev, v);
                    prev = v++;
                }
                ends.push_back(prev);
            }
            if (v < n) {
                for (int e : ends)
                    edge(e, v);
                ++v;
            }
        }
        break;
    }
    for (int i = 0; i < n; ++i) {
        d.time.push_back(pick(1, 20));
        d.bytes.push_back(pick(1, 16));
        auto &p = d.preds[static_cast<std::size_t>(i)];
        std::sort(p.begin(), p.end());
        p.erase(std::unique(p.begin(), p.end()), p.end());
    }
    return d;
}

/// The link of the random tests: 1 byte per µs plus 3 µs per transfer (integers throughout,
/// so every sum is exact in double).
LinkSpec integerLink()
{
    return LinkSpec { 1e6, 3.0 };
}

CostGraph costGraphOf(const Dag &d)
{
    const auto n = static_cast<std::size_t>(d.size());
    std::vector<CostUnit> units(n);
    std::vector<CostTensor> tensors(n);
    for (std::size_t i = 0; i < n; ++i) {
        tensors[i].producer = static_cast<std::int32_t>(i);
        tensors[i].bytes = tensors[i].memoryBytes = d.bytes[i];
        tensors[i].globalOutput = i + 1 == n;
        units[i].ops = 1;
        units[i].flops = static_cast<std::int64_t>(d.time[i]);
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (int p : d.preds[i])
            tensors[static_cast<std::size_t>(p)].consumers.push_back(static_cast<std::int32_t>(i));
    }
    for (CostTensor &t : tensors)
        std::sort(t.consumers.begin(), t.consumers.end());
    return CostGraph::fromParts(std::move(units), std::move(tensors), { d.time }, integerLink());
}

/// Exhaustive search written independently of core/auto: every labelling of the nodes with
/// stages 0..K-1 such that no edge goes backwards (exactly the ordered partitions whose
/// parts are convex and in topological order), with every stage non-empty. A stage's time is
/// its nodes' time plus, for every tensor produced in another stage and read in it, bytes + 3.
class BruteForce
{
public:
    BruteForce(const Dag &d, int K, bool sum)
        : m_d(d)
        , m_K(K)
        , m_sum(sum)
        , m_label(static_cast<std::size_t>(d.size()), -1)
    {
    }

    double best()
    {
        m_best = std::numeric_limits<double>::infinity();
        label(0);
        return m_best;
    }

    /// True when `stageOf` is a labelling the enumeration would visit.
    static bool isOrderedConvex(const Dag &d, const std::vector<std::int32_t> &stageOf, int K)
    {
        std::vector<int> used(static_cast<std::size_t>(K), 0);
        for (int v = 0; v < d.size(); ++v) {
            const int s = stageOf[static_cast<std::size_t>(v)];
            if (s < 0 || s >= K)
                return false;
            used[static_cast<std::size_t>(s)] = 1;
            for (int p : d.preds[static_cast<std::size_t>(v)]) {
                if (stageOf[static_cast<std::size_t>(p)] > s)
                    return false;
            }
        }
        return std::all_of(used.begin(), used.end(), [](int u) { return u == 1; });
    }

private:
    std::vector<double> stageTimes() const
    {
        std::vector<double> t(static_cast<std::size_t>(m_K), 0.0);
        for (int v = 0; v < m_d.size(); ++v)
            t[static_cast<std::size_t>(m_label[static_cast<std::size_t>(v)])]
                += m_d.time[static_cast<std::size_t>(v)];
        for (int p = 0; p < m_d.size(); ++p) {
            std::vector<int> readers;
            for (int v = 0; v < m_d.size(); ++v) {
                const auto &preds = m_d.preds[static_cast<std::size_t>(v)];
                if (std::find(preds.begin(), preds.end(), p) != preds.end())
                    readers.push_back(m_label[static_cast<std::size_t>(v)]);
            }
            std::sort(readers.begin(), readers.end());
            readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
            for (int s : readers) {
                if (s != m_label[static_cast<std::size_t>(p)])
                    t[static_cast<std::size_t>(s)]
                        += static_cast<double>(m_d.bytes[static_cast<std::size_t>(p)]) + 3.0;
            }
        }
        return t;
    }

    void label(int v)
    {
        if (v == m_d.size()) {
            std::vector<int> used(static_cast<std::size_t>(m_K), 0);
            for (int l : m_label)
                used[static_cast<std::size_t>(l)] = 1;
            if (std::find(used.begin(), used.end(), 0) != used.end())
                return;
            const std::vector<double> t = stageTimes();
            double value = 0;
            for (double x : t)
                value = m_sum ? value + x : std::max(value, x);
            m_best = std::min(m_best, value);
            return;
        }
        int lowest = 0;
        for (int p : m_d.preds[static_cast<std::size_t>(v)])
            lowest = std::max(lowest, m_label[static_cast<std::size_t>(p)]);
        for (int s = lowest; s < m_K; ++s) {
            m_label[static_cast<std::size_t>(v)] = s;
            label(v + 1);
        }
        m_label[static_cast<std::size_t>(v)] = -1;
    }

    const Dag &m_d;
    int m_K;
    bool m_sum;
    std::vector<int> m_label;
    double m_best = 0;
};

std::unique_ptr<Graph> load(const std::string &path)
{
    ImportResult r = importFile(path);
    return r.ok() ? std::move(r.graph) : nullptr;
}

LatencyTable loadTable(const std::string &path)
{
    std::vector<Diagnostic> problems;
    auto table = LatencyTable::load(path, problems);
    if (!table)
        qFatal("latency table %s did not load", path.c_str());
    return *table;
}

/// The ResNet-18 setting of the hand computation: convolutions 100 µs, all else 0, a link
/// with 10 µs per transfer and 10^18 bytes/s (a tensor of B bytes adds B·10^-12 µs).
struct ResnetSetting
{
    std::unique_ptr<Graph> graph;
    std::shared_ptr<const FunctionView> view;
    LatencyTable table;
    std::vector<DeviceSpec> devices;
    LinkSpec link { 1e18, 10.0 };
};

std::vector<std::string> convKeysOfStage(const Graph &g, const CostGraph &cg,
                                         const std::vector<std::int32_t> &stageOf, int stage)
{
    std::vector<std::string> keys;
    for (std::size_t u = 0; u < cg.unitCount(); ++u) {
        if (stageOf[u] != stage)
            continue;
        for (NodeId n : cg.units()[u].nodes) {
            if (g.node(n).op == "nn.conv2d")
                keys.push_back(g.key(n));
        }
    }
    std::sort(keys.begin(), keys.end(), [](const std::string &a, const std::string &b) {
        return std::stoi(a.substr(1)) < std::stoi(b.substr(1));
    });
    return keys;
}

std::vector<std::string> relayModels()
{
    std::vector<std::string> out;
    for (const char *dir : { CLEAVE_SAMPLES_DIR, CLEAVE_CORPUS_DIR "/relay" }) {
        if (!std::filesystem::is_directory(dir))
            continue;
        for (const auto &e : std::filesystem::directory_iterator(dir)) {
            const std::string p = e.path().string();
            if (p.ends_with(".relay") || p.ends_with(".relay.txt"))
                out.push_back(p);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

int countOf(const std::string &text, const std::string &what)
{
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

class TestAuto : public QObject
{
    Q_OBJECT

private slots:
    void exactMatchesExhaustiveSearch();
    void ordersModeIsNeverBetterThanExact();
    void bisectionMatchesDynamicProgram();
    void resnet18ThreeStagesByHand();
    void resnet18MemoryLimitForcesAnotherSplit();
    void infeasibleRequestsExplainThemselves();
    void hugeShapesSaturateStageBytes();
    void blocksLevelNeverSplitsABlock();
    void baselinesAreContiguousSplits();
    void deviceFileParses();
    void seed001RegionsAnnotateEveryInput();
    void diamondKeepsThreeRegions();
    void minRegionSendsSmallRegionsBack();
    void autoPlansOfEveryModelVerify();
};

// The bisection solver that serves long orders (issue 33: rnnt took 6.3 s in the dynamic
// program) finds the dynamic program's optimum over the same order, to its 1e-6 precision, on
// 480 random chains, diamonds, residual and inception-shaped graphs of 60-600 units, for K from
// 2 to 12, and its split is K non-empty contiguous stages of the order, none above the optimum.
void TestAuto::bisectionMatchesDynamicProgram()
{
    std::mt19937 rng(20261129);
    int compared = 0;
    for (int seed = 0; seed < 120; ++seed) {
        const Dag d = randomDag(seed % 4, 60 + (seed * 37) % 540, rng);
        const CostGraph cg = costGraphOf(d);
        const std::vector<std::int32_t> order = autosplit::programOrder(cg);
        for (const std::size_t k :
             { std::size_t { 2 }, std::size_t { 3 }, std::size_t { 7 }, std::size_t { 12 } }) {
            autosplit::SplitProblem p;
            p.graph = &cg;
            p.stages = k;
            p.memoryLimit.assign(cg.deviceCount(), std::numeric_limits<std::int64_t>::max());
            p.allowBisection = false;
            const std::optional<autosplit::SplitAnswer> dp = autosplit::solveOrder(p, order);
            const std::optional<autosplit::SplitAnswer> bisected
                = autosplit::solveOrderByBisection(p, order);
            QVERIFY(dp && bisected);
            QVERIFY2(std::abs(bisected->value - dp->value) <= 1e-6 * dp->value + 1e-9,
                     qPrintable(QStringLiteral("seed %1 K=%2: dynamic program %3, bisection %4")
                                    .arg(seed)
                                    .arg(k)
                                    .arg(dp->value)
                                    .arg(bisected->value)));
            // K non-empty stages, contiguous and ascending along the order.
            std::vector<std::size_t> units(k, 0);
            std::int32_t previous = 0;
            for (std::int32_t u : order) {
                const std::int32_t stage = bisected->stageOf[static_cast<std::size_t>(u)];
                QVERIFY(stage >= previous && stage < static_cast<std::int32_t>(k));
                previous = stage;
                ++units[static_cast<std::size_t>(stage)];
            }
            QVERIFY(std::none_of(units.begin(), units.end(), [](std::size_t n) { return n == 0; }));
            ++compared;
        }
    }
    QCOMPARE(compared, 480);

    // A chain of 3,001 units, one of them (the middle one) 10,000 times the others: its stage
    // sets the bottleneck, the units before and after it make two more stages, so a fourth
    // stage cannot lower it: 3 stages are useful (the search says so instead of handing back a
    // stage that holds little without a word).
    Dag chain = randomDag(0, 3001, rng);
    std::fill(chain.time.begin(), chain.time.end(), 1.0);
    chain.time[1500] = 10000;
    const CostGraph cg = costGraphOf(chain);
    autosplit::SplitProblem p;
    p.graph = &cg;
    p.stages = 4;
    p.memoryLimit.assign(1, std::numeric_limits<std::int64_t>::max());
    const std::optional<autosplit::SplitAnswer> a
        = autosplit::solveOrderByBisection(p, autosplit::programOrder(cg));
    QVERIFY(a);
    QCOMPARE(a->fewestStages, std::size_t { 3 });
    // The heavy unit's stage starts at some unit s <= 1500: 10,000 µs, 1 µs for each unit
    // before it in the stage, and the one tensor it receives from unit s - 1 (3 µs a transfer
    // plus its bytes at 1 byte/µs); from s = 0 it receives nothing but holds 1,500 more units.
    double heavy = 10000 + 1500;
    for (std::size_t s = 1; s <= 1500; ++s)
        heavy = std::min(heavy,
                         10000 + static_cast<double>(1500 - s) + 3.0
                             + static_cast<double>(chain.bytes[s - 1]));
    QCOMPARE(a->value, heavy);
}

void TestAuto::exactMatchesExhaustiveSearch()
{
    std::mt19937 rng(20261123);
    int graphs = 0, compared = 0;
    for (int seed = 0; seed < 520; ++seed) {
        const int shape = seed % 4;
        const int n = 8 + (seed / 4) % 7;
        const Dag d = randomDag(shape, n, rng);
        const CostGraph cg = costGraphOf(d);
        ++graphs;
        for (int K = 2; K <= 4; ++K) {
            StageSearchOptions options;
            options.stages = static_cast<std::size_t>(K);
            const StageSearchResult r = searchStages(cg, options);
            QVERIFY2(r.ok, r.error.c_str());
            QCOMPARE(r.mode, SearchMode::Exact);
            QVERIFY(BruteForce::isOrderedConvex(d, r.stageOf, K));
            const double expected = BruteForce(d, K, false).best();
            if (r.bottleneckUs != expected) {
                for (int v = 0; v < d.size(); ++v) {
                    std::string ps;
                    for (int q : d.preds[static_cast<std::size_t>(v)])
                        ps += std::to_string(q) + ",";
                    qDebug("node %d t=%.0f b=%lld preds=%s stage=%d", v,
                           d.time[static_cast<std::size_t>(v)],
                           (long long)d.bytes[static_cast<std::size_t>(v)], ps.c_str(),
                           r.stageOf[static_cast<std::size_t>(v)]);
                }
                for (const auto &s : r.stages)
                    qDebug("stage c=%.0f in=%.0f", s.computeUs, s.transferInUs);
                qDebug("ideals %zu", r.ideals);
                qFatal("seed %d shape %d n %d K %d: DP %.1f, exhaustive %.1f", seed, shape, n, K,
                       r.bottleneckUs, expected);
            }
            QVERIFY(r.lowerBoundUs <= r.bottleneckUs);
            for (const Baseline &b : r.baselines)
                QVERIFY(b.bottleneckUs >= r.bottleneckUs);
            ++compared;
            if (seed % 5 == 0) {
                // The latency objective on a fifth of the graphs: the minimum sum.
                options.objective = StageObjective::Latency;
                const StageSearchResult l = searchStages(cg, options);
                QVERIFY(l.ok);
                QCOMPARE(l.totalUs, BruteForce(d, K, true).best());
            }
        }
    }
    QCOMPARE(graphs, 520);
    QCOMPARE(compared, 1560);
}

void TestAuto::ordersModeIsNeverBetterThanExact()
{
    std::mt19937 rng(7);
    for (int seed = 0; seed < 60; ++seed) {
        const Dag d = randomDag(seed % 4, 10 + seed % 5, rng);
        const CostGraph cg = costGraphOf(d);
        StageSearchOptions options;
        options.stages = 3;
        const StageSearchResult exact = searchStages(cg, options);
        options.idealCap = 0; // force the orders mode
        const StageSearchResult orders = searchStages(cg, options);
        QVERIFY(exact.ok && orders.ok);
        QCOMPARE(orders.mode, SearchMode::Orders);
        QVERIFY(BruteForce::isOrderedConvex(d, orders.stageOf, 3));
        QVERIFY(orders.bottleneckUs >= exact.bottleneckUs);
        // On a chain the orders mode is exact as well (one topological order only).
        if (seed % 4 == 0)
            QCOMPARE(orders.bottleneckUs, exact.bottleneckUs);
    }
}

void TestAuto::resnet18ThreeStagesByHand()
{
    auto graph = load(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY(graph);
    const LatencyTable table = loadTable(CLEAVE_TESTDATA_DIR "/auto/resnet18_latency.json");
    auto view = std::make_shared<const FunctionView>(*graph, graph->mainFunction());
    DeviceSpec device;
    device.latency = &table;
    const CostGraph cg = CostGraph::build(*view, { device }, LinkSpec { 1e18, 10.0 });
    StageSearchOptions options;
    options.stages = 3;
    const StageSearchResult r = searchStages(cg, options);
    QVERIFY2(r.ok, r.error.c_str());
    QCOMPARE(r.mode, SearchMode::Exact);
    // By hand: 20 convolutions of 100 µs; a cut at a block boundary moves one tensor, a cut
    // inside a residual block two. A bottleneck of 7 convolutions + one transfer (710 µs) needs
    // a first stage of 7 convolutions (no transfer in), which ends inside the first
    // downsampling block (the boundaries fall after 5 and 8); the second stage then holds 6
    // (600 + two transfers) up to the block boundary %55, the third the last 7 behind one
    // transfer of %55 (1x256x14x14 float32 = 200704 bytes). Of the two 7-convolution first
    // stages, taking the 1x1 projection %29 (rather than %27) moves 401408 + 401408 bytes
    // instead of 802816 (%22) + 401408: fewer bytes, so the tie goes to %29.
    const std::vector<std::string> stage0 { "%0", "%5", "%9", "%14", "%18", "%23", "%29" };
    const std::vector<std::string> stage1 { "%27", "%35", "%39", "%44", "%48", "%50" };
    const std::vector<std::string> stage2 { "%56", "%60", "%65", "%69", "%71", "%77", "%81" };
    QCOMPARE(convKeysOfStage(*graph, cg, r.stageOf, 0), stage0);
    QCOMPARE(convKeysOfStage(*graph, cg, r.stageOf, 1), stage1);
    QCOMPARE(convKeysOfStage(*graph, cg, r.stageOf, 2), stage2);
    const double expected = 710.0 + 200704.0 / 1e18 * 1e6;
    QVERIFY(std::abs(r.bottleneckUs - expected) < 1e-9);
    QCOMPARE(r.stages[2].bytesIn, std::int64_t { 200704 });
    QCOMPARE(r.stages[1].bytesIn, std::int64_t { 802816 });
    QCOMPARE(r.stages[0].bytesIn, std::int64_t { 0 });
    QVERIFY(std::abs(r.lowerBoundUs - 2000.0 / 3.0) < 1e-9);
    // The plan is an ordinary, valid plan.
    const PartitionPlan plan = planFromStages(view, cg, r.stageOf, 3);
    QCOMPARE(plan.partitionCount(), std::size_t { 3 });
    QVERIFY(!hasErrors(validateAll(plan)));
    QCOMPARE(plan.partitionOf(graph->findByKey("%29")), plan.partitions()[0].id);
    QCOMPARE(plan.partitionOf(graph->findByKey("%88")), plan.partitions()[2].id);
}

void TestAuto::resnet18MemoryLimitForcesAnotherSplit()
{
    auto graph = load(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY(graph);
    const LatencyTable table = loadTable(CLEAVE_TESTDATA_DIR "/auto/resnet18_latency.json");
    FunctionView view(*graph, graph->mainFunction());
    DeviceSpec device;
    device.latency = &table;
    const CostGraph cg = CostGraph::build(view, { device }, LinkSpec { 1e18, 10.0 });
    StageSearchOptions options;
    options.stages = 3;
    const StageSearchResult free = searchStages(cg, options);
    QVERIFY(free.ok);
    // The last stage of the free optimum holds the 512-channel weights: by hand, the conv
    // weights 2·(256·256·9) + 512·256·9 + 3·(512·512·9) + 512·256 floats, the dense
    // 1000·512 and its bias 1000, and 7 batch norms of 4·C floats (2 of 256, 5 of 512), all
    // ×4 bytes = 40 407 072 bytes of parameters.
    const std::int64_t params = 4
        * (2 * 256 * 256 * 9 + 512 * 256 * 9 + 3 * 512 * 512 * 9 + 512 * 256 + 1000 * 512 + 1000
           + 2 * 4 * 256 + 5 * 4 * 512);
    QCOMPARE(free.stages[2].paramBytes, params);
    // 36 MB no longer holds that stage: the optimum must move weight out of it.
    const std::int64_t limit = 36'000'000;
    const StageSearchResult limited
        = searchStages(cg, options, { std::optional<std::int64_t>(limit) });
    QVERIFY2(limited.ok, limited.error.c_str());
    QVERIFY(limited.stageOf != free.stageOf);
    for (const StageCost &s : limited.stages)
        QVERIFY(s.memoryBytes() <= limit);
    QVERIFY(limited.bottleneckUs > free.bottleneckUs);
    // By hand: the last stage can keep at most %77 and %81 (2·9437184 + dense 2048000 + ...)
    // plus one more 512-channel 3x3 convolution would exceed 36 MB together with %65 and %69,
    // so the third stage starts later and holds fewer convolutions than 7.
    QVERIFY(convKeysOfStage(*graph, cg, limited.stageOf, 2).size() < 7);
}

void TestAuto::infeasibleRequestsExplainThemselves()
{
    auto graph = load(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY(graph);
    FunctionView view(*graph, graph->mainFunction());
    const CostGraph cg = CostGraph::build(view, { DeviceSpec {} }, LinkSpec {});
    StageSearchOptions options;
    options.stages = cg.unitCount() + 1;
    StageSearchResult r = searchStages(cg, options);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.find("at most " + std::to_string(cg.unitCount()) + " stage")
                 != std::string::npos,
             r.error.c_str());

    // The heaviest node alone (%81's 512x512x3x3 weights, 9437184 bytes + batch-norm-free)
    // cannot fit 1 MB: the error names the smallest feasible limit, which is feasible, and one
    // byte less is not.
    options.stages = 2;
    r = searchStages(cg, options, { std::optional<std::int64_t>(1'000'000) });
    QVERIFY(!r.ok);
    QVERIFY(r.smallestFeasibleMemory.has_value());
    QVERIFY2(r.error.find("smallest feasible limit is " + std::to_string(*r.smallestFeasibleMemory))
                 != std::string::npos,
             r.error.c_str());
    const StageSearchResult atLimit = searchStages(cg, options, { r.smallestFeasibleMemory });
    QVERIFY2(atLimit.ok, atLimit.error.c_str());
    const StageSearchResult below
        = searchStages(cg, options, { std::optional<std::int64_t>(*r.smallestFeasibleMemory - 1) });
    QVERIFY(!below.ok);
}

// fuzz_auto found it (UBSan): a (1, 2^62) float tensor holds 2^64 bytes, and the stage search
// added such byte counts without saturating (signed overflow in CostGraph::evaluate and both
// solvers); once saturated, the throughput objective's second pass (fewest bytes among the
// optimal splits) never found a split and read its back-pointer -1. Every byte count of the cost
// model now saturates at saturatedCount, as the FLOPs already did: the search plans both
// objectives, each stage holds (or receives) the tensor, so its memory is saturatedCount, and a
// memory limit is refused with that as the smallest feasible limit.
void TestAuto::hugeShapesSaturateStageBytes()
{
    auto graph = load(CLEAVE_TESTDATA_DIR "/hostile/auto_hugeshape.relay");
    QVERIFY(graph);
    FunctionView view(*graph, graph->mainFunction());
    const CostGraph cg = CostGraph::build(view, { DeviceSpec {} }, LinkSpec {});
    QCOMPARE(cg.unitCount(), std::size_t(3));
    for (const StageObjective objective : { StageObjective::Throughput, StageObjective::Latency }) {
        StageSearchOptions options;
        options.stages = 2;
        options.objective = objective;
        const StageSearchResult r = searchStages(cg, options);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.stages.size(), std::size_t(2));
        for (const StageCost &s : r.stages)
            QCOMPARE(s.memoryBytes(), saturatedCount);
        QCOMPARE(r.transferBytes, saturatedCount);
        for (const Baseline &b : r.baselines) {
            for (const StageCost &s : b.stages)
                QVERIFY(s.memoryBytes() >= 0);
        }
    }
    StageSearchOptions options;
    options.stages = 2;
    const std::int64_t limit = std::int64_t { 16 } << 30;
    const StageSearchResult limited = searchStages(cg, options, { limit });
    QVERIFY(!limited.ok);
    QCOMPARE(limited.smallestFeasibleMemory, std::optional<std::int64_t>(saturatedCount));
    const std::string expected
        = "no split into 2 stages fits the memory limit of " + std::to_string(limit) + " bytes";
    QVERIFY2(limited.error.starts_with(expected), limited.error.c_str());
    QCOMPARE(limited.errorCode, std::string("auto.memory_limit"));
    QVERIFY2(limited.error.find("the smallest feasible limit is " + std::to_string(saturatedCount)
                                + " bytes")
                 != std::string::npos,
             limited.error.c_str());
}

void TestAuto::blocksLevelNeverSplitsABlock()
{
    auto graph = load(CLEAVE_SAMPLES_DIR "/resnet18.relay");
    QVERIFY(graph);
    auto view = std::make_shared<const FunctionView>(*graph, graph->mainFunction());
    FusionOptions fusion;
    fusion.foldBatchNorm = true;
    const auto blocks = fuseOps(*graph, graph->mainFunction(), fusion);
    const CostGraph cg = CostGraph::buildBlocks(*view, blocks, { DeviceSpec {} }, LinkSpec {});
    QVERIFY(cg.unitCount() < view->assignableNodes().size());
    StageSearchOptions options;
    options.stages = 4;
    const StageSearchResult r = searchStages(cg, options);
    QVERIFY(r.ok);
    const PartitionPlan plan = planFromStages(view, cg, r.stageOf, 4);
    for (const FusedBlock &b : blocks) {
        const PartitionId first = plan.partitionOf(b.nodes.front());
        for (NodeId n : b.nodes)
            QCOMPARE(plan.partitionOf(n), first);
    }
    QVERIFY(!hasErrors(validateAll(plan)));
}

void TestAuto::baselinesAreContiguousSplits()
{
    // Weights 1..6 into 3 stages by cumulative share (21 in all: 7, 14): a stage ends with the
    // unit whose running total reaches its share: 1+2+3+4 = 10 >= 7 ends stage 0, 10+5 = 15
    // >= 14 ends stage 1, and stage 2 = {6}.
    const std::vector<std::int32_t> expected { 0, 0, 0, 0, 1, 2 };
    QCOMPARE(splitByWeight({ 1, 2, 3, 4, 5, 6 }, 3), expected);
    // Never an empty stage, even when all weight sits at the front.
    const std::vector<std::int32_t> front { 0, 1, 2 };
    QCOMPARE(splitByWeight({ 100, 0, 0 }, 3), front);
}

void TestAuto::deviceFileParses()
{
    QCOMPARE(parseByteSize("16GiB"), std::optional<std::int64_t>(17179869184LL));
    QCOMPARE(parseByteSize("512MB"), std::optional<std::int64_t>(512000000));
    QCOMPARE(parseByteSize("1024"), std::optional<std::int64_t>(1024));
    QVERIFY(!parseByteSize("12 parsecs"));
    QCOMPARE(parseBandwidth("12GB/s"), std::optional<double>(12e9));
    QCOMPARE(parseBandwidth("10"), std::optional<double>(1e10));
    QCOMPARE(parseDurationUs("20us"), std::optional<double>(20.0));
    QCOMPARE(parseDurationUs("1ms"), std::optional<double>(1000.0));
    QCOMPARE(parseDurationUs("500ns"), std::optional<double>(0.5));
    std::vector<Diagnostic> problems;
    const auto set = parseDeviceFile(
        R"({"devices": [{"name": "gpu0", "target": "cuda", "gflops": 50000, "memory": "16GiB"},
                        {"name": "cpu", "gflops": 200}],
            "links": {"bandwidth": "12GB/s", "latency": "20us"}})",
        "devices.json", problems);
    QVERIFY(set);
    QCOMPARE(set->devices.size(), std::size_t { 2 });
    QCOMPARE(set->devices[0].target, std::string("cuda"));
    QCOMPARE(set->devices[0].memoryBytes, std::optional<std::int64_t>(17179869184LL));
    QCOMPARE(set->devices[1].target, std::string("llvm"));
    QCOMPARE(set->devices[1].gflops, 200.0);
    QCOMPARE(set->link.bytesPerSecond, 12e9);
    QCOMPARE(set->link.latencyUs, 20.0);
    problems.clear();
    QVERIFY(!parseDeviceFile("{\"devices\": [\n  {\"memory\": 1,}]}", "bad.json", problems));
    QCOMPARE(problems.size(), std::size_t { 1 });
    QCOMPARE(problems[0].where.line, 2);
    problems.clear();
    QVERIFY(!parseDeviceFile(R"({"devices": [{"memory": "lots"}]})", "bad.json", problems));
    QCOMPARE(problems[0].code, std::string("devices.memory"));
}

void TestAuto::seed001RegionsAnnotateEveryInput()
{
    const std::string model = CLEAVE_TESTDATA_DIR "/auto/seed001_layers.relay";
    auto graph = load(model);
    QVERIFY(graph);
    auto view = std::make_shared<const FunctionView>(*graph, graph->mainFunction());
    std::vector<Diagnostic> problems;
    RegionOptions options;
    options.targets = loadOpSupportFile(CLEAVE_TESTDATA_DIR "/auto/dnnl_ops.json", problems);
    QVERIFY(problems.empty());
    const RegionResult regions = findTargetRegions(*view, options);
    // conv+bn+.0+relu | max_pool | conv+bn+.0+relu.
    QCOMPARE(regions.regions.size(), std::size_t { 3 });
    QCOMPARE(regions.regions[0].target, std::string("dnnl"));
    QCOMPARE(regions.regions[0].nodes.size(), std::size_t { 4 });
    QCOMPARE(regions.regions[1].target, std::string("llvm"));
    QCOMPARE(graph->node(regions.regions[1].nodes.front()).op, std::string("nn.max_pool2d"));
    QCOMPARE(regions.regions[2].target, std::string("dnnl"));
    QCOMPARE(regions.regions[2].nodes.size(), std::size_t { 4 });
    const PartitionPlan plan = planFromRegions(view, regions);
    QVERIFY(!hasErrors(validateAll(plan)));

    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString() + "/out";
    const BoundaryTable boundary = computeBoundary(plan);
    const ExportResult exported = exportPartitions(plan, boundary, {}, dir);
    QVERIFY(exported.ok);
    const auto annotated = readFile(dir + "/byoc_annotated.relay");
    QVERIFY(annotated);
    // Every input of a dnnl region is annotated: region 0 reads %data and the 5 parameters
    // of its conv and batch norm; region 2 reads the pooled tensor and its 5 parameters.
    QCOMPARE(countOf(*annotated, "annotation.compiler_begin"), 12);
    QCOMPARE(countOf(*annotated, "annotation.compiler_end"), 2);
    // No nesting: the ends and begins alternate region by region (6 begins, an end, ...).
    std::vector<char> sequence;
    for (std::size_t at = 0;
         (at = annotated->find("annotation.compiler_", at)) != std::string::npos; ++at)
        sequence.push_back((*annotated)[at + 20]);
    const std::string seq(sequence.begin(), sequence.end());
    QCOMPARE(seq, std::string("bbbbbbebbbbbbe"));
    QVERIFY(verifyExport(dir).ok);

    // Without the unsupported pool, consecutive layers form ONE region.
    options.targets[0].ops.insert("nn.max_pool2d");
    QCOMPARE(findTargetRegions(*view, options).regions.size(), std::size_t { 1 });
}

void TestAuto::diamondKeepsThreeRegions()
{
    auto graph = load(CLEAVE_TESTDATA_DIR "/auto/diamond_aba.relay");
    QVERIFY(graph);
    FunctionView view(*graph, graph->mainFunction());
    RegionOptions options;
    options.targets.push_back(OpSupportList { "dnnl", { "nn.relu", "add" } });
    const RegionResult r = findTargetRegions(view, options);
    // relu (A) -> softmax (B) -> add (A), and relu -> add directly: merging the two A nodes
    // would put B on a path that leaves and re-enters the region, so three regions remain.
    QCOMPARE(r.regions.size(), std::size_t { 3 });
    QCOMPARE(r.regions[0].target, std::string("dnnl"));
    QCOMPARE(graph->node(r.regions[0].nodes[0]).op, std::string("nn.relu"));
    QCOMPARE(r.regions[1].target, std::string("llvm"));
    QCOMPARE(r.regions[2].target, std::string("dnnl"));
    QCOMPARE(graph->node(r.regions[2].nodes[0]).op, std::string("add"));
}

void TestAuto::minRegionSendsSmallRegionsBack()
{
    auto graph = load(CLEAVE_TESTDATA_DIR "/auto/diamond_aba.relay");
    QVERIFY(graph);
    FunctionView view(*graph, graph->mainFunction());
    RegionOptions options;
    options.targets.push_back(OpSupportList { "dnnl", { "nn.relu", "add" } });
    options.minRegionOps = 2;
    const RegionResult r = findTargetRegions(view, options);
    // Both one-op dnnl regions go back: everything is one llvm region.
    QCOMPARE(r.regions.size(), std::size_t { 1 });
    QCOMPARE(r.regions[0].target, std::string("llvm"));
    QCOMPARE(r.notes.size(), std::size_t { 2 });

    // Measured: relu gains 5 - 1 = 4 µs on dnnl, but moving %x in and %0 out costs 2 x 20 µs.
    LatencyTable dnnl, llvm;
    dnnl.setOp("nn.relu", 1);
    dnnl.setOp("add", 1);
    llvm.setOp("nn.relu", 5);
    llvm.setOp("add", 5);
    llvm.setOp("nn.softmax", 5);
    options.minRegionOps = 1;
    options.latency = { { "dnnl", &dnnl }, { "llvm", &llvm } };
    QCOMPARE(findTargetRegions(view, options).regions.size(), std::size_t { 1 });
    // With a free link the gain wins and the three regions stay.
    options.link = LinkSpec { 1e18, 0.0 };
    QCOMPARE(findTargetRegions(view, options).regions.size(), std::size_t { 3 });
}

void TestAuto::autoPlansOfEveryModelVerify()
{
    const std::vector<std::string> models = relayModels();
    if (models.empty())
        QSKIP("no Relay samples or corpus");
    QTemporaryDir tmp;
    int verified = 0;
    for (const std::string &path : models) {
        auto graph = load(path);
        if (!graph)
            continue; // models the importer refuses are covered by the import tests
        auto view = std::make_shared<const FunctionView>(*graph, graph->mainFunction());
        if (view->assignableNodes().size() < 3)
            continue;
        const CostGraph cg = CostGraph::build(*view, { DeviceSpec {} }, LinkSpec {});
        StageSearchOptions options;
        options.stages = 3;
        const StageSearchResult r = searchStages(cg, options);
        QVERIFY2(r.ok, (path + ": " + r.error).c_str());
        const PartitionPlan plan = planFromStages(view, cg, r.stageOf, 3);
        const BoundaryTable boundary = computeBoundary(plan);
        // Every rule passes, except that models reading a global input all along (clip bounds
        // passed as inputs) get `pipeline.shared_global_input`: the exporter forwards such an
        // input from its first reader, which the recomposition check below covers.
        for (const Diagnostic &d : validateAll(plan, boundary)) {
            QVERIFY2(d.severity != Severity::Error || d.code == "pipeline.shared_global_input",
                     (path + ": " + d.toString()).c_str());
        }
        const std::string dir
            = tmp.path().toStdString() + "/" + std::filesystem::path(path).filename().string();
        const ExportResult exported = exportPartitions(plan, boundary, {}, dir);
        QVERIFY2(exported.ok, path.c_str());
        const VerifyResult v = verifyExport(dir);
        QVERIFY2(v.ok, (path + ": " + v.firstDifference).c_str());
        ++verified;
    }
    QVERIFY(verified >= 8);
}

QTEST_GUILESS_MAIN(TestAuto)
#include "tst_auto.moc"
