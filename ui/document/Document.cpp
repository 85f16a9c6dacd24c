// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/Document.h"

#include "core/formats/FormatRegistry.h"
#include "core/layout/LayoutGraph.h"
#include "core/validation/Validation.h"
#include "ui/document/ModelLoader.h"

#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <utility>

namespace cleave::ui {

namespace {

/// Counts the errors and warnings among `diagnostics` into `errors` and `warnings`.
void countFindings(const std::vector<cleave::Diagnostic> &diagnostics, int &errors, int &warnings)
{
    errors = 0;
    warnings = 0;
    for (const cleave::Diagnostic &d : diagnostics) {
        if (d.severity == cleave::Severity::Error)
            ++errors;
        else if (d.severity == cleave::Severity::Warning)
            ++warnings;
    }
}

} // namespace

Document::Document(QObject *parent)
    : QObject(parent)
{
}

Document::~Document()
{
    // The plan refers to the graph: drop it first.
    m_undoStack.clear();
    m_plan.reset();
}

bool Document::open(const QString &path, QString *error)
{
    cleave::ImportResult result = cleave::importFile(path.toStdString());
    if (!result.ok()) {
        if (error) {
            // A dialog stays readable with the first few errors; the rest are counted.
            constexpr qsizetype shownErrors = 10;
            QStringList lines;
            qsizetype errors = 0;
            for (const cleave::Diagnostic &d : result.diagnostics) {
                if (d.severity == cleave::Severity::Error && errors++ < shownErrors)
                    lines.append(QString::fromStdString(d.toString()));
            }
            if (errors > shownErrors)
                lines.append(tr("(%1 more errors)").arg(errors - shownErrors));
            if (lines.isEmpty())
                lines.append(tr("%1: error: the model could not be read").arg(path));
            *error = lines.join(QLatin1Char('\n'));
        }
        return false;
    }
    setGraph(std::move(result.graph), path);
    return true;
}

void Document::setGraph(std::unique_ptr<cleave::Graph> graph, const QString &path)
{
    std::optional<cleave::PartitionPlan> plan;
    if (graph)
        plan.emplace(*graph);
    setGraph(std::move(graph), path, std::move(plan));
}

void Document::setGraph(std::unique_ptr<cleave::Graph> graph, const QString &path,
                        std::optional<cleave::PartitionPlan> plan, EngineSettings settings)
{
    // The old graph stays alive until every listener has moved to the new one.
    std::shared_ptr<const cleave::Graph> previous
        = replaceGraph(std::move(graph), path, std::move(plan), std::move(settings));
    m_summary = m_graph ? cleave::ModelSummary::compute(*m_graph) : cleave::ModelSummary {};
    refresh();
    announceNewGraph();
}

void Document::setPrepared(PreparedModel &&model, const QString &path,
                           std::optional<cleave::PartitionPlan> plan, EngineSettings settings)
{
    const bool ownPlan = !plan && model.plan;
    std::optional<cleave::PartitionPlan> chosen
        = ownPlan ? std::exchange(model.plan, std::nullopt) : std::move(plan);
    model.plan.reset();
    std::shared_ptr<const cleave::Graph> previous
        = replaceGraph(std::move(model.graph), path, std::move(chosen), std::move(settings));
    m_summary = std::move(model.summary);
    if (m_graph)
        m_layoutGraph = std::move(model.layoutGraph);
    // The loader fused `main` and checked the plan with the default settings: what it computed
    // is kept only when the document's settings and function are those.
    const bool defaultFusion = m_settings.sameFusion(EngineSettings {})
        && (!m_plan || !m_graph || m_plan->function() == m_graph->mainFunction());
    const bool defaultChecks = m_settings.opSupport.empty() && !m_settings.latency
        && m_settings.params.empty() && !m_settings.liftConstants;
    if (m_graph && defaultFusion) {
        m_blocks = std::make_shared<const std::vector<cleave::FusedBlock>>(std::move(model.blocks));
        indexBlocks();
    }
    if (ownPlan && defaultChecks) {
        // Computed by the loader for this very plan.
        m_boundary = std::move(model.boundary);
        m_diagnostics = std::move(model.planDiagnostics);
        countFindings(m_diagnostics, m_errors, m_warnings);
    } else {
        refresh();
    }
    model = PreparedModel {};
    announceNewGraph();
}

std::shared_ptr<const cleave::Graph>
Document::replaceGraph(std::unique_ptr<cleave::Graph> graph, const QString &path,
                       std::optional<cleave::PartitionPlan> plan, EngineSettings settings)
{
    // Commands hold edits of the old plan: they go first, then the plan (it refers to the old
    // graph), then the graph, which the caller keeps alive until listeners have moved on.
    m_undoStack.clear();
    m_plan.reset();
    std::shared_ptr<const cleave::Graph> previous = std::exchange(m_graph, std::move(graph));
    m_plan = std::move(plan);
    if (m_graph && !m_plan)
        m_plan.emplace(*m_graph);
    m_filePath = path;
    m_settings = std::move(settings);
    rebuildPipeline();
    m_blocks.reset();
    m_blockOfNode.clear();
    m_layoutGraph.reset();
    setProjectPath({});
    return previous;
}

void Document::rebuildPipeline()
{
    m_pipeline.reset();
    if (m_graph)
        m_pipeline.emplace(*m_graph, m_settings);
}

void Document::announceNewGraph()
{
    emit graphChanged();
    // The settings came with the graph (a model opens with the defaults, a project with its
    // own): what shows them (the Partitions dock's latency column) follows.
    emit settingsChanged();
    emit planReset();
    emit planChanged();
}

std::shared_ptr<const cleave::LayoutGraph>
Document::preparedLayoutGraph(cleave::FunctionId function) const
{
    if (m_layoutGraph && m_layoutGraph->function == function)
        return m_layoutGraph;
    return nullptr;
}

QString Document::fileName() const
{
    return m_filePath.isEmpty() ? QString() : QFileInfo(m_filePath).fileName();
}

const std::vector<cleave::FusedBlock> &Document::blocks() const
{
    return *sharedBlocks();
}

std::shared_ptr<const std::vector<cleave::FusedBlock>> Document::sharedBlocks() const
{
    if (!m_blocks) {
        m_blocks = std::make_shared<const std::vector<cleave::FusedBlock>>(
            m_graph
                ? cleave::fuseOps(*m_graph, m_plan ? m_plan->function() : m_graph->mainFunction(),
                                  m_settings.fusionOptions())
                : std::vector<cleave::FusedBlock> {});
        if (m_graph)
            indexBlocks();
    }
    return m_blocks;
}

void Document::indexBlocks() const
{
    m_blockOfNode.assign(m_graph ? m_graph->nodeCount() : 0, -1);
    if (!m_blocks)
        return;
    for (std::size_t b = 0; b < m_blocks->size(); ++b) {
        for (cleave::NodeId n : (*m_blocks)[b].nodes)
            m_blockOfNode[n.index()] = static_cast<int>(b);
    }
}

int Document::blockOf(cleave::NodeId node) const
{
    static_cast<void>(blocks());
    return node.isValid() && node.index() < m_blockOfNode.size() ? m_blockOfNode[node.index()] : -1;
}

void Document::setSettings(EngineSettings settings)
{
    const bool fusionChanged = !settings.sameFusion(m_settings);
    m_settings = std::move(settings);
    rebuildPipeline();
    refresh();
    if (fusionChanged && m_graph) {
        m_blocks.reset();
        m_blockOfNode.clear();
        emit blocksChanged();
    }
    emit settingsChanged();
    emit planReset();
    emit planChanged();
}

void Document::replacePlan(cleave::PartitionPlan plan)
{
    if (!m_graph || &plan.graph() != m_graph.get())
        return;
    const bool functionChanged = !m_plan || m_plan->function() != plan.function();
    m_plan = std::move(plan);
    refresh();
    if (functionChanged) {
        m_blocks.reset();
        m_blockOfNode.clear();
        emit blocksChanged();
    }
    emit planReset();
    emit planChanged();
}

std::vector<cleave::FunctionId> Document::partitionableFunctions() const
{
    std::vector<cleave::FunctionId> out;
    if (!m_graph)
        return out;
    const cleave::FunctionId main = m_graph->mainFunction();
    if (main.isValid())
        out.push_back(main);
    for (std::size_t i = 0; i < m_graph->functionCount(); ++i) {
        const cleave::FunctionId id(i);
        const cleave::Function &f = m_graph->function(id);
        if (id != main && f.kind == cleave::Function::Kind::Global && f.sourceText.empty())
            out.push_back(id);
    }
    return out;
}

void Document::setProjectPath(const QString &path)
{
    if (path == m_projectPath)
        return;
    m_projectPath = path;
    emit projectPathChanged();
}

cleave::PlanEdit
Document::runEdit(const std::function<cleave::PlanEdit(cleave::PartitionPlan &)> &edit)
{
    if (!m_plan)
        return {};
    cleave::PlanEdit result = edit(*m_plan);
    if (result.isEmpty()) {
        QStringList reasons;
        for (const cleave::Diagnostic &d : result.diagnostics)
            reasons.append(QString::fromStdString(d.message));
        emit editRefused(reasons.isEmpty() ? tr("The edit changes nothing.")
                                           : reasons.join(QLatin1Char('\n')));
        return result;
    }
    refresh();
    emit planEdited(result, false);
    emit planChanged();
    if (!result.impliedEdges.empty())
        emit edgesImplied(result.impliedEdges);
    return result;
}

bool Document::changesRecordsOnly(const cleave::PlanEdit &edit)
{
    if (!edit.changes.empty() || edit.crossedChanged
        || edit.partitionsBefore.size() != edit.partitionsAfter.size())
        return false;
    return std::equal(
        edit.partitionsBefore.begin(), edit.partitionsBefore.end(), edit.partitionsAfter.begin(),
        [](const cleave::Partition &a, const cleave::Partition &b) { return a.id == b.id; });
}

std::vector<cleave::PartitionId> Document::changedRecords(const cleave::PlanEdit &edit)
{
    std::vector<cleave::PartitionId> ids;
    if (!changesRecordsOnly(edit))
        return ids;
    for (std::size_t i = 0; i < edit.partitionsBefore.size(); ++i) {
        if (!(edit.partitionsBefore[i] == edit.partitionsAfter[i]))
            ids.push_back(edit.partitionsAfter[i].id);
    }
    return ids;
}

void Document::applyEdit(const cleave::PlanEdit &edit)
{
    if (!m_plan)
        return;
    m_plan->apply(edit);
    refresh();
    emit planEdited(edit, false);
    emit planChanged();
}

void Document::revertEdit(const cleave::PlanEdit &edit)
{
    if (!m_plan)
        return;
    m_plan->revert(edit);
    refresh();
    emit planEdited(edit, true);
    emit planChanged();
}

void Document::refresh()
{
    m_errors = 0;
    m_warnings = 0;
    if (!m_plan || !m_pipeline) {
        m_boundary = {};
        m_diagnostics.clear();
        return;
    }
    cleave::CheckedPlan checked = m_pipeline->check(*m_plan);
    m_boundary = std::move(checked.boundary);
    m_diagnostics = std::move(checked.diagnostics);
    countFindings(m_diagnostics, m_errors, m_warnings);
}

} // namespace cleave::ui
