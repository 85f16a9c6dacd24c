// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/ModelSummary.h"
#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "ui/support/WorkerThreads.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace cleave {
struct LayoutGraph;
} // namespace cleave

namespace cleave::ui {

/// A model read, imported and analysed off the UI thread, ready for Document::setPrepared():
/// the graph (null when the file could not be read), the import diagnostics, the FuseOps blocks
/// of its main function, its summary, its one-partition plan with that plan's boundary and
/// validation findings, and the drawn graph of its main function (what the canvas lays out).
struct PreparedModel
{
    std::unique_ptr<cleave::Graph> graph;
    std::vector<cleave::Diagnostic> importDiagnostics;
    std::vector<cleave::FusedBlock> blocks;
    cleave::ModelSummary summary;
    std::optional<cleave::PartitionPlan> plan; ///< Refers to *graph.
    cleave::BoundaryTable boundary;
    std::vector<cleave::Diagnostic> planDiagnostics;
    /// The main function as the canvas draws it at Ops level (ids only, no pointer into graph).
    std::shared_ptr<const cleave::LayoutGraph> layoutGraph;

    /// True when there is a graph and the import reported no error.
    [[nodiscard]] bool ok() const
    {
        return graph != nullptr && !cleave::hasErrors(importDiagnostics);
    }

    PreparedModel() = default;
    PreparedModel(PreparedModel &&) noexcept = default;
    PreparedModel &operator=(PreparedModel &&) noexcept = default;
    PreparedModel(const PreparedModel &) = delete;
    PreparedModel &operator=(const PreparedModel &) = delete;
    /// The plan refers to the graph: it goes first.
    ~PreparedModel() { plan.reset(); }
};

/// Opens model files on a worker thread, in phases: reading the file, importing it through the
/// format registry (parsing and shape inference), fusing its operators (FuseOps), and summarising
/// it with its one-partition plan checked. Each phase is announced (phaseChanged()) on the
/// loader's thread.
///
/// One request at a time: start() supersedes the running request and cancel() stops it. Either
/// answers the request at once (finished() with a null model); the worker stops at the next phase
/// boundary (an importer cannot be interrupted in the middle) and its result is dropped. The
/// destructor waits for running workers.
class ModelLoader : public QObject
{
    Q_OBJECT

public:
    enum class Phase { Reading, Importing, Fusing, Checking };

    explicit ModelLoader(QObject *parent = nullptr);
    ~ModelLoader() override;

    /// Starts opening `path`; returns the request's generation.
    quint64 start(const QString &path);
    /// Cancels the current request (finished() with a null model, at once).
    void cancel();
    /// True while a request waits for its result.
    [[nodiscard]] bool isRunning() const { return m_running; }
    /// True while a worker thread (of the current or an abandoned request) still runs.
    [[nodiscard]] bool hasWorkers() const { return !m_workers.isEmpty(); }
    [[nodiscard]] quint64 generation() const { return m_generation; }
    /// What the card says of a phase ("Importing resnet.relay (Relay): parsing…").
    [[nodiscard]] static QString phaseText(Phase phase, const QString &fileName,
                                           const QString &detail);
    /// The progress shown for a phase, 0..100.
    [[nodiscard]] static int phasePercent(Phase phase);

signals:
    /// The current request entered `phase`; `text` says so for the progress card.
    void phaseChanged(quint64 generation, cleave::ui::ModelLoader::Phase phase, const QString &text,
                      int percent);
    /// The request `generation` ended: `model` is null when it was cancelled or superseded, else
    /// the prepared model (which may have failed: PreparedModel::ok()).
    void finished(quint64 generation, std::shared_ptr<cleave::ui::PreparedModel> model);
    /// Every worker thread has ended (none still runs for a cancelled request).
    void idle();

private:
    void deliver(quint64 generation, std::shared_ptr<PreparedModel> model);
    void abandonCurrent();

    WorkerThreads m_workers;
    quint64 m_generation = 0;
    bool m_running = false;
};

} // namespace cleave::ui
