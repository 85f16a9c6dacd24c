// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ModuleExporter.h"

namespace cleave {

/// Writes partitions as Relay text modules (`mod<k>.relay`, docs/DESIGN.md §5.1) built by
/// extractPartition and printed by RelayPrinter, with the module's own `#[metadata]` subset.
class RelayModuleExporter final : public ModuleExporter
{
public:
    [[nodiscard]] std::string formatName() const override { return "relay"; }
    [[nodiscard]] std::string extension() const override { return "relay"; }
    [[nodiscard]] bool acceptsSource(const Graph &graph) const override;
    [[nodiscard]] bool writesRelayByoc() const override { return true; }
    bool writeModule(const PartitionPlan &plan, const BoundaryTable &boundary, std::size_t k,
                     const ExportOptions &options, const std::vector<std::string> &passThrough,
                     std::string &content, ModuleSummary &summary,
                     std::vector<Diagnostic> &diagnostics) const override;
    [[nodiscard]] std::unique_ptr<Graph>
    readModule(const std::string &path, std::vector<Diagnostic> &diagnostics) const override;
    [[nodiscard]] std::optional<std::string>
    constantDifference(const Graph &module, const Graph &source,
                       const std::vector<std::pair<std::string, std::string>> &refs) const override;
    bool writeModelArtefacts(const ExportModel &model, const ExportOptions &options,
                             std::vector<std::pair<std::string, std::string>> &files,
                             std::vector<Diagnostic> &diagnostics) const override;
};

} // namespace cleave
