// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ModuleExporter.h"
#include "core/export/PartitionModule.h"

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
};

/// Partition `k` of a Relax plan as a Relax module graph (extractPartition, then the Relax
/// specifics: metadata references, the PrimFuncs its kernels call, module attributes).
PartitionModule extractRelaxPartition(const PartitionPlan &plan, const BoundaryTable &boundary,
                                      std::size_t k, bool liftConstants,
                                      const std::vector<std::string> &passThrough);

/// Copies into `module` every PrimFunc of `source` that a `call_tir`-style kernel of `module`
/// calls and that `module` lacks.
void addCalledPrimFuncs(const Graph &source, Graph &module);

/// `metadata["relax.expr.Constant"][3]` → 3; nullopt for other references.
std::optional<std::size_t> relaxConstantIndex(const std::string &metaRef);

/// The metadata JSON of a module that keeps `constants` (source indices, in module order) of
/// the source's `relax.expr.Constant` table; nullopt when the source JSON cannot be read.
std::optional<std::string> relaxMetadataSubset(const std::string &source,
                                               const std::vector<std::size_t> &constants);

/// The base64 payload of each `relax.expr.Constant` entry, by index; nullopt when unreadable.
std::optional<std::vector<std::string>> relaxConstantPayloads(const std::string &metadata);

} // namespace cleave
