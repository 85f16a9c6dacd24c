// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportOptions.h"
#include "core/export/VerifyResult.h"
#include "core/graph/Graph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cleave {

struct ExportModel;

/// What a module writer tells the manifest about one written module.
struct ModuleSummary
{
    std::string file; ///< File name inside the export folder (`mod0.relay`).
    std::vector<std::string> parameters; ///< The module's inputs in order (cut, global, lifted).
    /// Lifted or re-indexed constants: {source ref, module ref or parameter name, type}.
    struct Constant
    {
        std::string sourceRef;
        std::string moduleRef; ///< `meta[relay.Constant][i]` in the module, empty when lifted.
        std::string parameter; ///< Parameter name when lifted.
        Type type;
        std::string sourceKey; ///< Graph::key of the source constant node.
        /// Lifted: the functions besides `@main` given it as an extra parameter (`@helper`).
        std::vector<std::string> threadedThrough;
    };
    std::vector<Constant> constants;
};

/// Writes one partition of a plan as a module file of one format (Relay text, ONNX, ...).
/// Implementations never throw; problems become error diagnostics.
class ModuleExporter
{
public:
    virtual ~ModuleExporter() = default;
    /// Format name used in ExportOptions::moduleFormat and in the manifest ("relay").
    [[nodiscard]] virtual std::string formatName() const = 0;
    /// File extension without the dot ("relay", "onnx"): modules are `mod<k>.<extension>`.
    [[nodiscard]] virtual std::string extension() const = 0;
    /// True when the writer can export plans over graphs of this importer format.
    [[nodiscard]] virtual bool acceptsSource(const Graph &graph) const = 0;
    /// The content of partition `k` (plan order) as a module file, filling `summary`.
    /// Returns false with diagnostics when the partition cannot be written.
    virtual bool writeModule(const PartitionPlan &plan, const BoundaryTable &boundary,
                             std::size_t k, const ExportOptions &options,
                             const std::vector<std::string> &passThrough, std::string &content,
                             ModuleSummary &summary,
                             std::vector<Diagnostic> &diagnostics) const = 0;
    /// The names the inputs of partition `k` (BoundaryTable::interfaces[k].inputs, same order)
    /// carry in the module file; the connection config and the manifest use them. Relay keeps
    /// the engine's names (`data_n_<i>`, global input names).
    [[nodiscard]] virtual std::vector<std::string>
    interfaceInputNames(const PartitionPlan &plan, const BoundaryTable &boundary,
                        std::size_t k) const
    {
        (void)plan;
        std::vector<std::string> names;
        for (const PartitionInput &in : boundary.interfaces[k].inputs)
            names.push_back(in.name);
        return names;
    }
    /// True when byoc.relay / byoc_annotated.relay (PartitionGraph-style Relay around the
    /// module bodies) can express this format's BYOC partitions: only for Relay modules.
    [[nodiscard]] virtual bool writesRelayByoc() const { return false; }
    /// The component of the format's own runtime that runs a partition with this target
    /// (ONNX Runtime's execution provider: `CUDAExecutionProvider`), or empty when TVM builds
    /// the modules. The manifest records it per partition.
    [[nodiscard]] virtual std::string executionProvider(const std::string &target) const
    {
        (void)target;
        return {};
    }
    /// True when the modules are already compiled (graph executor JSON over the source's
    /// library): the export then writes run_pipeline.py, which loads the library and params,
    /// instead of build_pipeline.py.
    [[nodiscard]] virtual bool modulesAreCompiled() const { return false; }
    /// Reads a module file written by writeModule back as a graph (for `verify`).
    [[nodiscard]] virtual std::unique_ptr<Graph>
    readModule(const std::string &path, std::vector<Diagnostic> &diagnostics) const = 0;
    /// Compares the values of a read-back module's constants with the source's where the files
    /// carry them; `refs` pairs each module constant reference with the source reference it
    /// stands for. Returns the first difference, or nullopt. Used by the generic recomposition
    /// check; writers that check their folders themselves (verifyFolder) need not override it.
    [[nodiscard]] virtual std::optional<std::string>
    constantDifference(const Graph &module, const Graph &source,
                       const std::vector<std::pair<std::string, std::string>> &refs) const
    {
        (void)module;
        (void)source;
        (void)refs;
        return std::nullopt;
    }
    /// Reads once what writeModule needs of `graph`'s source file (ONNX: the model with its
    /// weights) and keeps it while the returned handle lives: an export holds it over all its
    /// modules, and it is freed with the handle, so nothing of the source stays in memory after
    /// the export. Null when the writer reads nothing besides the graph.
    [[nodiscard]] virtual std::shared_ptr<const void> holdSource(const Graph &graph) const
    {
        (void)graph;
        return nullptr;
    }
    /// Whole-model artefacts besides the modules, appended to `files` as (file name, content):
    /// Relay writes `byoc.relay` and `byoc_annotated.relay` for BYOC partitions; Relax writes
    /// `byoc.relax.py`, `placed.relax.py` and `build_relax.py`. Writers of other formats add
    /// nothing. Returns false with error diagnostics when they cannot be written.
    virtual bool writeModelArtefacts(const ExportModel &model, const ExportOptions &options,
                                     std::vector<std::pair<std::string, std::string>> &files,
                                     std::vector<Diagnostic> &diagnostics) const
    {
        (void)model;
        (void)options;
        (void)files;
        (void)diagnostics;
        return true;
    }
    /// One whole-model artefact of writeModelArtefacts, for what an export offers to write:
    /// the file, what it is, and the ExportOptions switch that writes it ("buildScript",
    /// "byoc", or empty when it is always written).
    struct Artefact
    {
        std::string file;
        std::string description;
        std::string option;
    };
    /// The artefacts writeModelArtefacts writes besides the modules (Relax: build_relax.py,
    /// byoc.relax.py, placed.relax.py); empty for writers whose script and BYOC files are the
    /// pipeline executor's (build_pipeline.py / run_pipeline.py, byoc.relay).
    [[nodiscard]] virtual std::vector<Artefact> modelArtefacts() const { return {}; }
    /// How an export of this format runs in its own runtime (`cleave-cli verify --runtime`, the
    /// export dialog's "Run in ... after export"): the script the export writes and how to call
    /// it so that it compares the partitions with the whole source model and writes a JSON
    /// report (`--json FILE`; `--source PATH`, `--dim NAME=VALUE` follow).
    struct RuntimeCheckScript
    {
        std::string runtime; ///< `tvm`, `onnxruntime`: the value of `verify --runtime`.
        std::string title; ///< What users read: "TVM", "ONNX Runtime".
        std::string pythonModules; ///< What the interpreter must import ("tvm, numpy").
        std::string script; ///< In the export folder (`build_relax.py`).
        std::vector<std::string> args; ///< Before the common ones (`--check`).
    };
    /// The runtime check of this format's exports, or nullopt when there is none.
    [[nodiscard]] virtual std::optional<RuntimeCheckScript> runtimeCheck() const
    {
        return std::nullopt;
    }
    /// True when runtimeCheck() has a value.
    [[nodiscard]] bool hasRuntimeCheck() const { return runtimeCheck().has_value(); }
    /// True when the modules run under TVM's pipeline executor (Relay, ONNX, graph.json):
    /// the export then writes pipeline_config.json and a build or run script. Relax (TVM >=
    /// 0.20, which has no pipeline executor) is wired by partitions.json instead.
    [[nodiscard]] virtual bool usesPipelineExecutor() const { return true; }
    /// True when a module can return a value of any type (a tuple, a shape, an object) and
    /// the next module take it as a parameter, so a global input of any type read by several
    /// partitions can be forwarded (Relax). The pipeline executor carries tensors only.
    [[nodiscard]] virtual bool forwardsAnyValue() const { return false; }
    /// The recomposition check of an export folder of this format when it cannot be done by
    /// wiring `@main` signatures through pipeline_config.json (ONNX modules connect by tensor
    /// names); nullopt means the generic check applies.
    [[nodiscard]] virtual std::optional<VerifyResult> verifyFolder(const std::string &dir) const
    {
        (void)dir;
        return std::nullopt;
    }
};

} // namespace cleave
