// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/ModelLoader.h"

#include "core/formats/FormatRegistry.h"
#include "core/layout/LayoutGraph.h"
#include "core/session/PlanPipeline.h"
#include "core/validation/Validation.h"

#include <QFileInfo>
#include <QLocale>
#include <QThread>

#include <functional>
#include <string>
#include <utility>

namespace cleave::ui {

namespace {

using Announce = std::function<void(ModelLoader::Phase, const QString &detail)>;

// The format the registry will pick for `bytes`, for the progress card ("" when none).
QString formatOf(const std::string &path, const std::string &bytes)
{
    const std::string_view head = std::string_view(bytes).substr(0, 4096);
    const Importer *importer = importerFor(path, head);
    return importer != nullptr ? QString::fromStdString(importer->formatName()) : QString();
}

// Reads, imports, fuses and checks `path` into `out`, announcing each phase; false when
// `cancel` was set at a phase boundary (`out` is then incomplete and dropped).
bool prepare(const std::string &path, const std::atomic<bool> &cancel, const Announce &announce,
             PreparedModel &out)
{
    using Phase = ModelLoader::Phase;
    announce(Phase::Reading,
             QLocale().formattedDataSize(QFileInfo(QString::fromStdString(path)).size()));
    ImportResult imported;
    {
        std::string bytes;
        if (std::optional<ImportResult> failed = readModelFile(path, bytes)) {
            imported = std::move(*failed);
        } else {
            if (cancel.load())
                return false;
            announce(Phase::Importing, formatOf(path, bytes));
            imported = importBytes(bytes, path);
        }
    }
    out.importDiagnostics = std::move(imported.diagnostics);
    out.graph = std::move(imported.graph);
    if (cancel.load())
        return false;
    if (!out.ok())
        return true;
    announce(Phase::Fusing, {});
    out.blocks = fuseOps(*out.graph, out.graph->mainFunction());
    if (cancel.load())
        return false;
    announce(Phase::Checking, {});
    out.summary = ModelSummary::compute(*out.graph);
    out.plan.emplace(*out.graph);
    // Checked as the Document checks it with default settings (the model's writer included).
    CheckedPlan checked = PlanPipeline(*out.graph, EngineSettings {}).check(*out.plan);
    out.boundary = std::move(checked.boundary);
    out.planDiagnostics = std::move(checked.diagnostics);
    if (cancel.load())
        return false;
    // A tenth of a second at 100k nodes that the canvas would otherwise spend on the UI thread.
    // From the plan's view of the main function: a second one for the while cost 20 bytes an
    // edge and 16 a node at the height of the open.
    out.layoutGraph = std::make_shared<const LayoutGraph>(buildLayoutGraph(out.plan->view()));
    return !cancel.load();
}

} // namespace

ModelLoader::ModelLoader(QObject *parent)
    : QObject(parent)
    , m_workers(this, [this] { emit idle(); })
{
}

ModelLoader::~ModelLoader()
{
    m_workers.cancelAndWait();
}

QString ModelLoader::phaseText(Phase phase, const QString &fileName, const QString &detail)
{
    switch (phase) {
    case Phase::Reading:
        return detail.isEmpty() ? tr("Reading %1…").arg(fileName)
                                : tr("Reading %1 (%2)…").arg(fileName, detail);
    case Phase::Importing:
        return detail.isEmpty()
            ? tr("Importing %1: parsing and inferring shapes…").arg(fileName)
            : tr("Importing %1 (%2): parsing and inferring shapes…").arg(fileName, detail);
    case Phase::Fusing:
        return tr("Fusing the operators of %1 into kernels (FuseOps)…").arg(fileName);
    case Phase::Checking:
        return tr("Summarising %1 and checking its plan…").arg(fileName);
    }
    return {};
}

int ModelLoader::phasePercent(Phase phase)
{
    switch (phase) {
    case Phase::Reading:
        return 5;
    case Phase::Importing:
        return 15;
    case Phase::Fusing:
        return 75;
    case Phase::Checking:
        return 88;
    }
    return 0;
}

quint64 ModelLoader::start(const QString &path)
{
    abandonCurrent();
    const quint64 generation = ++m_generation;
    m_running = true;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    const QString fileName = QFileInfo(path).fileName();
    // The worker owns its model until it hands it over through a queued call, which Qt drops if
    // the loader is gone by then (the destructor waits for the thread anyway).
    QThread *thread = QThread::create([this, generation, cancel, fileName,
                                       path = path.toStdString()] {
        const Announce announce = [&](Phase phase, const QString &detail) {
            const QString text = phaseText(phase, fileName, detail);
            QMetaObject::invokeMethod(
                this,
                [this, generation, phase, text] {
                    if (generation == m_generation && m_running)
                        emit phaseChanged(generation, phase, text, phasePercent(phase));
                },
                Qt::QueuedConnection);
        };
        auto model = std::make_shared<PreparedModel>();
        if (!prepare(path, *cancel, announce, *model))
            return;
        QMetaObject::invokeMethod(
            this, [this, generation, model] { deliver(generation, model); }, Qt::QueuedConnection);
    });
    m_workers.run(thread, cancel);
    return generation;
}

void ModelLoader::abandonCurrent()
{
    m_workers.cancelAll();
    if (!m_running)
        return;
    m_running = false;
    const quint64 generation = m_generation;
    ++m_generation; // whatever the abandoned worker still delivers is stale now
    emit finished(generation, nullptr);
}

void ModelLoader::cancel()
{
    abandonCurrent();
}

void ModelLoader::deliver(quint64 generation, std::shared_ptr<PreparedModel> model)
{
    if (generation != m_generation || !m_running)
        return;
    m_running = false;
    emit finished(generation, std::move(model));
}

} // namespace cleave::ui
