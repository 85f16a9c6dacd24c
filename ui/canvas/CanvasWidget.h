// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/graph/Graph.h"
#include "core/graph/Ids.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <QColor>
#include <QPoint>
#include <QString>
#include <QWidget>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class QGraphicsView;

namespace cleave {
class LayoutCache;
struct LayoutGraph;
} // namespace cleave

namespace cleave::ui {

class CanvasView;
class EdgeItem;
class LayoutOverlay;
class LayoutRunner;
class LevelView;
class Minimap;
class NodeItem;
class RegionGeometryStore;

/// The graph canvas: a QGraphicsView over the Graphviz layout plus overlay (progress + Cancel
/// while laying out, minimap in a corner). Knows no file format. Never owns graph/plan.
class CanvasWidget : public QWidget
{
    Q_OBJECT
public:
    enum class Tool { Select, Cut };
    explicit CanvasWidget(QWidget *parent = nullptr);
    ~CanvasWidget() override;

    /// Shows one function of `graph` (nullptr clears). Starts a background layout (worker thread,
    /// cached by `cacheKey`, e.g. the model's checksum; a newer call supersedes a running one).
    /// `drawn` is that function's LayoutGraph when it was already made (off the UI thread);
    /// null makes it here.
    void setGraph(const cleave::Graph *graph, cleave::FunctionId function,
                  const std::string &cacheKey,
                  std::shared_ptr<const cleave::LayoutGraph> drawn = nullptr);
    /// Partition regions, boundary edges (bold, partition colour) with badges
    /// ("data_n_0 · 1×256×56×56 · 3.2 MB"). Either may be nullptr. Call again after every plan
    /// edit.
    void setPlan(const cleave::PartitionPlan *plan, const cleave::BoundaryTable *boundary);
    /// Follows `view` (QtNodes' scene observing its model): lays out its shown graph (framing
    /// its blocks) whenever it emits graphShown(), and redraws its shown plan on planShown() —
    /// only the renamed or retargeted regions when the edit changed partition records alone.
    /// nullptr stops following. The view must outlive the canvas or be unset first.
    void observe(const LevelView *view);
    void setTool(Tool tool);
    [[nodiscard]] Tool tool() const;
    [[nodiscard]] bool isLayoutReady() const;
    [[nodiscard]] std::vector<cleave::NodeId> selectedNodes() const;
    void selectNodes(const std::vector<cleave::NodeId> &nodes); // replaces the selection
    void centerOnNode(cleave::NodeId node); // scroll + highlight
    void highlightEdge(cleave::TensorRef tensor, cleave::NodeId consumer); // centre + highlight
    void highlightPartition(cleave::PartitionId partition); // invalid id clears
    void flashEdges(const std::vector<cleave::EdgeRef> &edges); // implied edges flash
    /// Draws these shown nodes in red (ops their partition's target does not support), with
    /// the finding in their tooltip; replaces the previous set. The observed LevelView's
    /// shownProblems() are applied on every plan it shows.
    void setNodeProblems(const std::vector<std::pair<cleave::NodeId, std::string>> &problems);
    /// The nodes drawn in red, sorted.
    [[nodiscard]] std::vector<cleave::NodeId> problemNodes() const;
    void fitToView();
    /// Shows or hides the minimap in the corner (shown by default, once a layout is ready).
    void setMinimapEnabled(bool on);
    [[nodiscard]] bool isMinimapEnabled() const;
    void zoomToSelection();
    /// Viewport coordinates (of view()->viewport()) of a node's centre and of a point on the
    /// edge `tensor -> consumer` (for tests that drive the mouse); invalid QPoint when unknown.
    [[nodiscard]] QPoint viewportPosOfNode(cleave::NodeId node) const;
    [[nodiscard]] QPoint viewportPosOfEdge(cleave::TensorRef tensor, cleave::NodeId consumer) const;
    [[nodiscard]] QGraphicsView *view() const;
    /// The item of a drawn node or edge (nullptr when not drawn). The canvas's tiles paint the
    /// drawing without items, which exist only for hit tests around the mouse: this makes the
    /// items of its tile first when they are not made, for tests and tools that need one.
    [[nodiscard]] NodeItem *nodeItem(cleave::NodeId node) const;
    [[nodiscard]] EdgeItem *edgeItem(const cleave::EdgeRef &edge) const;
    /// Makes the item of every drawn node and edge (tests that inspect them all). They stay
    /// until the mouse needs others beyond the cap (setItemCap()).
    void makeAllItems() const;
    /// How many node and edge items exist now (benchmarks).
    [[nodiscard]] std::size_t itemsMade() const;
    /// The node and edge items kept when the view needs no more (TileMaterializer's cap).
    void setItemCap(std::size_t items);
    /// The drawn node whose centre is nearest the middle of the viewport (searched within the
    /// visible area), or an invalid id.
    [[nodiscard]] cleave::NodeId nodeNearViewportCentre() const;
    /// Zooms to `zoom` and scrolls so that the centre of `node` is at `viewportPos` (as far as
    /// the scene reaches); does nothing when the node is not drawn.
    void placeNode(cleave::NodeId node, const QPoint &viewportPos, qreal zoom);
    /// Where a drawing opens instead of its initial view: the node `node()` names once the
    /// layout is there, at `viewportPos` and `zoom`.
    struct OpeningPlace
    {
        std::function<cleave::NodeId()> node; ///< Asked when the layout arrives.
        QPoint viewportPos;
        qreal zoom = 0;
    };
    /// The drawing of the next setGraph() opens at `place` (its first items are those seen
    /// there) when that node is drawn; a later setGraph() forgets it.
    void setOpeningPlace(OpeningPlace place);
    /// Writes the whole drawn graph as SVG (".svg"), PNG (".png") or PDF (".pdf"); false +
    /// message on error. `dpi` sets the raster resolution (the scene's unit is a pixel at 96 dpi,
    /// so a PNG is the drawing's size × dpi / 96); 0 draws a PNG at twice the drawing's size,
    /// capped at 16000 pixels, and a PDF at 300 dpi.
    bool exportImage(const QString &path, QString *error = nullptr, int dpi = 0) const;

    /// Frames the fused blocks (FuseOps kernels) of the shown function; clicking a frame selects
    /// its block. The names and node ids are copied. setGraph() forgets them: call it after.
    void setBlocks(const std::vector<cleave::FusedBlock> &blocks);

    /// Rings these shown nodes in their colours (a model comparison: added, removed, changed),
    /// replacing the previous marks; kept across layouts of the same nodes. Empty clears.
    void setNodeMarks(const std::vector<std::pair<cleave::NodeId, QColor>> &marks);
    /// The mark of a drawn node (invalid when unmarked or not drawn).
    [[nodiscard]] QColor nodeMark(cleave::NodeId node) const;
    /// The tooltip for viewport position `pos`, made on demand (nothing is stored per item):
    /// a node's inputs, weights and output types, an edge's tensor. Empty over other items.
    [[nodiscard]] QString toolTipAt(const QPoint &pos) const;
    /// The tensor shapes written on edges by the last paint (zoomed in, visible edges only).
    [[nodiscard]] std::vector<std::pair<cleave::EdgeRef, QString>> edgeLabelsDrawn() const;

    /// Cancels a running layout (the Cancel button of the overlay does the same); the overlay
    /// then offers to lay the graph out again.
    void cancelLayout();
    /// Starts the layout of the shown graph again after a cancel (the overlay's "Lay Out Again"
    /// button does the same); does nothing while a layout runs or once one is shown.
    void restartLayout();
    /// Directory of the on-disk layout cache (default: QStandardPaths::CacheLocation/layouts;
    /// empty disables the disk cache).
    void setCacheDirectory(const QString &dir);
    /// The layout cache the canvas lays out through (replaced by setCacheDirectory()): a layout
    /// stored into it in the background is drawn without a new layout (from memory, on the UI
    /// thread) when its graph is shown.
    [[nodiscard]] std::shared_ptr<cleave::LayoutCache> layoutCache() const;
    /// Where the region geometry of a layout made in the background waits for its first plan
    /// (the canvas' layouts, and the level prepared into layoutCache()).
    [[nodiscard]] std::shared_ptr<RegionGeometryStore> regionGeometries() const;

signals:
    void layoutStarted();
    void layoutProgress(int percent);
    void layoutFinished(bool ok, const QString &message); // ok=false also when cancelled
    void selectionChanged(); // selectedNodes() changed
    /// The user released a cut stroke that crossed these edges (empty strokes are not emitted).
    void cutRequested(const std::vector<cleave::EdgeRef> &edges);
    /// The user released a cut stroke that crossed no edge (the stroke is gone already).
    void cutMissed();
    /// The user clicked the badge of this (shown) boundary edge with the select tool; the node
    /// selection was emptied.
    void boundaryBadgeClicked(cleave::EdgeRef edge);
    void nodeActivated(cleave::NodeId node); // double-click
    /// Right-click; the editor shows the context menu (selection already updated).
    void contextMenuRequested(const QPoint &globalPos);

protected:
    void resizeEvent(QResizeEvent *event) override;
    /// A palette change (View ▸ Theme, or the system's) switches the canvas colours.
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Private;
    std::unique_ptr<Private> m_d;
};

} // namespace cleave::ui
