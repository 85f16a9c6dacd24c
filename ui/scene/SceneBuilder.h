// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Ids.h"
#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"

#include <QColor>
#include <QElapsedTimer>
#include <QObject>
#include <QRectF>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

class QGraphicsScene;
class QTimer;

namespace cleave::ui {

class EdgeItem;
class EdgeLabels;
class ItemTile;
class NodeItem;

/// Fills a scene with the items of a layout: one NodeItem per laid-out node and one EdgeItem per
/// drawn edge, as children of ItemTiles (a few hundred neighbours each; edge tiles under node
/// tiles), which are made first, all at once. The work is cut into slices of a few milliseconds,
/// one per event-loop turn, so that the window keeps painting and answering while a large graph
/// (100k nodes: seconds of item construction) is drawn; the items in the area the view opens on
/// come first. A graph whose items fit in one slice is built within start().
///
/// The items point into the layout (EdgeItem keeps its spline): the builder holds the layout
/// while it builds, and its owner must keep it alive as long as the items exist.
class SceneBuilder : public QObject
{
    Q_OBJECT
public:
    /// What to draw.
    struct Request
    {
        const Graph *graph = nullptr;
        std::shared_ptr<const LayoutGraph> layoutGraph;
        std::shared_ptr<const Layout> layout;
        /// Comparison rings by node, read as each node is made (may change between slices).
        const std::unordered_map<NodeId, QColor> *marks = nullptr;
        /// The shape labels of edges (one edge per tensor, the first drawn, carries its label).
        const EdgeLabels *labels = nullptr;
        /// The scene area whose items are made first (the area the view opens on).
        QRectF first;
    };

    /// Items go into `scene` and are listed in `nodeItems` / `edgeItems` as they are made.
    SceneBuilder(QGraphicsScene &scene, std::unordered_map<NodeId, NodeItem *> &nodeItems,
                 std::map<EdgeRef, EdgeItem *> &edgeItems, QObject *parent = nullptr);
    ~SceneBuilder() override;
    SceneBuilder(const SceneBuilder &) = delete;
    SceneBuilder &operator=(const SceneBuilder &) = delete;

    /// Builds into `scene` from now on (a running build is stopped first).
    void setScene(QGraphicsScene &scene);
    /// Starts building (a running build is stopped first; the items it made stay in the scene,
    /// the caller clears them). Makes the first slice at once; built() is emitted when the last
    /// item is made, before start() returns when all fit in that slice.
    void start(Request request);
    /// Stops building: no more items are made, built() is not emitted, the layout is let go.
    void stop();
    [[nodiscard]] bool isBuilding() const { return m_building; }
    /// The longest a slice may take (milliseconds); 0 makes everything in one slice.
    void setSliceBudget(int milliseconds) { m_budget = milliseconds; }

signals:
    /// Every item of the request is in the scene.
    void built();

private:
    enum class Step : std::uint8_t { FirstNodes, Labels, FirstEdges, Nodes, Edges, Done };
    void runSlice();
    /// Makes items of the current step until the slice's time is up; true when the step is done.
    bool runStep(const QElapsedTimer &clock);
    void makeNode(std::size_t index);
    void makeEdge(std::size_t index);

    QGraphicsScene *m_scene;
    std::unordered_map<NodeId, NodeItem *> &m_nodeItems;
    std::map<EdgeRef, EdgeItem *> &m_edgeItems;
    QTimer *m_next = nullptr;
    Request m_request;
    Step m_step = Step::Done;
    std::size_t m_cursor = 0;
    std::vector<ItemTile *> m_nodeTiles; ///< In the scene; by TilePlan::nodeTiles' index.
    std::vector<ItemTile *> m_edgeTiles;
    std::vector<std::uint32_t> m_nodeTile; ///< Per node of the layout graph (TilePlan).
    std::vector<std::uint32_t> m_edgeTile;
    std::vector<bool> m_nodeMade;
    std::vector<bool> m_edgeMade;
    std::vector<bool> m_labelled; ///< Per edge: it carries its tensor's shape label.
    std::vector<bool> m_firstNode; ///< Per node: it lies in Request::first.
    std::set<TensorRef> m_labelledTensors;
    std::unordered_map<std::string, QString> m_texts; ///< One QString per distinct label text.
    int m_budget = 8;
    bool m_building = false;
};

} // namespace cleave::ui
