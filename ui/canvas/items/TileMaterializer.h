// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Ids.h"
#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"
#include "ui/canvas/items/ItemStates.h"
#include "ui/canvas/items/ItemTile.h"
#include "ui/geometry/FloatRect.h"

#include <QColor>
#include <QRectF>
#include <QString>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

class QGraphicsItem;
class QGraphicsScene;

namespace cleave::ui {

class EdgeItem;
class EdgeLabels;
class NodeItem;

/// The drawing of a layout, painted per tile from data, with items only where Qt's hit tests
/// need them. The drawn nodes and edges are grouped into ItemTiles (TilePlan: a few hundred
/// neighbours each, boxes known from the layout), which are all put in the scene at once (a few
/// hundred items). A tile paints its members itself (paintMembers(): boxes and routes from the
/// layout, texts from the graph, state from states(), comparison rings from the request's
/// marks), whether or not their items exist: a pan or a zoom makes no item.
///
/// A tile's children (NodeItems, EdgeItems) are made only for what needs a real
/// QGraphicsItem: hover and tooltips around the mouse (makeArea()) and explicit requests
/// (nodeItem(), edgeItem(), makeAll(): tests). The least recently needed are dropped again
/// when more than cap() exist (trim()).
///
/// Everything else the canvas asks of the drawing (boxes, routes, which nodes lie in an area or
/// at a point, which edges a segment crosses) is answered from the layout, with no item made.
///
/// Node and edge indices are those of the layout graph. The drawn nodes in id order
/// (drawnNodes()) serve the selection queries and the far picture's style; edgeIndex() finds
/// an edge in the layout's own EdgeRef order. Per node and edge it keeps indices only (into
/// the layout, of its tile); per tile painted, its nodes' op categories and, once painted
/// zoomed in, their texts (one QString per distinct text, shared), or its edges' boxes.
class TileMaterializer : public TileContent
{
public:
    /// What to draw.
    struct Request
    {
        const Graph *graph = nullptr;
        std::shared_ptr<const LayoutGraph> layoutGraph;
        std::shared_ptr<const Layout> layout;
        /// Comparison rings by node, read as each node is made.
        const std::unordered_map<NodeId, QColor> *marks = nullptr;
        /// The shape labels of edges (one edge per tensor, the first drawn, carries its label).
        const EdgeLabels *labels = nullptr;
    };
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    /// The items kept: 8 tiles of 256. Items serve hit tests around the mouse only (painting
    /// needs none): a point meets one node tile and a few edge tiles (the short routes' and
    /// the long routes' tiles there), so this holds the tiles under the mouse and the last few
    /// it crossed, whose items a move back would otherwise make again.
    static constexpr std::size_t defaultCap = 2048;

    explicit TileMaterializer(QGraphicsScene &scene);
    ~TileMaterializer() override;
    TileMaterializer(const TileMaterializer &) = delete;
    TileMaterializer &operator=(const TileMaterializer &) = delete;

    /// Puts the tiles of `request` into the scene set last (none of their children yet). The
    /// items of a previous request are forgotten (the caller clears the scene).
    void start(Request request);
    /// Forgets the drawing; its tiles and items stay in the scene, the caller clears them.
    void clear();
    /// Puts the next drawing's tiles into `scene`.
    void setScene(QGraphicsScene &scene) { m_scene = &scene; }
    [[nodiscard]] bool isActive() const { return m_layout != nullptr; }
    [[nodiscard]] const Layout *layout() const { return m_layout.get(); }
    [[nodiscard]] const Graph *graph() const { return m_request.graph; }
    [[nodiscard]] const LayoutGraph *layoutGraph() const { return m_graph.get(); }

    // --- the drawing, from the layout ---
    /// The layout graph's index of a drawn node or edge; `none` when it is not drawn.
    [[nodiscard]] std::size_t nodeIndex(NodeId node) const;
    [[nodiscard]] std::size_t edgeIndex(const EdgeRef &edge) const;
    [[nodiscard]] NodeId nodeId(std::size_t node) const { return m_graph->nodes[node].id; }
    [[nodiscard]] EdgeRef edgeRef(std::size_t edge) const;
    /// The box of a drawn node (scene coordinates).
    [[nodiscard]] QRectF nodeRect(std::size_t node) const;
    /// The route of a drawn edge (a view into the layout).
    [[nodiscard]] LayoutSpline spline(std::size_t edge) const
    {
        return m_layout->edges.spline(m_splineAt[edge]);
    }
    /// The drawn nodes, in id order (with their layout-graph indices).
    [[nodiscard]] const std::vector<std::pair<NodeId, std::uint32_t>> &drawnNodes() const
    {
        return m_nodeOrder;
    }
    /// The drawn nodes whose box meets `area` (scene coordinates), by index, sorted.
    [[nodiscard]] std::vector<std::size_t> nodesIn(const QRectF &area) const;
    /// The topmost drawn node whose box holds `point`, or `none`.
    [[nodiscard]] std::size_t nodeAt(const QPointF &point) const;
    /// The drawn edges whose route crosses the segment a-b, by index.
    [[nodiscard]] std::vector<std::size_t> edgesCrossing(const QPointF &a, const QPointF &b) const;

    // --- the items ---
    /// The item of a drawn node or edge, its tile's children made first (nullptr: not drawn).
    NodeItem *nodeItem(std::size_t node);
    EdgeItem *edgeItem(std::size_t edge);
    /// The item when it exists, without making it.
    [[nodiscard]] NodeItem *madeNodeItem(std::size_t node) const;
    [[nodiscard]] EdgeItem *madeEdgeItem(std::size_t edge) const;
    /// Makes the children of the tiles meeting `area` (they count as just needed): the items
    /// Qt's hit tests look for there (hover, tooltips).
    void makeArea(const QRectF &area);
    /// Makes every tile's children (tests that look at every item).
    void makeAll();
    /// Drops the children of the least recently needed tiles not meeting `keep` while more
    /// than cap() items exist (deleting a tile's items takes about a millisecond).
    void trim(const QRectF &keep);
    void setCap(std::size_t items) { m_cap = items; }
    [[nodiscard]] std::size_t cap() const { return m_cap; }
    /// How many NodeItems and EdgeItems exist now.
    [[nodiscard]] std::size_t madeItems() const { return m_made; }
    /// How many tiles have their children made, of tileCount().
    [[nodiscard]] std::size_t madeTiles() const;
    [[nodiscard]] std::size_t tileCount() const { return m_tiles.size(); }
    /// The tile holding a drawn node's item, and whether its children are made (tests).
    [[nodiscard]] std::size_t tileOfNode(std::size_t node) const;
    [[nodiscard]] bool isTileMade(std::size_t tile) const { return m_tiles[tile].made; }

    /// The state of every node and edge; after changing it, repaint the member (the setters
    /// below do both, and set it on the item when that exists).
    [[nodiscard]] ItemStates &states() { return m_states; }
    [[nodiscard]] const ItemStates &states() const { return m_states; }
    /// Sets one state of a drawn node or edge (an index out of range: nothing) in states() and
    /// on its item when that exists, and repaints the member through its tile.
    /// setSelected() returns whether the selection changed.
    bool setSelected(std::size_t node, bool on);
    void setProblem(std::size_t node, bool on);
    void setHighlighted(std::size_t node, bool on);
    void setEdgeHighlighted(std::size_t edge, bool on);
    void setCutHover(std::size_t edge, bool on);
    void setFlash(std::size_t edge, qreal strength);
    void setBoundaryColour(std::size_t edge, const QColor &colour);
    /// Repaints a drawn node's or edge's box through its tile (a new look, items or not).
    void repaintNode(std::size_t node) const;
    void repaintEdge(std::size_t edge) const;

    // --- TileContent ---
    std::size_t paintMembers(std::size_t tile, QPainter &painter, const QRectF &exposed) override;
    void childHovered(std::size_t tile, QGraphicsItem &child, bool on) override;
    void describeMembers(std::size_t tile, const QRectF &area, TileSink &sink) override;

private:
    struct Tile
    {
        ItemTile *item = nullptr;
        std::vector<std::uint32_t> members; ///< Layout-graph indices of nodes or of edges, sorted.
        /// While made: the item of each member (NodeItems or EdgeItems), in members' order.
        std::vector<QGraphicsItem *> items;
        /// Node tiles: each member's OpCategory once the member is painted (0xff before), and
        /// its title and subtitle (shared texts) once they are written; in members' order.
        std::vector<std::uint8_t> categories;
        std::vector<const QString *> texts; ///< Title and subtitle of each member, in turn.
        /// Once painted (edge tiles): each member's box (edgeItemBounds), in members' order.
        std::vector<FloatRect> bounds;
        std::uint64_t used = 0; ///< When the mouse or a request last needed its items.
        bool nodes = false;
        bool made = false;
    };
    /// The look of member `k` of node tile `tile` (with its texts when `text`); false, and
    /// nothing looked up, when its box misses `area`.
    bool nodeLook(Tile &tile, std::size_t k, bool text, const QRectF &area, NodeLook &look);
    /// Calls visit(edge, box, look) for the members of edge tile `tile` whose boxes meet
    /// `area`, the boundary edges last; returns how many.
    template <typename Visit>
    std::size_t forEdges(Tile &tile, const QRectF &area, Visit visit);
    std::size_t paintNodes(Tile &tile, QPainter &painter, const QRectF &exposed, qreal lod);
    std::size_t paintEdges(Tile &tile, QPainter &painter, const QRectF &exposed, qreal lod);
    void makeTile(std::size_t index);
    void dropTile(std::size_t index);
    [[nodiscard]] QGraphicsItem *madeItem(const std::vector<std::uint32_t> &tileOf,
                                          std::size_t index) const;
    [[nodiscard]] NodeItem *makeNode(std::uint32_t index);
    [[nodiscard]] EdgeItem *makeEdge(std::uint32_t index);
    [[nodiscard]] const QString &shared(const std::string &text);

    QGraphicsScene *m_scene;
    Request m_request;
    std::shared_ptr<const LayoutGraph> m_graph;
    std::shared_ptr<const Layout> m_layout;
    static constexpr std::uint32_t notDrawn = static_cast<std::uint32_t>(-1);
    /// Per layout-graph node, the position of its rectangle in the layout's nodes (notDrawn).
    std::vector<std::uint32_t> m_rectAt;
    /// Per layout-graph edge, the position of its spline in the layout's edges (notDrawn).
    std::vector<std::uint32_t> m_splineAt;
    /// Per spline of the layout, its layout-graph edge (notDrawn: none, or no route).
    std::vector<std::uint32_t> m_edgeOfSpline;
    std::vector<std::pair<NodeId, std::uint32_t>> m_nodeOrder;
    std::vector<std::uint32_t> m_nodeTile; ///< Per layout-graph node: its tile in m_tiles.
    std::vector<std::uint32_t> m_edgeTile;
    std::vector<bool> m_labelled; ///< Per edge: it carries its tensor's shape label.
    std::vector<Tile> m_tiles;
    std::unordered_map<std::string, QString> m_texts; ///< One QString per distinct label text.
    ItemStates m_states;
    std::size_t m_made = 0;
    std::size_t m_cap = defaultCap;
    std::uint64_t m_clock = 0;
};

} // namespace cleave::ui
