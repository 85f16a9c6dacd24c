// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/LevelView.h"

#include "core/graph/FunctionView.h"
#include "core/layout/LayoutGraph.h"
#include "core/partition/PlanConversion.h"
#include "ui/document/Document.h"
#include "ui/document/LevelPrefetch.h"

#include <algorithm>
#include <span>
#include <utility>

namespace cleave::ui {

namespace {

const std::vector<cleave::FusedBlock> noBlocks;

template <typename T>
void appendOnce(std::vector<T> &out, const T &value)
{
    if (std::find(out.begin(), out.end(), value) == out.end())
        out.push_back(value);
}

} // namespace

LevelView::LevelView(Document *document, QObject *parent)
    : QObject(parent)
    , m_document(document)
    , m_prefetch(new LevelPrefetch(this))
{
    // What was prepared for the previous graph or blocks is stale: dropped before the rebuild.
    connect(m_document, &Document::graphChanged, this, [this] {
        m_prefetch->discard();
        rebuild(true);
    });
    connect(m_document, &Document::planReset, this, [this] {
        convertPlan();
        emit planShown(nullptr);
    });
    connect(m_document, &Document::planEdited, this, &LevelView::onPlanEdited);
    // Other fusion options or another function: other blocks, another graph to show.
    connect(m_document, &Document::blocksChanged, this, [this] {
        m_prefetch->discard();
        rebuild(true);
    });
}

LevelView::~LevelView() = default;

void LevelView::setLevel(Level level)
{
    if (level == m_level)
        return;
    m_level = level;
    emit levelChanged(level);
    rebuild(false);
}

bool LevelView::expandBlock(cleave::NodeId shown)
{
    if (m_level != Level::Blocks || !m_blockGraph)
        return false;
    const std::vector<cleave::NodeId> members = m_blockGraph->originalNodes(shown);
    if (members.size() < 2)
        return false;
    const int block = m_document->blockOf(members.back());
    if (block < 0)
        return false;
    m_expanded.push_back(static_cast<std::size_t>(block));
    rebuild(false);
    return true;
}

void LevelView::collapseAllBlocks()
{
    if (m_expanded.empty())
        return;
    m_expanded.clear();
    rebuild(false);
}

const cleave::Graph *LevelView::shownGraph() const
{
    if (m_level == Level::Blocks && m_blockGraph)
        return &m_blockGraph->graph;
    return m_document->graph();
}

cleave::FunctionId LevelView::shownFunction() const
{
    if ((m_level == Level::Ops || !m_blockGraph) && m_document->plan())
        return m_document->plan()->function();
    const cleave::Graph *graph = shownGraph();
    return graph ? graph->mainFunction() : cleave::FunctionId {};
}

bool LevelView::prepareBlocks(std::shared_ptr<cleave::LayoutCache> cache,
                              std::shared_ptr<RegionGeometryStore> regions)
{
    const std::shared_ptr<const cleave::Graph> graph = m_document->sharedGraph();
    if (!graph)
        return false;
    // Shared with the worker, not copied (at 100k nodes a copy took 10 MB).
    std::shared_ptr<const std::vector<cleave::FusedBlock>> blocks = m_document->sharedBlocks();
    // Blocks of one operator each: the Blocks level draws the same graph again, nothing to gain.
    if (std::none_of(blocks->begin(), blocks->end(),
                     [](const cleave::FusedBlock &b) { return b.nodes.size() > 1; }))
        return false;
    const std::string key = layoutKeyFor(Level::Blocks, {});
    if (m_prefetch->prepared(key, graph.get()) != nullptr
        || (m_prefetch->isRunning() && m_prefetch->key() == key))
        return false;
    const cleave::PartitionPlan *plan = m_document->plan();
    m_prefetch->start(key, graph, plan ? plan->function() : graph->mainFunction(),
                      std::move(blocks), std::move(cache), std::move(regions));
    return true;
}

const PreparedLevel *LevelView::preparedBlocks() const
{
    return m_prefetch->prepared(layoutKeyFor(Level::Blocks, {}), m_document->graph());
}

std::string LevelView::layoutKey() const
{
    return layoutKeyFor(m_level, m_expanded);
}

std::string LevelView::layoutKeyFor(Level level, const std::vector<std::size_t> &expanded) const
{
    const cleave::Graph *graph = m_document->graph();
    if (!graph)
        return {};
    // Another function, or other blocks, is another drawing.
    std::string base = graph->checksum();
    const cleave::PartitionPlan *plan = m_document->plan();
    if (plan && plan->function() != graph->mainFunction())
        base += "/function=" + graph->function(plan->function()).name;
    if (level == Level::Ops)
        return base;
    const EngineSettings &settings = m_document->settings();
    std::string key = base + "/blocks";
    if (settings.foldBatchNorm)
        key += "/fold-bn";
    if (settings.transparentStopFusion)
        key += "/transparent-stop";
    if (!settings.opPatternsPath.empty())
        key += "/patterns=" + settings.opPatternsPath;
    for (std::size_t b : expanded)
        key += "+" + std::to_string(b);
    return key;
}

std::shared_ptr<const cleave::LayoutGraph> LevelView::shownLayoutGraph() const
{
    if (m_level == Level::Blocks && m_blockGraph)
        return m_blockDrawn;
    return m_document->preparedLayoutGraph(shownFunction());
}

const std::vector<cleave::FusedBlock> &LevelView::framedBlocks() const
{
    return m_level == Level::Ops && m_document->hasGraph() ? m_document->blocks() : noBlocks;
}

const cleave::PartitionPlan *LevelView::shownPlan() const
{
    if (m_level == Level::Ops || !m_blockGraph)
        return m_document->plan();
    return m_blockPlan ? &*m_blockPlan : nullptr;
}

const cleave::BoundaryTable *LevelView::shownBoundary() const
{
    if (!shownPlan())
        return nullptr;
    return m_level == Level::Ops || !m_blockGraph ? &m_document->boundary() : &m_blockBoundary;
}

void LevelView::rebuild(bool graphChanged)
{
    if (graphChanged)
        m_expanded.clear();
    // Observers point into the block graph and plan until they hear of the new ones: the old
    // ones stay alive until then.
    const std::shared_ptr<const cleave::BlockGraph> previous = std::move(m_blockGraph);
    m_blockDrawn.reset();
    m_blockView.reset();
    const cleave::Graph *graph = m_document->graph();
    if (graph && m_level == Level::Blocks) {
        const std::string key = layoutKeyFor(Level::Blocks, m_expanded);
        if (const PreparedLevel *ready = m_prefetch->prepared(key, graph)) {
            m_blockGraph = ready->blocks;
            m_blockDrawn = ready->drawn;
            m_blockView = ready->view;
        } else {
            // A worker preparing the same level is too late: stopped before this one is made,
            // so that it does not go on to lay out a second copy beside it.
            if (m_prefetch->isRunning() && m_prefetch->key() == key)
                m_prefetch->cancelRunning();
            PreparedLevel made;
            made.key = key;
            made.source = m_document->sharedGraph();
            collapseLevel(made, *graph, shownFunction(), m_document->blocks(), m_expanded);
            m_blockGraph = made.blocks;
            m_blockDrawn = made.drawn;
            m_blockView = made.view;
            // Kept for the next switch.
            if (m_expanded.empty())
                m_prefetch->adopt(std::move(made));
        }
    }
    std::optional<cleave::PartitionPlan> previousPlan = std::exchange(m_blockPlan, std::nullopt);
    convertPlan();
    emit graphShown();
    emit planShown(nullptr);
}

void LevelView::convertPlan()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (m_level == Level::Ops || !m_blockGraph || !plan) {
        m_blockPlan.reset();
        m_blockBoundary = {};
        return;
    }
    // The block graph's view is made once with it, not on every conversion (every edit).
    const std::shared_ptr<const cleave::FunctionView> view = m_blockView
        ? m_blockView
        : std::make_shared<const cleave::FunctionView>(m_blockGraph->graph,
                                                       m_blockGraph->graph.mainFunction());
    cleave::PlanConversion converted = cleave::relayPlanToBlocks(*plan, *m_blockGraph, view);
    m_blockPlan.reset();
    m_blockBoundary = {};
    if (!converted.plan)
        return;
    m_blockPlan.emplace(std::move(*converted.plan));
    m_blockBoundary = cleave::computeBoundary(*m_blockPlan);
    const auto split = std::find_if(
        converted.diagnostics.begin(), converted.diagnostics.end(),
        [](const cleave::Diagnostic &d) { return d.code == "convert.split_kernel"; });
    if (split != converted.diagnostics.end())
        emit notice(tr("A cut runs through a fused block; the block is drawn with its output op. "
                       "Switch to Operators to see the cut: %1")
                        .arg(QString::fromStdString(split->message)));
}

void LevelView::onPlanEdited(const cleave::PlanEdit &edit)
{
    if (m_level == Level::Ops || !m_blockGraph) {
        emit planShown(&edit);
        return;
    }
    convertPlan();
    emit planShown(nullptr);
}

std::vector<cleave::NodeId> LevelView::modelNodes(const std::vector<cleave::NodeId> &shown) const
{
    if (m_level == Level::Ops || !m_blockGraph)
        return shown;
    std::vector<cleave::NodeId> out;
    for (cleave::NodeId n : shown) {
        for (cleave::NodeId m : m_blockGraph->originalNodes(n))
            appendOnce(out, m);
    }
    return out;
}

std::vector<std::vector<cleave::NodeId>> LevelView::collapsedBlocks() const
{
    std::vector<std::vector<cleave::NodeId>> out;
    if (m_level == Level::Ops || !m_blockGraph)
        return out;
    for (std::size_t k = 0; k < m_blockGraph->kernelCount(); ++k) {
        const std::span<const cleave::NodeId> nodes = m_blockGraph->kernelNodes(k);
        if (nodes.size() > 1)
            out.emplace_back(nodes.begin(), nodes.end());
    }
    return out;
}

std::vector<cleave::NodeId> LevelView::shownNodes(const std::vector<cleave::NodeId> &model) const
{
    if (m_level == Level::Ops || !m_blockGraph)
        return model;
    std::vector<cleave::NodeId> out;
    for (cleave::NodeId n : model) {
        const cleave::NodeId shown = m_blockGraph->shownAs(n);
        if (shown.isValid())
            appendOnce(out, shown);
    }
    return out;
}

std::vector<cleave::EdgeRef> LevelView::modelEdges(const std::vector<cleave::EdgeRef> &shown) const
{
    if (m_level == Level::Ops || !m_blockGraph || !m_document->graph())
        return shown;
    return m_blockGraph->originalEdges(*m_document->graph(), shown);
}

std::vector<cleave::EdgeRef> LevelView::shownEdges(const std::vector<cleave::EdgeRef> &model) const
{
    if (m_level == Level::Ops || !m_blockGraph)
        return model;
    std::vector<cleave::EdgeRef> out;
    for (const cleave::EdgeRef &e : model) {
        const std::vector<cleave::NodeId> consumer = shownNodes({ e.consumer });
        if (consumer.empty())
            continue;
        const cleave::TensorRef tensor = m_blockGraph->shownTensor(e.tensor);
        if (tensor.isValid() && tensor.node != consumer.front())
            out.push_back({ tensor, consumer.front() });
    }
    return out;
}

std::vector<std::pair<cleave::NodeId, std::string>> LevelView::shownProblems() const
{
    std::vector<std::pair<cleave::NodeId, std::string>> out;
    for (const cleave::Diagnostic &d : m_document->diagnostics()) {
        if (d.code != "target.unsupported_op")
            continue;
        for (cleave::NodeId n : shownNodes(d.nodes))
            out.emplace_back(n, d.message);
    }
    return out;
}

cleave::PartitionId LevelView::shownPartition(cleave::PartitionId model) const
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (m_level == Level::Ops || !m_blockGraph || !plan || !model.isValid())
        return model;
    // The converted plan keeps the names (unique within a plan), not the ids.
    const cleave::Partition *partition = plan->partition(model);
    if (!partition || !m_blockPlan)
        return {};
    for (const cleave::Partition &p : m_blockPlan->partitions()) {
        if (p.name == partition->name)
            return p.id;
    }
    return {};
}

} // namespace cleave::ui
