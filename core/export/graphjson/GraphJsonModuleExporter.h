// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ModuleExporter.h"

#include <nlohmann/json.hpp>

namespace cleave {

/// Writes partitions of an already compiled model (TVM graph executor JSON) as graph executor
/// JSON (`mod<k>.json`, docs/DESIGN.md §5.1) that references the SAME compiled library's kernels
/// by `func_name`, so a compiled model splits without recompiling: the partition's `tvm_op`
/// nodes with their attributes unchanged, preceded by `null` nodes for its inputs (global
/// inputs by name, cut inputs `data_n_<k>`) and for the params it reads (under their source
/// names, the keys of the model's params file); nodes renumbered, `arg_nodes`, `node_row_ptr`,
/// `heads` (the interface outputs in output_idx order, then pass-through values), and `attrs`
/// with `shape`, `dltype` and a fresh `storage_id` plan (graphJsonStoragePlan).
class GraphJsonModuleExporter final : public ModuleExporter
{
public:
    [[nodiscard]] std::string formatName() const override { return "graph.json"; }
    [[nodiscard]] std::string extension() const override { return "json"; }
    [[nodiscard]] bool acceptsSource(const Graph &graph) const override;
    [[nodiscard]] bool modulesAreCompiled() const override { return true; }
    bool writeModule(const PartitionPlan &plan, const BoundaryTable &boundary, std::size_t k,
                     const ExportOptions &options, const std::vector<std::string> &passThrough,
                     std::string &content, ModuleSummary &summary,
                     std::vector<Diagnostic> &diagnostics) const override;
    /// Imports a module with the graph.json importer.
    [[nodiscard]] std::unique_ptr<Graph>
    readModule(const std::string &path, std::vector<Diagnostic> &diagnostics) const override;
    /// graph.json carries no weight values (they live in the params file both share): nothing
    /// to compare.
    [[nodiscard]] std::optional<std::string>
    constantDifference(const Graph &module, const Graph &source,
                       const std::vector<std::pair<std::string, std::string>> &refs) const override;
};

/// A storage plan for graph executor entries: entry `e` lives from the step that produces it
/// (`produced[e]`, its node's position) to the last step that reads it (`lastUse[e]`); entries
/// in `pinned` (graph inputs, params, heads) get storage of their own that is never reused.
/// Other entries reuse the storage of an entry that died strictly before they are produced, of
/// the same byte size (`bytes`, -1 when unknown: never shared). Returns one id per entry; no two
/// entries alive at the same step share an id.
std::vector<int> graphJsonStoragePlan(const std::vector<std::size_t> &produced,
                                      const std::vector<std::size_t> &lastUse,
                                      const std::vector<std::int64_t> &bytes,
                                      const std::vector<bool> &pinned);

/// Checks a graph executor JSON document the way TVM's GraphExecutor::Load reads it: the five
/// keys, node_row_ptr as the prefix sum of outputs, arg_nodes exactly the null nodes, inputs
/// and heads in range, and one shape, dltype and storage_id per entry. Returns the first
/// problem, or an empty string.
std::string checkGraphExecutorJson(const nlohmann::json &doc);

} // namespace cleave
