// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/CanvasWidgetPrivate.h"

namespace cleave::ui {

namespace {

// A region's name: the partition's, with its target unless it runs on the host (llvm).
QString regionName(const Partition &p)
{
    QString name = QString::fromStdString(p.name);
    if (!p.target.empty() && p.target != "llvm")
        name += QStringLiteral(" · %1").arg(QString::fromStdString(p.target));
    return name;
}

} // namespace

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
    nodeSlots->reserve(regionGeometry->boxCount());
    auto edgeSlots = std::make_shared<std::vector<std::int32_t>>();
    edgeSlots->reserve(regionGeometry->routeCount());
    for (const Partition &p : partitions)
        farPartitions.push_back({ p.id, partitionColour(p.colour) });
    for (std::size_t i = 0; i < regionGeometry->boxCount(); ++i) {
        const int index = plan->indexOf(plan->partitionOf(regionGeometry->node(i)));
        nodeSlots->push_back(index);
        if (index < 0)
            continue;
        const QRectF r = regionGeometry->box(i);
        QRectF &top = topmost[static_cast<std::size_t>(index)];
        if (top.isNull() || r.y() < top.y() || (r.y() == top.y() && r.x() < top.x()))
            top = r;
    }
    for (std::size_t i = 0; i < regionGeometry->routeCount(); ++i) {
        const EdgeRef edge = regionGeometry->edge(i);
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
        // Regions under edges and nodes, badges above nodes, and the partitions' names on
        // their plates above everything, so that neither a node nor a badge hides them.
        regionLayer = new PlanLayerItem(scene->sceneRect(), -10);
        labelLayer = new PlanLayerItem(scene->sceneRect(), 6);
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
        appendRecomputed(crossings);
    }
    boundaryLayer.show(crossings, badgeLayer, *scene, view->zoom(),
                       view->mapToScene(view->viewport()->rect()).boundingRect());
    if (boundaryLayer.hasPendingBadges() && !finishing->isActive())
        badges->start();

    // The far picture's boundary lines are the region geometry's routes (in the sorted order
    // of its edges).
    auto lines = std::make_shared<std::vector<std::pair<QPolygonF, QRgb>>>();
    lines->reserve(crossings.size());
    for (const BoundaryCrossing &c : crossings) {
        if (!c.bold)
            continue;
        const std::size_t route = regionGeometry->routeOf(c.edge);
        if (route < regionGeometry->routeCount())
            lines->emplace_back(regionGeometry->routePolygon(route), c.colour.rgba());
    }
    return lines;
}

void CanvasWidget::Private::appendRecomputed(std::vector<BoundaryCrossing> &crossings) const
{
    // Weight-only values a later partition computes again: the first drawn edge into each
    // reader says so, in the reader's colour, and stays a normal edge (nothing crosses).
    for (const ReplicatedValue &r : boundary->replicated) {
        const std::string &own = plan->graph().node(r.tensor.node).name;
        const QString name
            = QString::fromStdString(own.empty() ? plan->graph().key(r.tensor.node) : own);
        for (PartitionId reader : r.readers) {
            const Partition *p = plan->partition(reader);
            for (const FlowEdge &e : plan->view().outEdges(r.tensor.node)) {
                if (plan->partitionOf(e.consumer) != reader)
                    continue;
                const EdgeRef edge { e.tensor, e.consumer };
                const std::size_t index = drawing->edgeIndex(edge);
                if (index == TileMaterializer::none)
                    continue;
                crossings.push_back({ edge, splineMidPoint(drawing->spline(index)),
                                      partitionColour(p != nullptr ? p->colour : 0),
                                      name + QStringLiteral(" recomputed in ")
                                          + QString::fromStdString(p != nullptr ? p->name : ""),
                                      false });
                break;
            }
        }
    }
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

void CanvasWidget::Private::select(const std::vector<std::size_t> &nodes)
{
    if (!selection->set(nodes))
        return;
    far.invalidate();
    emit q->selectionChanged();
}

bool CanvasWidget::Private::clickNode(const QPointF &scenePos, bool add)
{
    // A boundary badge (drawn at a fixed screen size: found through the view) picks its tensor.
    for (QGraphicsItem *item : view->items(view->mapFromScene(scenePos))) {
        if (item->type() == BadgeItem::Type) {
            const EdgeRef edge = static_cast<BadgeItem *>(item)->edge();
            select({});
            emit q->boundaryBadgeClicked(edge);
            return true;
        }
    }
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

} // namespace cleave::ui
