// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The private half of CanvasWidget, shared by its three source files (no other file includes
// it): CanvasWidget.cpp (the widget's interface: graph, plan, tools, navigation),
// CanvasWidgetScene.cpp (making, finishing and disposing of scenes, the far picture, the minimap,
// the sliced jobs) and CanvasWidgetPlan.cpp (drawing the plan: regions, boundary badges,
// problems, highlights, picking).
#pragma once

#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutGraph.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/drawing/DrawingWriter.h"
#include "ui/canvas/far/FarPicture.h"
#include "ui/canvas/far/FarPictureSource.h"
#include "ui/canvas/items/BlockFrames.h"
#include "ui/canvas/items/BoundaryLayer.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/items/ItemTile.h"
#include "ui/canvas/items/NodePainter.h"
#include "ui/canvas/items/NodeSelection.h"
#include "ui/canvas/items/PlanLayerItem.h"
#include "ui/canvas/items/TileMaterializer.h"
#include "ui/canvas/jobs/LayoutRunner.h"
#include "ui/canvas/jobs/RegionGeometryMaker.h"
#include "ui/canvas/tools/CutTool.h"
#include "ui/canvas/tools/SelectTool.h"
#include "ui/canvas/view/CanvasToolTips.h"
#include "ui/canvas/view/CanvasView.h"
#include "ui/canvas/view/Minimap.h"
#include "ui/document/Document.h"
#include "ui/document/LevelView.h"
#include "ui/geometry/RegionGeometryStore.h"
#include "ui/support/CanvasTheme.h"
#include "ui/support/OpCategory.h"
#include "ui/support/SceneDisposer.h"
#include "ui/widgets/LayoutOverlay.h"

#include <QDir>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsSceneHelpEvent>
#include <QImage>
#include <QPainter>
#include <QResizeEvent>
#include <QSaveFile>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>
#include <QVariantAnimation>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace cleave::ui {

// Timing and size constants of the canvas (private to CanvasWidget).
inline constexpr qreal initialZoom = 0.8;
// How long a turn may run each sliced job, a paint following it: the disposal of the old
// scene while the new one is completed; a job completing a built scene; the disposal alone.
inline constexpr int disposeWhileBuildingMs = 3;
inline constexpr int finishSliceMs = 6;
inline constexpr int disposeSliceMs = 6;
// A scene of up to this many items is cleared at once (a few milliseconds); a larger one is
// swapped for a fresh scene and deleted over the next event-loop turns.
inline constexpr qsizetype itemsClearedAtOnce = 4000;

// The tensor shapes written on edges when zoomed in: made as they are painted.
class ShapeLabels : public EdgeLabels
{
public:
    const Graph *graph = nullptr;
    mutable std::vector<std::pair<EdgeRef, QString>> drawnSincePaint;

    [[nodiscard]] QString text(EdgeRef edge) const override
    {
        return graph != nullptr ? QString::fromStdString(shapeText(graph->tensorType(edge.tensor)))
                                : QString();
    }
    void drawn(EdgeRef edge, const QString &text) const override
    {
        drawnSincePaint.emplace_back(edge, text);
    }
};

struct CanvasWidget::Private
{
    CanvasWidget *q = nullptr;
    CanvasView *view = nullptr;
    QGraphicsScene *scene = nullptr;
    LayoutOverlay *overlay = nullptr;
    Minimap *minimap = nullptr;
    LayoutRunner *runner = nullptr;
    // The drawing, painted by its tiles, with items only where hit tests need them, and the
    // state it shows.
    std::unique_ptr<TileMaterializer> drawing;
    SceneDisposer *disposer = nullptr;
    QTimer *finishing = nullptr; // between the turns that complete a built scene
    QTimer *badges = nullptr; // between the turns that make a plan's badges out of view
    RegionGeometryMaker *geometryMaker = nullptr;
    int finishStep = 0; // the next of those turns (finishTurn())
    QTimer *overlayDelay = nullptr;
    QVariantAnimation *flash = nullptr;
    std::unique_ptr<SelectTool> selectTool;
    std::unique_ptr<CutTool> cutTool;
    Tool tool = Tool::Select;

    const Graph *graph = nullptr;
    FunctionId function;
    std::string cacheKey;
    std::shared_ptr<const LayoutGraph> layoutGraph;
    std::shared_ptr<const Layout> layout;
    // The layout whose items are being made (set as `layout` once they all are), what
    // layoutFinished() will say then, and where the view was put meanwhile.
    std::shared_ptr<const Layout> building;
    QString builtMessage;
    QTransform previewTransform;
    QPoint previewScroll;
    QSize previewViewport;
    const PartitionPlan *plan = nullptr;
    const BoundaryTable *boundary = nullptr;
    // The graph and function the plan was made for, taken when it was set: a plan left over
    // from a previous model is never dereferenced once the graph has changed.
    const Graph *planGraph = nullptr;
    FunctionId planFunction;

    std::vector<QGraphicsItem *> planItems; // regions and their names
    // The shapes every plan's regions draw (made on the first plan of a layout) and the items
    // the regions, their names and the badges hang under (made with it, deleted with the scene).
    std::shared_ptr<const RegionGeometry> regionGeometry;
    PlanLayerItem *regionLayer = nullptr;
    PlanLayerItem *labelLayer = nullptr;
    PlanLayerItem *badgeLayer = nullptr;
    // Boundary edges, their badges and the counts of overlapping badges, kept across plans.
    BoundaryLayer boundaryLayer;
    FarPicture far;
    // What the far picture's plan layer shows, recorded by applyPlan (no plan is read later).
    std::vector<FarPartition> farPartitions;
    FarPlan farPlan;
    std::unique_ptr<BlockFrames> blockFrames;
    std::unordered_map<NodeId, QColor> marks; // shown node -> comparison colour
    ShapeLabels shapeLabels;
    std::vector<EdgeRef> flashing;
    std::vector<std::pair<NodeId, std::string>> problems; // drawn in red
    NodeId highlightedNode;
    EdgeRef highlightedEdge;
    PartitionId highlightedPartition;
    const LevelView *observed = nullptr;
    QMetaObject::Connection graphShown;
    QMetaObject::Connection planShown;
    std::unique_ptr<NodeSelection> selection; // of the drawing's nodes
    bool minimapEnabled = true;
    // Where the next graph set opens (setOpeningPlace()), and where this graph's drawing opens;
    // `placed`: the drawing being built opened there (the initial view is not shown then).
    OpeningPlace nextPlace;
    OpeningPlace place;
    bool placed = false;

    void clearScene();
    /// Makes `nodes` (layout-graph indices) the selection; emits selectionChanged() when it
    /// changed.
    void select(const std::vector<std::size_t> &nodes);
    /// A click of the select tool at `scenePos`; false when no node is there.
    bool clickNode(const QPointF &scenePos, bool add);
    /// The rubber band covers `area`: the nodes it meets join the selection it started from.
    void band(const QRectF &area);
    /// The node under a scene point, or an invalid id.
    [[nodiscard]] NodeId nodeAt(const QPointF &scenePos) const;
    /// Makes the items near a viewport point (hit tests over the items: hover, tooltips) and
    /// drops those of the tiles least recently needed beyond the cap.
    void makeItemsAt(const QPoint &viewportPos) const;
    /// Sets the flat state of an edge and its item's, when it exists.
    void setEdgeFlash(const EdgeRef &edge, qreal strength) const;
    /// Makes the drawing's items where the mouse needs them, and hands the tools and the
    /// boundary layer what they ask of the drawing.
    void wireDrawing();
    /// Removes every item: a small scene is cleared, a large one replaced by a fresh scene
    /// (the old one is deleted in slices, holding the layouts its items point into).
    /// `leftovers` (lookups of the old items, shapes made from them) go after the items.
    void clearItems(std::vector<std::shared_ptr<const void>> leftovers = {});
    /// Starts making the items of a finished layout (the view opens on its top first).
    void buildScene(std::shared_ptr<const Layout> laidOut, QString message);
    /// Every item is made: the plan's regions and badges; finishScene() on the next turn.
    void sceneBuilt();
    /// One of the turns that complete a built scene (region geometry, problems and far
    /// picture, plan, block frames, the rest).
    void finishTurn();
    /// The initial view, the minimap, and layoutFinished().
    void finishScene();
    [[nodiscard]] QPoint scrollPosition() const;
    void applyPlan();
    /// Starts laying out layoutGraph (the card shows after a short delay).
    void startLayout();
    /// Redraws the regions of `partitions` with their current names and targets (same nodes).
    void relabelRegions(const std::vector<PartitionId> &partitions);
    /// The region geometry of `layout`: as a worker made it, else made now.
    [[nodiscard]] std::shared_ptr<const RegionGeometry> takeRegionGeometry() const;
    /// Shows the boundary tensors of the plan (bold edges, badges) by difference with those
    /// shown; returns them as the far picture's lines.
    [[nodiscard]] std::shared_ptr<const std::vector<std::pair<QPolygonF, QRgb>>> applyBoundary();
    /// Badges on the edges into partitions that compute a weight-only value again.
    void appendRecomputed(std::vector<BoundaryCrossing> &crossings) const;
    /// The scene rectangle the minimap shows: the drawing with the partitions' tint around its
    /// nodes (the same for every plan, so a plan change never redraws its node boxes).
    [[nodiscard]] QRectF minimapBounds() const;
    void setUpFarPicture();
    [[nodiscard]] FarState farState() const;
    void clearHighlights();
    void applyProblems(bool on);
    /// Shows the minimap with the plan's tints; `drawingChanged`: the node boxes changed too
    /// (layout, marks, theme), not only the plan.
    void refreshMinimap(bool drawingChanged = true);
    /// Shows the top of a tall drawing or all of a small one (`bounds`, in `l`).
    void showInitialView(const Layout &l, const QRectF &bounds) const;
    /// Opens the view at `place` when its node is in `l`; false otherwise.
    bool showPlace(const Layout &l, const OpeningPlace &place) const;
    /// Zooms to `zoom` and scrolls so that scene point `centre` is at `viewportPos`.
    void centreAt(const QPointF &centre, const QPoint &viewportPos, qreal zoom) const;
    /// The timer that makes a plan's badges out of view, and the block frames.
    void setUpSlicedJobs();
    [[nodiscard]] QRectF drawingBounds() const;
    [[nodiscard]] QString toolTipAt(const QPoint &viewportPos) const;
    void applyTheme();
};

} // namespace cleave::ui
