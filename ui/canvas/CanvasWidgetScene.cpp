// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/CanvasWidgetPrivate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cleave::ui {

void CanvasWidget::Private::showInitialView(const Layout &l, const QRectF &bounds) const
{
    // The whole drawing when its labels stay readable; otherwise (a tall DNN) its top, where
    // the inputs are, at a readable zoom: the minimap shows the rest.
    view->showRect(bounds);
    if (view->zoom() >= nodeTextZoom)
        return;
    view->setTransform(QTransform::fromScale(initialZoom, initialZoom));
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    // Over the top band of the drawing (as tall as the view), where the view holds the most
    // nodes, the one nearest the topmost node (the first input) on a tie: not the drawing's
    // middle, where a wide drawing (Inception branches, a transformer's stubs) has empty space,
    // nor the first input alone, beside which an unrolled RNN's top holds five nodes while its
    // layers start further right.
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
    if (found && bounds.width() > visible.width()) {
        std::vector<qreal> band;
        for (const auto &[id, r] : l.nodes) {
            if (r.y < bounds.top() + visible.height())
                band.push_back(r.centerX());
        }
        std::sort(band.begin(), band.end());
        const qreal span = visible.width() * 0.9; // a margin on both sides
        std::size_t best = 0;
        qreal bestX = x;
        for (std::size_t i = 0, j = 0; i < band.size(); ++i) {
            while (j < band.size() && band[j] <= band[i] + span)
                ++j;
            const qreal centre = band[i] + span / 2;
            if (j - i > best || (j - i == best && std::abs(centre - x) < std::abs(bestX - x))) {
                best = j - i;
                bestX = centre;
            }
        }
        x = std::clamp(bestX, bounds.left() + visible.width() / 2,
                       bounds.right() - visible.width() / 2);
    } else {
        x = bounds.center().x();
    }
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

void CanvasWidget::Private::applyTheme()
{
    setCanvasDark(isDarkPalette(q->palette()));
    view->setBackgroundBrush(canvasColours().background);
    far.invalidate();
    refreshMinimap();
    view->viewport()->update();
}

} // namespace cleave::ui
