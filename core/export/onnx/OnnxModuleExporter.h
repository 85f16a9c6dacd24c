// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ModuleExporter.h"

namespace cleave {

/// The graph input names of `mod<k>.onnx`, one per BoundaryTable::interfaces[k].inputs entry
/// (same order): the ONNX tensor names the module reads. pipeline_config.json and
/// partitions.json must name the module's inputs so for ONNX exports (not `data_n_<i>`).
std::vector<std::string> onnxInputNames(const PartitionPlan &plan, const BoundaryTable &boundary,
                                        std::size_t k);

/// Writes partitions of an ONNX model as ONNX models (`mod<k>.onnx`): the partition's nodes in
/// the source's order (plus the `Constant` nodes they read), its boundary tensors as graph
/// inputs / outputs under their ONNX tensor names with their types (from ONNX shape
/// inference), exactly the initializers it reads (external data inlined), the source's opset
/// imports and IR version, producer "cleave". The source file is re-read and must still match
/// the graph's checksum. Modules connect by tensor name: an input of one module is the output
/// of the same name of another (or a global input of the source).
class OnnxModuleExporter final : public ModuleExporter
{
public:
    [[nodiscard]] std::string formatName() const override { return "onnx"; }
    [[nodiscard]] std::string extension() const override { return "onnx"; }
    [[nodiscard]] bool acceptsSource(const Graph &graph) const override;
    /// ONNX modules keep the source's tensor names (onnxInputNames).
    [[nodiscard]] std::vector<std::string> interfaceInputNames(const PartitionPlan &plan,
                                                               const BoundaryTable &boundary,
                                                               std::size_t k) const override
    {
        return onnxInputNames(plan, boundary, k);
    }
    /// ONNX Runtime's execution provider for a target (onnxExecutionProvider).
    [[nodiscard]] std::string executionProvider(const std::string &target) const override;
    bool writeModule(const PartitionPlan &plan, const BoundaryTable &boundary, std::size_t k,
                     const ExportOptions &options, const std::vector<std::string> &passThrough,
                     std::string &content, ModuleSummary &summary,
                     std::vector<Diagnostic> &diagnostics) const override;
    /// The source model (weights inlined, shapes inferred) with its lookups, parsed once for
    /// all modules while the handle lives; null when it cannot be read (writeModule says why).
    [[nodiscard]] std::shared_ptr<const void> holdSource(const Graph &graph) const override;
    /// Imports a module with the project's importer (importFile).
    [[nodiscard]] std::unique_ptr<Graph>
    readModule(const std::string &path, std::vector<Diagnostic> &diagnostics) const override;
    /// Compares the bytes of the module's constants (initializers, `Constant` nodes) with the
    /// source's constants of the same key.
    [[nodiscard]] std::optional<VerifyResult> verifyFolder(const std::string &dir) const override;
    /// run_pipeline.py (ONNX Runtime, one session per partition; --check, --bench, --ray) and
    /// profile.py (per-node latencies on the deployment machine), always written.
    bool writeModelArtefacts(const ExportModel &model, const ExportOptions &options,
                             std::vector<std::pair<std::string, std::string>> &files,
                             std::vector<Diagnostic> &diagnostics) const override;
    [[nodiscard]] std::vector<Artefact> modelArtefacts() const override
    {
        return { { "run_pipeline.py",
                   "runs the partitions in ONNX Runtime: --check against the source, --bench, "
                   "--ray",
                   "" },
                 { "profile.py", "measures every node's latency on the machine it runs on", "" } };
    }
    /// run_pipeline.py --check runs the partitions in ONNX Runtime.
    [[nodiscard]] std::optional<RuntimeCheckScript> runtimeCheck() const override
    {
        return RuntimeCheckScript {
            "onnxruntime", "ONNX Runtime", "onnxruntime, numpy", "run_pipeline.py", { "--check" }
        };
    }
};

/// The ONNX Runtime execution provider that runs a partition with `target`: llvm / cpu →
/// `CPUExecutionProvider`, cuda → `CUDAExecutionProvider`, tensorrt, dnnl, openvino, rocm,
/// migraphx, coreml, nnapi, acl, armnn, qnn, vitisai, cann, xnnpack, dml likewise; other
/// targets → `CPUExecutionProvider`.
std::string onnxExecutionProvider(const std::string &target);

/// The ONNX tensor name of a graph tensor (Node::outputNames; the node's name when it has none).
std::string onnxTensorName(const Graph &graph, TensorRef tensor);

/// The graph output names of `mod<k>.onnx` for BoundaryTable::interfaces[k].outputs (same
/// order; pass-through global inputs follow under their own names).
std::vector<std::string> onnxOutputNames(const PartitionPlan &plan, const BoundaryTable &boundary,
                                         std::size_t k);

} // namespace cleave
