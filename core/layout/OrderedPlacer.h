// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

// The state placeOrderedLayout works on, shared by its two halves: OrderedPlacement.cpp places
// the nodes (slots, median sweeps, long edges threaded through the gaps, ranks stacked) and
// OrderedRouting.cpp makes the routes. Private to core/layout.

#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cleave::placement {

constexpr double nodeSeparation = 18;
constexpr double dummyWidth = 8;
constexpr double dummySeparation = 4;
constexpr double rankSeparation = 30;
constexpr double arrowLength = 7;
constexpr int sweeps = 6;
// A long edge keeps its vertical lane past a rank, instead of stepping to its gap there, when
// the gap is this close, no node lies between them, and the lane passes this clear of nodes.
constexpr double laneReach = 200;
constexpr double laneMargin = 4;
constexpr std::uint32_t noRun = UINT32_MAX;

// 12 bytes (packed to 4-byte alignment, one id for a node or a gap's edge): a deep graph's
// ranks hold hundreds of thousands of gaps (rnnt: 2.5e5 in its 6.9k fused blocks, 6.1e5 in its
// 24k operators), so the width is not stored (a gap's is dummyWidth, a node's is in the
// LayoutGraph). The centre stays a double: the sweeps' and the routing's comparisons see
// exactly the positions they always saw.
#pragma pack(push, 4)
struct Slot
{
    double x = 0; // centre
    // A node's index into LayoutGraph::nodes (>= 0); for a gap left for a long edge,
    // freeGap, or -2 - k once long edge k passes through it.
    std::int32_t id = freeGap;

    static constexpr std::int32_t freeGap = -1;
    [[nodiscard]] static Slot ofNode(std::int32_t node) { return { 0, node }; }
    /// The node's index, or -1 for a gap.
    [[nodiscard]] std::int32_t node() const { return id >= 0 ? id : -1; }
    /// For a gap: the long edge passing through it (index into edges), or -1.
    [[nodiscard]] std::int32_t edge() const { return id <= -2 ? -2 - id : -1; }
    void setEdge(std::int32_t k) { id = -2 - k; }
};
#pragma pack(pop)
static_assert(sizeof(Slot) == 12);

// A point and a node's box while placing, in doubles (the layout keeps them rounded to floats).
struct Point
{
    double x = 0;
    double y = 0;
};

struct Box
{
    double x = 0;
    double y = 0;
    double width = 0;
    double height = 0;
    [[nodiscard]] double centerX() const { return x + width / 2; }
    [[nodiscard]] double bottom() const { return y + height; }
};

// Ranks [first, last] that one long edge passes in a row at one x; `next` is the edge's next
// run (noRun: none).
struct Run
{
    double x = 0;
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    std::uint32_t next = UINT32_MAX;
};

// A slot: rank and position in the rank.
struct SlotRef
{
    std::uint32_t rank = 0;
    std::uint32_t slot = 0;
};

/// The state of one placement: ranks, the slots of each rank (nodes and the gaps dot left for
/// long edges) and, once placed, node rectangles; each step of placeOrderedLayout is a method.
class OrderedPlacer
{
public:
    OrderedPlacer(const LayoutGraph &graph, const std::vector<int> &rank,
                  const std::vector<int> &order)
        : m_graph(graph)
        , m_order(order)
        , m_n(graph.nodes.size())
    {
        compressRanks(rank);
    }

    void buildSlots();
    void collectNeighbours();
    void sweepMedians();
    void threadLongEdges();
    void placeVertically();
    void placeNodes();
    void writeNodes(Layout &layout);
    void routeEdges(Layout &layout);
    void releaseNodeSlots();
    void releaseSweepState();

private:
    void compressRanks(const std::vector<int> &rank);
    [[nodiscard]] double width(const Slot &slot) const
    {
        return slot.node() < 0 ? dummyWidth
                               : m_graph.nodes[static_cast<std::size_t>(slot.node())].width;
    }
    [[nodiscard]] std::vector<int> passingEdgeCounts() const;
    [[nodiscard]] double xOf(std::size_t node) const
    {
        return m_slots[static_cast<std::size_t>(m_rankOf[node])][m_slotOf[node]].x;
    }
    [[nodiscard]] double xAt(SlotRef ref) const { return m_slots[ref.rank][ref.slot].x; }
    [[nodiscard]] EdgeRef keyOf(std::size_t edge) const
    {
        return { m_graph.edges[edge].tensor, m_graph.edges[edge].consumer };
    }
    [[nodiscard]] bool isLong(const LayoutGraph::Edge &e) const
    {
        return !e.stub && m_rankOf[e.to] - m_rankOf[e.from] >= 2;
    }
    [[nodiscard]] SlotRef nodeSlot(std::size_t node) const
    {
        return { static_cast<std::uint32_t>(m_rankOf[node]),
                 static_cast<std::uint32_t>(m_slotOf[node]) };
    }
    [[nodiscard]] static bool gapOf(const std::vector<Slot> &slots, std::size_t k,
                                    std::size_t &from, double &x);
    void sweepRank(std::size_t rank);
    [[nodiscard]] std::vector<double> arrowTips() const;
    struct Pass
    {
        std::size_t edge = 0;
        double gap = 0; // the x of its gap
        double x = 0; // where it passes
    };
    [[nodiscard]] bool laneFree(std::size_t rank, double x, std::size_t gap) const;
    void passRank(std::size_t rank, const std::vector<double> &laneX,
                  std::vector<Pass> &passes) const;
    [[nodiscard]] Point routeStart(std::size_t edge) const;
    void findRuns();
    std::uint32_t replayRoute(std::size_t edge, double tipX, LayoutPoint *out) const;
    const LayoutGraph &m_graph;
    const std::vector<int> &m_order;
    const std::size_t m_n;
    std::size_t m_rankCount = 0;
    std::vector<int> m_rankOf; // per node, its rank compressed to 0..R-1
    std::vector<std::vector<Slot>> m_slots; // per rank, in x order
    std::vector<std::uint32_t> m_slotOf; // per node, its slot in its rank
    std::vector<std::uint32_t> m_neighbourStart; // per node, its first entry in m_neighbours
    std::vector<SlotRef> m_neighbours; // per node, the slots of its neighbours above and below
    std::vector<double> m_desired; // scratch buffers of the sweeps
    std::vector<double> m_left;
    std::vector<double> m_right;
    std::vector<double> m_values;
    std::vector<double> m_rankTop;
    std::vector<double> m_rankHeight;
    double m_height = 0;
    double m_minX = 0;
    double m_maxX = 0;
    std::vector<Box> m_rects; // per node
    std::vector<Run> m_runs; // what findRuns decided, for replayRoute
    std::vector<std::uint32_t> m_firstRun; // per edge, its first run (noRun: none)
};

} // namespace cleave::placement
