// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/CanvasWidget.h"

#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutGraph.h"
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

namespace {

constexpr qreal initialZoom = 0.8;
// How long a turn may run each sliced job, a paint following it: the disposal of the old
// scene while the new one is completed; a job completing a built scene; the disposal alone.
constexpr int disposeWhileBuildingMs = 3;
constexpr int finishSliceMs = 6;
constexpr int disposeSliceMs = 6;
// A scene of up to this many items is cleared at once (a few milliseconds); a larger one is
// swapped for a fresh scene and deleted over the next event-loop turns.
constexpr qsizetype itemsClearedAtOnce = 4000;

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

// A region's name: the partition's, with its target unless it runs on the host (llvm).
QString regionName(const Partition &p)
{
    QString name = QString::fromStdString(p.name);
    if (!p.target.empty() && p.target != "llvm")
        name += QStringLiteral(" · %1").arg(QString::fromStdString(p.target));
    return name;
}

} // namespace

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

void CanvasWidget::Private::showInitialView(const Layout &l, const QRectF &bounds) const
{
    // The whole drawing when its labels stay readable; otherwise (a tall DNN) its top, where
    // the inputs are, at a readable zoom: the minimap shows the rest.
    view->showRect(bounds);
    if (view->zoom() >= nodeTextZoom)
        return;
    view->setTransform(QTransform::fromScale(initialZoom, initialZoom));
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    // Centred on the topmost node (the first input), not on the drawing's middle: a wide
    // drawing (Inception branches, a transformer's stubs) would otherwise open on empty space.
    qreal x = bounds.center().x();
    qreal top = 0;
    bool found = false;
    for (const auto &[id, r] : l.nodes) {
        if (!found || r.y < top || (r.y == top && r.centerX() < x)) {
            top = r.y;
            x = r.centerX();
            found = true;
        }
    }
    if (!found || bounds.width() <= visible.width())
        x = bounds.center().x();
    else
        x = std::clamp(x, bounds.left() + visible.width() / 2,
                       bounds.right() - visible.width() / 2);
    view->centerOn(QPointF(x, bounds.top() + visible.height() / 2));
    emit view->visibleAreaChanged();
}

bool CanvasWidget::Private::showPlace(const Layout &l, const OpeningPlace &place) const
{
    if (!place.node || place.zoom <= 0)
        return false;
    const auto it = l.nodes.find(place.node());
    if (it == l.nodes.end())
        return false;
    centreAt(QPointF(it->second.centerX(), it->second.centerY()), place.viewportPos, place.zoom);
    return true;
}

void CanvasWidget::Private::centreAt(const QPointF &centre, const QPoint &viewportPos,
                                     qreal zoom) const
{
    view->setTransform(QTransform::fromScale(zoom, zoom));
    // The viewport's centre goes where the node must be seen from it.
    const QPointF offset = QPointF(view->viewport()->rect().center() - viewportPos) / zoom;
    view->centerOn(centre + offset);
    // centerOn() rounds, and scroll bars appearing change the viewport: scroll the rest.
    const QPoint miss = view->mapFromScene(centre) - viewportPos;
    view->horizontalScrollBar()->setValue(view->horizontalScrollBar()->value() + miss.x());
    view->verticalScrollBar()->setValue(view->verticalScrollBar()->value() + miss.y());
    emit view->visibleAreaChanged();
}

QRectF CanvasWidget::Private::drawingBounds() const
{
    if (!layout)
        return {};
    QRectF bounds(layout->bbox.x, layout->bbox.y, layout->bbox.width, layout->bbox.height);
    // Regions with their name labels (left of the region) and badges (right of their edge),
    // at the drawing's own scale: what an export writes must not be cut off.
    for (const QGraphicsItem *item : planItems) {
        if (item->type() == RegionItemType || item->type() == RegionLabelItemType)
            bounds = bounds.united(item->sceneBoundingRect());
    }
    for (const BadgeItem *badge : boundaryLayer.badges())
        bounds = bounds.united(badge->sceneBoundingRect());
    // Fused-block frames with their name tabs (right of the frame).
    if (const QGraphicsItem *frames = blockFrames->layer())
        bounds = bounds.united(frames->sceneBoundingRect());
    return bounds.adjusted(-8, -8, 8, 8);
}

QRectF CanvasWidget::Private::minimapBounds() const
{
    if (!layout)
        return {};
    const QRectF bounds(layout->bbox.x, layout->bbox.y, layout->bbox.width, layout->bbox.height);
    return bounds.adjusted(-regionPadX - 8, -regionPadY - 8, regionPadX + 8, regionPadY + 8);
}

void CanvasWidget::Private::clearItems(std::vector<std::shared_ptr<const void>> leftovers)
{
    if (scene->items().size() <= itemsClearedAtOnce) {
        scene->clear();
        return;
    }
    // Deleting the items of a 100k-node model takes hundreds of milliseconds: the view shows
    // an empty scene at once and the old one goes in slices.
    auto *fresh = new QGraphicsScene(q);
    fresh->setItemIndexMethod(QGraphicsScene::NoIndex);
    QGraphicsScene *old = scene;
    old->blockSignals(true); // its selection empties as its items go
    old->setParent(nullptr);
    view->setScene(fresh);
    scene = fresh;
    drawing->setScene(*fresh);
    leftovers.push_back(layout);
    leftovers.push_back(building);
    disposer->dispose(std::unique_ptr<QGraphicsScene>(old), std::move(leftovers));
}

void CanvasWidget::Private::clearScene()
{
    geometryMaker->cancel();
    disposer->setSliceBudget(disposeSliceMs);
    finishing->stop();
    badges->stop();
    cutTool->deactivate();
    flash->stop();
    flashing.clear();
    boundaryLayer.forget(); // its badges are deleted with the scene
    far.clear();
    farPartitions.clear();
    farPlan = {};
    // The regions' shapes go with the items: freeing them took tens of milliseconds on a
    // 100k-node model.
    std::vector<std::shared_ptr<const void>> leftovers { std::exchange(regionGeometry, nullptr) };
    const bool hadSelection = drawing->states().selectedCount() > 0;
    selection->endBand();
    drawing->clear(); // its tiles and items go with the scene
    regionLayer = labelLayer = badgeLayer = nullptr; // deleted with the scene
    planItems.clear();
    blockFrames->forget(); // the frames shown are deleted with the scene
    highlightedNode = {};
    highlightedEdge = {};
    clearItems(std::move(leftovers));
    building.reset(); // after its items
    minimap->clear();
    if (hadSelection)
        emit q->selectionChanged();
    if (tool == Tool::Cut)
        cutTool->activate();
}

void CanvasWidget::Private::buildScene(std::shared_ptr<const Layout> laidOut, QString message)
{
    building = std::move(laidOut);
    builtMessage = std::move(message);
    const Layout &l = *building;
    const QRectF bounds(l.bbox.x, l.bbox.y, l.bbox.width, l.bbox.height);
    const qreal margin = std::max<qreal>(400, std::max(bounds.width(), bounds.height()) * 0.25);
    // The scene's rect is that of the finished scene from the start (the scrollbars do not
    // change as the items arrive). The scene keeps no index: its items hang under ItemTiles.
    scene->setSceneRect(bounds.adjusted(-margin, -margin, margin, margin));
    // The view opens where it will stay (unless the user moves it meanwhile).
    placed = showPlace(l, std::exchange(place, {}));
    if (!placed)
        showInitialView(l, bounds.adjusted(-8, -8, 8, 8));
    previewTransform = view->transform();
    previewScroll = scrollPosition();
    previewViewport = view->viewport()->size();
    shapeLabels.graph = graph;
    TileMaterializer::Request request;
    request.graph = graph;
    request.layoutGraph = layoutGraph;
    request.layout = building;
    request.marks = &marks;
    request.labels = &shapeLabels;
    // The old scene's disposal runs in short slices while the new one is completed (it frees
    // the memory the new items reuse).
    disposer->setSliceBudget(disposeWhileBuildingMs);
    // The region geometry is made meanwhile, unless a worker made it with the layout.
    if (!runner->regionGeometries()->holds(building.get()))
        geometryMaker->start(building, runner->regionGeometries());
    // The tiles only (a few hundred items), which paint the drawing from the layout: node and
    // edge items are made only where the mouse or a caller needs them.
    drawing->start(std::move(request));
    sceneBuilt();
}

QPoint CanvasWidget::Private::scrollPosition() const
{
    return { view->horizontalScrollBar()->value(), view->verticalScrollBar()->value() };
}

void CanvasWidget::Private::sceneBuilt()
{
    // Each pass over a large graph's items takes up to tens of milliseconds: they go on the
    // turns after the last slice of items, one a turn, so that a frame is painted between
    // them. The canvas is ready (isLayoutReady()) once all are done.
    layout = std::exchange(building, nullptr);
    finishStep = 0;
    finishing->start();
}

void CanvasWidget::Private::finishTurn()
{
    // The badges out of view that the plan left to make come first: the drawing is complete
    // with them.
    if (boundaryLayer.hasPendingBadges()) {
        boundaryLayer.showMore(*scene, view->zoom(), finishSliceMs);
        finishing->start();
        return;
    }
    finishing->setInterval(0);
    switch (finishStep++) {
    case 0:
        // Made by a worker with the layout, or by the one buildScene() started (waited for).
        if (!runner->regionGeometries()->holds(layout.get()) && geometryMaker->isRunning()) {
            --finishStep;
            finishing->start(1);
            return;
        }
        regionGeometry = takeRegionGeometry();
        break;
    case 1:
        applyProblems(true);
        setUpFarPicture();
        view->viewport()->update(); // items or the picture, whichever the zoom shows now
        break;
    case 2:
        applyPlan();
        break;
    case 3:
        // Thousands of frames on a large model's operators: over as many turns as it takes.
        if (!blockFrames->apply(*scene, *layout, finishSliceMs))
            --finishStep;
        break;
    default:
        finishScene();
        return;
    }
    finishing->start();
}

void CanvasWidget::Private::finishScene()
{
    // With the regions and frames in the bounds, unless the user has zoomed or scrolled
    // meanwhile (a resized viewport scrolls by itself: the view is then placed again).
    const bool moved = view->transform() != previewTransform
        || (view->viewport()->size() == previewViewport && scrollPosition() != previewScroll);
    if (!moved && !placed)
        showInitialView(*layout, drawingBounds());
    refreshMinimap();
    disposer->setSliceBudget(disposeSliceMs);
    emit q->layoutFinished(true, builtMessage);
}

void CanvasWidget::Private::setUpFarPicture()
{
    const QRectF bounds(layout->bbox.x, layout->bbox.y, layout->bbox.width, layout->bbox.height);
    far.setSource(farGeometry(layout, bounds.adjusted(-40, -40, 40, 40), *graph),
                  [this] { return farState(); });
}

FarState CanvasWidget::Private::farState() const
{
    FarState state;
    state.style = farStyle(*drawing, highlightedNode, marks, problems);
    state.plan = farPlan;
    state.plan.tints = farTints(farPartitions, highlightedPartition);
    return state;
}

void CanvasWidget::Private::applyPlan()
{
    far.invalidate();
    for (QGraphicsItem *item : planItems) {
        scene->removeItem(item);
        delete item;
    }
    planItems.clear();

    farPartitions.clear();
    farPlan = {};
    if (!layout || plan == nullptr || graph == nullptr || planGraph != graph
        || planFunction != function) {
        boundaryLayer.clear();
        return;
    }

    // One pass over the drawn nodes and one over the edges give each its partition's index:
    // the regions draw the layout's shared shapes by these slots, and so do the far picture's
    // plan layer and the minimap (whose geometries follow the region geometry's orders).
    if (!regionGeometry)
        regionGeometry = takeRegionGeometry();
    const auto &partitions = plan->partitions();
    // The padded box of each partition's topmost (then leftmost) node, where its name goes.
    std::vector<QRectF> topmost(partitions.size());
    auto nodeSlots = std::make_shared<std::vector<std::int32_t>>();
    nodeSlots->reserve(regionGeometry->nodes.size());
    auto edgeSlots = std::make_shared<std::vector<std::int32_t>>();
    edgeSlots->reserve(regionGeometry->edges.size());
    for (const Partition &p : partitions)
        farPartitions.push_back({ p.id, partitionColour(p.colour) });
    for (std::size_t i = 0; i < regionGeometry->nodes.size(); ++i) {
        const int index = plan->indexOf(plan->partitionOf(regionGeometry->nodes[i]));
        nodeSlots->push_back(index);
        if (index < 0)
            continue;
        const QRectF r = regionGeometry->box(i);
        QRectF &top = topmost[static_cast<std::size_t>(index)];
        if (top.isNull() || r.y() < top.y() || (r.y() == top.y() && r.x() < top.x()))
            top = r;
    }
    for (const EdgeRef &edge : regionGeometry->edges) {
        const int from = plan->indexOf(plan->partitionOf(edge.tensor.node));
        const bool inside = from >= 0 && from == plan->indexOf(plan->partitionOf(edge.consumer));
        edgeSlots->push_back(inside ? from : -1);
    }

    const RegionSlots membership { nodeSlots, edgeSlots };
    const std::vector<RegionExtent> extents
        = regionExtents(*regionGeometry, membership, partitions.size());
    farPlan.nodeSlots = std::move(nodeSlots);
    farPlan.edgeSlots = std::move(edgeSlots);
    if (regionLayer == nullptr) {
        // At the depths the items had as top-level items: regions under edges and nodes,
        // their names above every region, badges above nodes.
        regionLayer = new PlanLayerItem(scene->sceneRect(), -10);
        labelLayer = new PlanLayerItem(scene->sceneRect(), -5);
        badgeLayer = new PlanLayerItem(scene->sceneRect(), 5);
        for (QGraphicsItem *layer : { regionLayer, labelLayer, badgeLayer })
            scene->addItem(layer);
    }
    for (std::size_t i = 0; i < partitions.size(); ++i) {
        if (extents[i].boxCount == 0)
            continue;
        const Partition &p = partitions[i];
        const QString name = regionName(p);
        // Left of the node's own box (the padded box less its padding), at its middle.
        const QPointF labelPos(topmost[i].x() - 6, topmost[i].center().y());
        auto *region = new PartitionRegionItem(
            p.id, partitionColour(p.colour), name, regionGeometry, membership,
            static_cast<std::int32_t>(i), extents[i], labelPos, regionLayer);
        region->setHighlighted(highlightedPartition.isValid() && p.id == highlightedPartition);
        planItems.push_back(region);
        auto *label = new RegionLabelItem(p.id, name, partitionColour(p.colour));
        label->setPos(labelPos);
        label->setParentItem(labelLayer);
        planItems.push_back(label);
    }

    farPlan.boundary = applyBoundary();
}

std::shared_ptr<const std::vector<std::pair<QPolygonF, QRgb>>>
CanvasWidget::Private::applyBoundary()
{
    std::vector<BoundaryCrossing> crossings;
    if (boundary != nullptr) {
        for (const BoundaryTensor &b : boundary->tensors) {
            const Partition *producer = plan->partition(b.producerPartition);
            const QColor colour = partitionColour(producer != nullptr ? producer->colour : 0);
            const QString shape = QString::fromStdString(shapeText(b.type));
            for (const BoundaryConsumer &c : b.consumers) {
                // The badge goes on the first drawn edge into the consumer partition.
                bool badged = false;
                for (NodeId n : c.nodes) {
                    const EdgeRef edge { b.tensor, n };
                    const std::size_t index = drawing->edgeIndex(edge);
                    if (index == TileMaterializer::none)
                        continue;
                    QString text;
                    if (!badged) {
                        badged = true;
                        text = QString::fromStdString(c.inputName);
                        if (!shape.isEmpty())
                            text += QStringLiteral(" · ") + shape;
                        if (b.bytes)
                            text += QStringLiteral(" · ") + badgeBytes(*b.bytes);
                    }
                    crossings.push_back(
                        { edge, splineMidPoint(drawing->spline(index)), colour, std::move(text) });
                }
            }
        }
    }
    boundaryLayer.show(crossings, badgeLayer, *scene, view->zoom(),
                       view->mapToScene(view->viewport()->rect()).boundingRect());
    if (boundaryLayer.hasPendingBadges() && !finishing->isActive())
        badges->start();

    // The far picture's boundary lines are the region geometry's routes (in the sorted order
    // of its edges).
    auto lines = std::make_shared<std::vector<std::pair<QPolygonF, QRgb>>>();
    lines->reserve(crossings.size());
    const std::vector<EdgeRef> &edges = regionGeometry->edges;
    for (const BoundaryCrossing &c : crossings) {
        const auto it = std::lower_bound(edges.begin(), edges.end(), c.edge);
        if (it != edges.end() && *it == c.edge)
            lines->emplace_back(
                regionGeometry->routePolygon(static_cast<std::size_t>(it - edges.begin())),
                c.colour.rgba());
    }
    return lines;
}

void CanvasWidget::Private::relabelRegions(const std::vector<PartitionId> &partitions)
{
    // Same nodes, same shapes: only the names on the labels and the regions change.
    for (QGraphicsItem *item : planItems) {
        PartitionId id;
        if (const auto *label = qgraphicsitem_cast<RegionLabelItem *>(item))
            id = label->partitionId();
        else if (const auto *region = qgraphicsitem_cast<PartitionRegionItem *>(item))
            id = region->partitionId();
        if (!id.isValid()
            || std::find(partitions.begin(), partitions.end(), id) == partitions.end())
            continue;
        const Partition *p = plan->partition(id);
        if (p == nullptr)
            continue;
        if (auto *label = qgraphicsitem_cast<RegionLabelItem *>(item))
            label->setText(regionName(*p));
        else if (auto *region = qgraphicsitem_cast<PartitionRegionItem *>(item))
            region->setName(regionName(*p));
    }
}

std::shared_ptr<const RegionGeometry> CanvasWidget::Private::takeRegionGeometry() const
{
    // Made by a worker (with the layout, or while the items were made); made here only when
    // no worker could (a plan set before the scene was complete, a worker stopped).
    if (std::shared_ptr<const RegionGeometry> made = runner->regionGeometries()->take(layout.get()))
        return made;
    return makeRegionGeometry(layout);
}

void CanvasWidget::Private::applyProblems(bool on)
{
    // The messages join the node's tooltip when it is asked for (toolTipAt).
    for (const auto &[node, message] : problems) {
        drawing->setProblem(drawing->nodeIndex(node), on);
    }
    far.invalidate();
}

void CanvasWidget::Private::clearHighlights()
{
    if (highlightedNode.isValid())
        drawing->setHighlighted(drawing->nodeIndex(highlightedNode), false);
    if (highlightedEdge.consumer.isValid())
        drawing->setEdgeHighlighted(drawing->edgeIndex(highlightedEdge), false);
    highlightedNode = {};
    highlightedEdge = {};
    far.invalidate();
}

void CanvasWidget::Private::refreshMinimap(bool drawingChanged)
{
    if (!minimapEnabled || !layout) {
        minimap->hide();
        return;
    }
    if (drawingChanged || !minimap->hasDrawing()) {
        // Node boxes in their category's colour (a ringed node, a comparison's difference, in
        // its ring's colour, a little larger) over the padded boxes that partitions tint, read
        // from the far picture's geometry: the layout's nodes, in the order of the plan's node
        // slots (the region geometry's).
        std::vector<QColor> colours;
        for (int c = 0; c <= static_cast<int>(OpCategory::Other); ++c)
            colours.push_back(categoryStroke(static_cast<OpCategory>(c)));
        minimap->setDrawing(far.geometry(), std::move(colours), marks);
    }
    // Each partition's colour lightened towards white (grey boxes without a plan); applyPlan
    // left the slots of the plan shown, if any, in farPlan.
    std::vector<QRgb> tints;
    tints.reserve(farPartitions.size());
    for (const FarPartition &p : farPartitions) {
        const QColor c = p.colour;
        tints.push_back(QColor::fromRgbF(static_cast<float>(0.6 + 0.4 * c.redF()),
                                         static_cast<float>(0.6 + 0.4 * c.greenF()),
                                         static_cast<float>(0.6 + 0.4 * c.blueF()))
                            .rgba());
    }
    minimap->setTints(farPlan.nodeSlots, std::move(tints));
    minimap->refresh(minimapBounds());
    minimap->move(q->width() - minimap->width() - 12, q->height() - minimap->height() - 12);
    minimap->raise();
}

void CanvasWidget::Private::setUpSlicedJobs()
{
    badges = new QTimer(q);
    badges->setSingleShot(true);
    badges->setInterval(0);
    QObject::connect(badges, &QTimer::timeout, q, [this] {
        // While a built scene is being completed, its turns make them.
        if (finishing->isActive() || boundaryLayer.showMore(*scene, view->zoom(), finishSliceMs))
            return;
        badges->start();
    });
    blockFrames
        = std::make_unique<BlockFrames>([this](const std::vector<NodeId> &members, bool add) {
              std::vector<NodeId> selection = add ? q->selectedNodes() : std::vector<NodeId>();
              selection.insert(selection.end(), members.begin(), members.end());
              q->selectNodes(selection);
          });
}

CanvasWidget::CanvasWidget(QWidget *parent)
    : QWidget(parent)
    , m_d(std::make_unique<Private>())
{
    m_d->q = this;
    m_d->view = new CanvasView(this);
    m_d->scene = new QGraphicsScene(this);
    m_d->scene->setItemIndexMethod(QGraphicsScene::NoIndex);
    m_d->view->setScene(m_d->scene);
    m_d->view->setFarPicture(&m_d->far);
    m_d->view->setToolTipProvider([this](const QPoint &pos) { return m_d->toolTipAt(pos); });
    m_d->view->viewport()->installEventFilter(this);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_d->view);
    m_d->overlay = new LayoutOverlay(this);
    m_d->minimap = new Minimap(m_d->view, this);
    m_d->runner = new LayoutRunner(this);
    m_d->drawing = std::make_unique<TileMaterializer>(*m_d->scene);
    m_d->selection = std::make_unique<NodeSelection>(*m_d->drawing);
    m_d->disposer = new SceneDisposer(this);
    m_d->disposer->setSliceBudget(disposeSliceMs);
    m_d->geometryMaker = new RegionGeometryMaker(this);
    m_d->finishing = new QTimer(this);
    m_d->finishing->setSingleShot(true);
    m_d->finishing->setInterval(0);
    connect(m_d->finishing, &QTimer::timeout, this, [this] { m_d->finishTurn(); });
    m_d->setUpSlicedJobs();
    m_d->runner->setCacheDirectory(
        QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation))
            .filePath(QStringLiteral("layouts")));
    m_d->overlayDelay = new QTimer(this);
    m_d->overlayDelay->setSingleShot(true);
    m_d->overlayDelay->setInterval(150);
    m_d->flash = new QVariantAnimation(this);
    m_d->flash->setStartValue(0.0);
    m_d->flash->setEndValue(1.0);
    m_d->flash->setDuration(1800);
    m_d->applyTheme();
    m_d->selectTool = std::make_unique<SelectTool>(*m_d->view);
    m_d->cutTool = std::make_unique<CutTool>(*m_d->view);
    m_d->wireDrawing();
    m_d->view->setTool(m_d->selectTool.get());

    connect(m_d->overlayDelay, &QTimer::timeout, this, [this] {
        if (m_d->runner->isRunning()) {
            m_d->overlay->reposition();
            m_d->overlay->show();
            m_d->overlay->raise();
        }
    });
    connect(m_d->overlay, &LayoutOverlay::cancelClicked, this, &CanvasWidget::cancelLayout);
    connect(m_d->overlay, &LayoutOverlay::retryClicked, this, &CanvasWidget::restartLayout);
    connect(m_d->runner, &LayoutRunner::progress, this, [this](quint64, int percent) {
        m_d->overlay->setProgress(percent);
        emit layoutProgress(percent);
    });
    connect(
        m_d->runner, &LayoutRunner::finished, this, [this](quint64, const LayoutResult &result) {
            m_d->overlayDelay->stop();
            m_d->overlay->hide();
            if (!result.isOk()) {
                emit layoutFinished(false, QString::fromStdString(result.message));
                return;
            }
            QString message = result.fromCache
                ? QStringLiteral("Layout of %1 nodes from cache").arg(result.layout->nodes.size())
                : QStringLiteral("Laid out %1 nodes in %2 ms (%3)")
                      .arg(result.layout->nodes.size())
                      .arg(qRound(result.milliseconds))
                      .arg(QString::fromStdString(result.layout->engine));
            // The items are made over the next event-loop turns; layoutFinished() follows.
            m_d->buildScene(result.layout, std::move(message));
        });
    connect(&m_d->far, &FarPicture::pictureChanged, this, [this] {
        if (m_d->far.covers(m_d->view->zoom()))
            m_d->view->viewport()->update();
    });
    connect(m_d->view, &CanvasView::cutStroke, this, &CanvasWidget::cutRequested);
    connect(m_d->view, &CanvasView::visibleAreaChanged, this, [this] {
        // Badges keep their screen size: which of them overlap changes with the zoom only.
        if (!m_d->boundaryLayer.badges().empty()
            && m_d->view->zoom() != m_d->boundaryLayer.groupedZoom())
            m_d->boundaryLayer.regroup(*m_d->scene, m_d->view->zoom());
    });
    connect(m_d->view, &CanvasView::fitRequested, this, &CanvasWidget::fitToView);
    connect(m_d->view, &CanvasView::zoomToSelectionRequested, this, &CanvasWidget::zoomToSelection);
    connect(m_d->view, &CanvasView::nodeDoubleClicked, this, [this](const QPointF &pos) {
        if (const NodeId node = m_d->nodeAt(pos); node.isValid())
            emit nodeActivated(node);
    });
    connect(m_d->view, &CanvasView::contextMenuAt, this,
            [this](const QPoint &viewportPos, const QPoint &globalPos) {
                const NodeId node = m_d->nodeAt(m_d->view->mapToScene(viewportPos));
                if (node.isValid()
                    && !m_d->drawing->states().isSelected(m_d->drawing->nodeIndex(node)))
                    selectNodes({ node });
                emit contextMenuRequested(globalPos);
            });
    connect(m_d->flash, &QVariantAnimation::valueChanged, this, [this](const QVariant &value) {
        // Three pulses over the animation, ending switched off.
        const qreal t = value.toReal();
        const qreal strength = t >= 1.0 ? 0.0 : std::abs(std::sin(t * 3 * M_PI));
        for (const EdgeRef &e : m_d->flashing)
            m_d->setEdgeFlash(e, strength);
    });
}

CanvasWidget::~CanvasWidget()
{
    m_d->finishing->stop();
    m_d->badges->stop();
    m_d->drawing->clear();
    m_d->scene->clear();
    delete m_d->disposer; // the scenes it still holds, at once
    m_d->disposer = nullptr;
    m_d->view->setTool(nullptr);
    m_d->cutTool.reset();
    m_d->selectTool.reset();
}

void CanvasWidget::setGraph(const Graph *graph, FunctionId function, const std::string &cacheKey,
                            std::shared_ptr<const LayoutGraph> drawn)
{
    m_d->runner->discard();
    m_d->overlayDelay->stop();
    m_d->overlay->hide();
    m_d->clearScene();
    m_d->layout.reset();
    m_d->layoutGraph.reset();
    m_d->blockFrames->clearBlocks();
    m_d->problems.clear();
    m_d->place = std::exchange(m_d->nextPlace, {});
    m_d->graph = graph;
    m_d->function = function;
    if (graph == nullptr)
        return;
    if (!m_d->function.isValid())
        m_d->function = graph->mainFunction();
    m_d->layoutGraph = drawn && drawn->function == m_d->function
        ? std::move(drawn)
        : std::make_shared<const LayoutGraph>(buildLayoutGraph(*graph, m_d->function));
    m_d->cacheKey = cacheKey;
    m_d->startLayout();
}

void CanvasWidget::Private::startLayout()
{
    // A layout held in memory (laid out before, or prepared in the background: the other level)
    // is drawn at once, on this thread: no worker, no card.
    if (std::shared_ptr<const Layout> held = runner->findInMemory(*layoutGraph, cacheKey)) {
        overlay->hide();
        buildScene(held,
                   CanvasWidget::tr("Layout of %1 nodes from memory").arg(held->nodes.size()));
        return;
    }
    overlay->hide();
    overlay->begin(CanvasWidget::tr("Laying out %1 nodes and %2 edges…")
                       .arg(layoutGraph->nodes.size())
                       .arg(layoutGraph->edges.size()));
    emit q->layoutStarted();
    runner->start(layoutGraph, cacheKey);
    overlayDelay->start();
}

void CanvasWidget::setPlan(const PartitionPlan *plan, const BoundaryTable *boundary)
{
    m_d->plan = plan;
    m_d->boundary = plan != nullptr ? boundary : nullptr;
    m_d->planGraph = plan != nullptr ? &plan->graph() : nullptr;
    m_d->planFunction = plan != nullptr ? plan->function() : FunctionId();
    // A drawing being completed gets its plan on one of the turns that complete it.
    if (!m_d->layout || m_d->finishing->isActive())
        return;
    m_d->applyPlan();
    m_d->refreshMinimap(false);
}

void CanvasWidget::setMinimapEnabled(bool on)
{
    m_d->minimapEnabled = on;
    m_d->refreshMinimap();
}

bool CanvasWidget::isMinimapEnabled() const
{
    return m_d->minimapEnabled;
}

void CanvasWidget::observe(const LevelView *view)
{
    disconnect(m_d->graphShown);
    disconnect(m_d->planShown);
    m_d->observed = view;
    if (view == nullptr)
        return;
    auto showGraph = [this] {
        // The plan shown goes with the scene setGraph() replaces (its regions, badges and bold
        // edges are deleted with it): not taken down item by item first.
        m_d->plan = nullptr;
        m_d->boundary = nullptr;
        m_d->planGraph = nullptr;
        m_d->planFunction = {};
        setGraph(m_d->observed->shownGraph(), m_d->observed->shownFunction(),
                 m_d->observed->layoutKey(), m_d->observed->shownLayoutGraph());
        setBlocks(m_d->observed->framedBlocks());
    };
    m_d->graphShown = connect(view, &LevelView::graphShown, this, showGraph);
    m_d->planShown = connect(view, &LevelView::planShown, this, [this](const PlanEdit *edit) {
        setNodeProblems(m_d->observed->shownProblems());
        const PartitionPlan *plan = m_d->observed->shownPlan();
        if (edit != nullptr && plan == m_d->plan && m_d->layout
            && Document::changesRecordsOnly(*edit)
            && std::all_of(edit->partitionsBefore.begin(), edit->partitionsBefore.end(),
                           [&](const Partition &p) {
                               const Partition *now = plan->partition(p.id);
                               return now != nullptr && now->colour == p.colour;
                           })) {
            m_d->relabelRegions(Document::changedRecords(*edit));
            return;
        }
        setPlan(plan, m_d->observed->shownBoundary());
    });
    showGraph();
    setPlan(view->shownPlan(), view->shownBoundary());
}

void CanvasWidget::setNodeProblems(const std::vector<std::pair<NodeId, std::string>> &problems)
{
    m_d->applyProblems(false);
    m_d->problems = problems;
    m_d->applyProblems(true);
}

std::vector<NodeId> CanvasWidget::problemNodes() const
{
    std::vector<NodeId> out;
    for (const auto &[node, index] : m_d->drawing->drawnNodes()) // in id order
        if (m_d->drawing->states().hasProblem(index))
            out.push_back(node);
    return out;
}

void CanvasWidget::setBlocks(const std::vector<FusedBlock> &blocks)
{
    m_d->blockFrames->setBlocks(blocks);
    if (m_d->layout)
        m_d->blockFrames->apply(*m_d->scene, *m_d->layout);
    else
        m_d->blockFrames->drop(*m_d->scene);
}

void CanvasWidget::setTool(Tool tool)
{
    m_d->tool = tool;
    m_d->view->setTool(tool == Tool::Cut ? static_cast<CanvasTool *>(m_d->cutTool.get())
                                         : m_d->selectTool.get());
}

CanvasWidget::Tool CanvasWidget::tool() const
{
    return m_d->tool;
}

bool CanvasWidget::isLayoutReady() const
{
    return m_d->layout != nullptr && !m_d->finishing->isActive();
}

std::vector<NodeId> CanvasWidget::selectedNodes() const
{
    std::vector<NodeId> nodes;
    nodes.reserve(m_d->drawing->states().selectedCount());
    for (const auto &[node, index] : m_d->drawing->drawnNodes()) // in id order
        if (m_d->drawing->states().isSelected(index))
            nodes.push_back(node);
    return nodes;
}

void CanvasWidget::selectNodes(const std::vector<NodeId> &nodes)
{
    std::vector<std::size_t> indices;
    indices.reserve(nodes.size());
    for (NodeId id : nodes)
        if (const std::size_t index = m_d->drawing->nodeIndex(id); index != TileMaterializer::none)
            indices.push_back(index);
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    m_d->select(indices);
}

void CanvasWidget::Private::select(const std::vector<std::size_t> &nodes)
{
    if (!selection->set(nodes))
        return;
    far.invalidate();
    emit q->selectionChanged();
}

bool CanvasWidget::Private::clickNode(const QPointF &scenePos, bool add)
{
    bool hit = false;
    if (selection->click(scenePos, add, hit)) {
        far.invalidate();
        emit q->selectionChanged();
    }
    return hit;
}

void CanvasWidget::Private::band(const QRectF &area)
{
    if (!selection->band(area))
        return;
    far.invalidate();
    emit q->selectionChanged();
}

NodeId CanvasWidget::Private::nodeAt(const QPointF &scenePos) const
{
    const std::size_t index = drawing->nodeAt(scenePos);
    return index != TileMaterializer::none ? drawing->nodeId(index) : NodeId();
}

void CanvasWidget::Private::makeItemsAt(const QPoint &viewportPos) const
{
    if (!layout)
        return;
    const QPointF p = view->mapToScene(viewportPos);
    const QRectF around(p - QPointF(4, 4), QSizeF(8, 8));
    drawing->makeArea(around);
    drawing->trim(around);
}

void CanvasWidget::Private::setEdgeFlash(const EdgeRef &edge, qreal strength) const
{
    drawing->setFlash(drawing->edgeIndex(edge), strength);
}

void CanvasWidget::Private::wireDrawing()
{
    view->setItemsNeededAt([this](const QPoint &viewportPos) { makeItemsAt(viewportPos); });
    connect(view, &QGraphicsView::rubberBandChanged, q,
            [this](const QRect &viewportRect, const QPointF & /*from*/, const QPointF & /*to*/) {
                if (viewportRect.isNull()) {
                    selection->endBand();
                    return;
                }
                // The band's own rectangle: the scene points given with it lag a move behind.
                band(view->mapToScene(viewportRect).boundingRect());
            });
    selectTool->setClicks({ [this](const QPointF &pos, bool add) { return clickNode(pos, add); },
                            [this] { select({}); } });
    CutTargets targets;
    targets.crossing = [this](const QPointF &a, const QPointF &b) {
        std::vector<EdgeRef> edges;
        for (std::size_t e : drawing->edgesCrossing(a, b))
            edges.push_back(drawing->edgeRef(e));
        return edges;
    };
    targets.light = [this](const EdgeRef &edge, bool on) {
        drawing->setCutHover(drawing->edgeIndex(edge), on);
        if (view->lastPaintWasFar())
            view->viewport()->update();
    };
    targets.route = [this](const EdgeRef &edge) {
        QPolygonF line;
        if (const std::size_t index = drawing->edgeIndex(edge); index != TileMaterializer::none)
            onCurvePoints(drawing->spline(index), line);
        return line;
    };
    cutTool->setTargets(std::move(targets));
    boundaryLayer.setRestyle([this](const EdgeRef &edge, const QColor &colour) {
        drawing->setBoundaryColour(drawing->edgeIndex(edge), colour);
    });
}

void CanvasWidget::centerOnNode(NodeId node)
{
    const std::size_t index = m_d->drawing->nodeIndex(node);
    if (index == TileMaterializer::none)
        return;
    m_d->clearHighlights();
    m_d->highlightedNode = node;
    m_d->drawing->setHighlighted(index, true);
    if (m_d->view->zoom() < 0.6)
        m_d->view->setTransform(QTransform::fromScale(1.0, 1.0));
    m_d->view->centerOn(m_d->drawing->nodeRect(index).center());
    emit m_d->view->visibleAreaChanged();
}

void CanvasWidget::highlightEdge(TensorRef tensor, NodeId consumer)
{
    const EdgeRef edge { tensor, consumer };
    const std::size_t index = m_d->drawing->edgeIndex(edge);
    if (index == TileMaterializer::none)
        return;
    m_d->clearHighlights();
    m_d->highlightedEdge = edge;
    m_d->drawing->setEdgeHighlighted(index, true);
    const QRectF bounds = edgeItemBounds(m_d->drawing->spline(index), false);
    if (m_d->view->zoom() < 0.6)
        m_d->view->setTransform(QTransform::fromScale(1.0, 1.0));
    const QRectF visible = m_d->view->mapToScene(m_d->view->viewport()->rect()).boundingRect();
    if (bounds.height() > visible.height() || bounds.width() > visible.width())
        m_d->view->showRect(bounds);
    else
        m_d->view->centerOn(bounds.center());
    emit m_d->view->visibleAreaChanged();
}

void CanvasWidget::highlightPartition(PartitionId partition)
{
    m_d->far.invalidate();
    for (QGraphicsItem *item : m_d->planItems)
        if (auto *region = qgraphicsitem_cast<PartitionRegionItem *>(item))
            region->setHighlighted(partition.isValid() && region->partitionId() == partition);
    m_d->highlightedPartition = partition;
}

void CanvasWidget::flashEdges(const std::vector<EdgeRef> &edges)
{
    m_d->flash->stop();
    for (const EdgeRef &e : m_d->flashing)
        m_d->setEdgeFlash(e, 0);
    m_d->flashing = edges;
    if (!edges.empty())
        m_d->flash->start();
}

void CanvasWidget::fitToView()
{
    if (m_d->layout)
        m_d->view->showRect(m_d->drawingBounds());
}

void CanvasWidget::zoomToSelection()
{
    QRectF bounds;
    for (std::size_t index : m_d->selection->nodes())
        bounds = bounds.united(nodeItemBounds(m_d->drawing->nodeRect(index), false));
    if (bounds.isNull())
        return;
    m_d->view->showRect(bounds.adjusted(-40, -40, 40, 40));
}

QPoint CanvasWidget::viewportPosOfNode(NodeId node) const
{
    const std::size_t index = m_d->drawing->nodeIndex(node);
    if (index == TileMaterializer::none)
        return {};
    return m_d->view->mapFromScene(m_d->drawing->nodeRect(index).center());
}

QPoint CanvasWidget::viewportPosOfEdge(TensorRef tensor, NodeId consumer) const
{
    const std::size_t index = m_d->drawing->edgeIndex(EdgeRef { tensor, consumer });
    if (index == TileMaterializer::none)
        return {};
    return m_d->view->mapFromScene(splineMidPoint(m_d->drawing->spline(index)));
}

QGraphicsView *CanvasWidget::view() const
{
    return m_d->view;
}

NodeItem *CanvasWidget::nodeItem(NodeId node) const
{
    return m_d->drawing->nodeItem(m_d->drawing->nodeIndex(node));
}

EdgeItem *CanvasWidget::edgeItem(const EdgeRef &edge) const
{
    return m_d->drawing->edgeItem(m_d->drawing->edgeIndex(edge));
}

void CanvasWidget::makeAllItems() const
{
    m_d->drawing->makeAll();
}

std::size_t CanvasWidget::itemsMade() const
{
    return m_d->drawing->madeItems();
}

void CanvasWidget::setItemCap(std::size_t items)
{
    m_d->drawing->setCap(items);
}

NodeId CanvasWidget::nodeNearViewportCentre() const
{
    const QPointF centre = m_d->view->mapToScene(m_d->view->viewport()->rect().center());
    NodeId best;
    qreal bestDistance = 0;
    for (std::size_t index : m_d->drawing->nodesIn(m_d->view->visibleArea())) {
        const QPointF delta = m_d->drawing->nodeRect(index).center() - centre;
        const qreal distance = QPointF::dotProduct(delta, delta);
        const NodeId node = m_d->drawing->nodeId(index);
        if (!best.isValid() || distance < bestDistance
            || (distance == bestDistance && node < best)) {
            best = node;
            bestDistance = distance;
        }
    }
    return best;
}

void CanvasWidget::placeNode(NodeId node, const QPoint &viewportPos, qreal zoom)
{
    const std::size_t index = m_d->drawing->nodeIndex(node);
    if (index == TileMaterializer::none || zoom <= 0)
        return;
    m_d->centreAt(m_d->drawing->nodeRect(index).center(), viewportPos, zoom);
}

void CanvasWidget::setOpeningPlace(OpeningPlace place)
{
    m_d->nextPlace = std::move(place);
}

bool CanvasWidget::exportImage(const QString &path, QString *error, int dpi) const
{
    if (!m_d->layout) {
        if (error != nullptr)
            *error = tr("There is no drawing to export yet (the layout has not finished).");
        return false;
    }
    // The tiles paint the whole drawing into an image or a PDF, and describe it to the SVG
    // writer: no node or edge item is made for an export.
    const bool written = writeDrawing(*m_d->scene, m_d->drawingBounds(), path, dpi, error);
    return written;
}

void CanvasWidget::cancelLayout()
{
    m_d->overlayDelay->stop();
    const bool wasRunning = m_d->runner->isRunning();
    m_d->runner->cancel();
    if (!wasRunning || !m_d->layoutGraph)
        return;
    // The card stays where the drawing would be, with Retry in place of Cancel.
    m_d->overlay->showStopped(tr("Layout cancelled: the graph is not drawn until it is laid out."));
    m_d->overlay->reposition();
    m_d->overlay->show();
    m_d->overlay->raise();
}

void CanvasWidget::restartLayout()
{
    if (!m_d->layoutGraph || m_d->layout || m_d->runner->isRunning() || m_d->building)
        return;
    m_d->startLayout();
}

QString CanvasWidget::Private::toolTipAt(const QPoint &viewportPos) const
{
    if (graph == nullptr || !layout)
        return {};
    // The items there answer (an edge's shape, what lies on top), made first if need be.
    makeItemsAt(viewportPos);
    for (QGraphicsItem *item : view->items(viewportPos)) {
        if (const auto *node = qgraphicsitem_cast<const NodeItem *>(item)) {
            QString text = nodeToolTip(*graph, node->nodeId());
            for (const auto &[id, message] : problems) {
                if (node->hasProblem() && id == node->nodeId())
                    text += QStringLiteral("<br><b style=\"color:#d32f2f\">%1</b>")
                                .arg(QString::fromStdString(message).toHtmlEscaped());
            }
            return text;
        }
        if (const auto *edge = qgraphicsitem_cast<const EdgeItem *>(item))
            return edgeToolTip(*graph, edge->edge().tensor, edge->edge().consumer);
        if (const auto *frames = qgraphicsitem_cast<const BlockFrameLayer *>(item)) {
            const std::size_t frame = frames->frameMeeting(
                view->mapToScene(QRect(viewportPos, QSize(1, 1))).boundingRect());
            if (frame != BlockFrameLayer::none)
                return frames->toolTipText(frame);
            continue;
        }
        if (item->type() == BadgeItemType || !item->toolTip().isEmpty())
            return {}; // the item's own tooltip
    }
    return {};
}

QString CanvasWidget::toolTipAt(const QPoint &viewportPos) const
{
    return m_d->toolTipAt(viewportPos);
}

void CanvasWidget::setNodeMarks(const std::vector<std::pair<NodeId, QColor>> &marks)
{
    for (const auto &[id, colour] : m_d->marks)
        if (NodeItem *item = m_d->drawing->madeNodeItem(m_d->drawing->nodeIndex(id)))
            item->setMark({});
    m_d->marks.clear();
    for (const auto &[id, colour] : marks) {
        m_d->marks[id] = colour;
        if (NodeItem *item = m_d->drawing->madeNodeItem(m_d->drawing->nodeIndex(id)))
            item->setMark(colour);
    }
    m_d->far.invalidate();
    m_d->refreshMinimap();
    m_d->view->viewport()->update();
}

QColor CanvasWidget::nodeMark(NodeId node) const
{
    if (m_d->drawing->nodeIndex(node) == TileMaterializer::none)
        return {};
    const auto it = m_d->marks.find(node);
    return it != m_d->marks.end() ? it->second : QColor();
}

std::vector<std::pair<EdgeRef, QString>> CanvasWidget::edgeLabelsDrawn() const
{
    return m_d->shapeLabels.drawnSincePaint;
}

void CanvasWidget::Private::applyTheme()
{
    setCanvasDark(isDarkPalette(q->palette()));
    view->setBackgroundBrush(canvasColours().background);
    far.invalidate();
    refreshMinimap();
    view->viewport()->update();
}

bool CanvasWidget::eventFilter(QObject *watched, QEvent *event)
{
    // Each paint of the items starts a new list of the edge labels drawn.
    if (watched == m_d->view->viewport() && event->type() == QEvent::Paint)
        m_d->shapeLabels.drawnSincePaint.clear();
    return QWidget::eventFilter(watched, event);
}

void CanvasWidget::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        m_d->applyTheme();
}

std::shared_ptr<LayoutCache> CanvasWidget::layoutCache() const
{
    return m_d->runner->cache();
}

std::shared_ptr<RegionGeometryStore> CanvasWidget::regionGeometries() const
{
    return m_d->runner->regionGeometries();
}

void CanvasWidget::setCacheDirectory(const QString &dir)
{
    m_d->runner->setCacheDirectory(dir);
}

void CanvasWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_d->overlay->reposition();
    if (m_d->minimap->isVisible())
        m_d->minimap->move(width() - m_d->minimap->width() - 12,
                           height() - m_d->minimap->height() - 12);
}

} // namespace cleave::ui
