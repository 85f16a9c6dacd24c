// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/CanvasWidgetPrivate.h"

namespace cleave::ui {

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
    connect(m_d->view, &CanvasView::cutStrokeMissed, this, &CanvasWidget::cutMissed);
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
