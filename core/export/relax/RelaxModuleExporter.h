// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ModuleExporter.h"
#include "core/export/PartitionModule.h"
#include "core/export/relax/RelaxMetadata.h"

#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// Writes partitions of a Relax model as TVMScript IRModules (`mod<k>.relax.py`): `main` takes
/// the partition's boundary tensors (named as the boundary table names them, global inputs by
/// their own names) and returns its outputs (a tuple in output_idx order when there are
/// several); the module carries the PrimFuncs and module functions the partition calls and no
/// others, and a metadata header listing only the partition's constants
/// (`metadata["relax.expr.Constant"][i]` re-indexed in module order).
class RelaxModuleExporter final : public ModuleExporter
{
public:
    [[nodiscard]] std::string formatName() const override { return "relax"; }
    [[nodiscard]] std::string extension() const override { return "relax.py"; }
    [[nodiscard]] bool acceptsSource(const Graph &graph) const override;
    bool writeModule(const PartitionPlan &plan, const BoundaryTable &boundary, std::size_t k,
                     const ExportOptions &options, const std::vector<std::string> &passThrough,
                     std::string &content, ModuleSummary &summary,
                     std::vector<Diagnostic> &diagnostics) const override;
    [[nodiscard]] std::unique_ptr<Graph>
    readModule(const std::string &path, std::vector<Diagnostic> &diagnostics) const override;
    /// Compares the tensor payloads of the module's metadata constants with the source's.
    [[nodiscard]] std::optional<std::string>
    constantDifference(const Graph &module, const Graph &source,
                       const std::vector<std::pair<std::string, std::string>> &refs) const override;
    bool writeModelArtefacts(const ExportModel &model, const ExportOptions &options,
                             std::vector<std::pair<std::string, std::string>> &files,
                             std::vector<Diagnostic> &diagnostics) const override;
    [[nodiscard]] bool usesPipelineExecutor() const override { return false; }
    [[nodiscard]] std::vector<Artefact> modelArtefacts() const override
    {
        return { { "build_relax.py",
                   "builds every module in TVM >= 0.20, runs them and checks them against the "
                   "source",
                   "buildScript" },
                 { "byoc.relax.py", "Codegen functions for the BYOC partitions", "byoc" },
                 { "placed.relax.py", "the whole model, each partition on its own vdevice", "" } };
    }
    /// build_relax.py builds and runs the modules in TVM >= 0.20.
    [[nodiscard]] std::optional<RuntimeCheckScript> runtimeCheck() const override
    {
        return RuntimeCheckScript { "tvm", "TVM", "tvm, numpy", "build_relax.py", {} };
    }
    /// A Relax `main` returns and takes tuples, shapes and objects like tensors.
    [[nodiscard]] bool forwardsAnyValue() const override { return true; }
};

/// Partition `k` of a Relax plan as a Relax module graph (extractPartition, then the Relax
/// specifics: metadata references, the PrimFuncs its kernels call, module attributes).
PartitionModule extractRelaxPartition(const PartitionPlan &plan, const BoundaryTable &boundary,
                                      std::size_t k, bool liftConstants,
                                      const std::vector<std::string> &passThrough);

/// Copies into `module` every PrimFunc of `source` that a `call_tir`-style kernel of `module`
/// calls and that `module` lacks.
void addCalledPrimFuncs(const Graph &source, Graph &module);

} // namespace cleave
