// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportOptions.h"
#include "core/export/ModuleExporter.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cleave {

/// Where one module output goes: a module input or a global output.
struct OutputDependency
{
    int module = -1; ///< Consumer mod_idx, or -1 for a global output.
    std::string inputName;
    int globalOutput = -1;
};

/// One output of one module, as pipeline_config.json lists it.
struct ModuleOutputInfo
{
    Type type;
    std::vector<OutputDependency> dependencies;
    std::string passThrough; ///< Global input forwarded by this output, if any.
};

/// A global input that is a parameter (a weight passed as an input): it reaches each module
/// that reads it through its own `param_connection` group, never through the data path.
struct ExportParam
{
    std::string name; ///< The input's name (and the module parameter's name).
    NodeId input;
    std::string reason; ///< "weight_operand" or "marked".
    /// (global_param_name, mod_idx) per reading module, in module order: the group is the
    /// weight's name, or `<name>@mod<k>` when several modules read it (TVM binds a param group
    /// to one module only).
    std::vector<std::pair<std::string, int>> groups;
};

/// Everything the export artefacts are made from, computed once (pipeline order = plan order).
struct ExportModel
{
    const PartitionPlan *plan = nullptr;
    const BoundaryTable *boundary = nullptr;
    const ExportOptions *options = nullptr;
    const ModuleExporter *writer = nullptr;
    std::vector<std::string> targets; ///< Effective target per module.
    std::vector<std::string> files; ///< Module file name per module.
    /// Global inputs in parameter order: name, and the module that receives it (-1 unused).
    std::vector<std::pair<std::string, int>> globalInputs;
    std::vector<std::vector<std::string>> passThrough; ///< Per module: forwarded inputs.
    std::vector<ExportParam> params; ///< Weights passed as inputs, in parameter order.
    /// Per module, its outputs in output_idx order: the interface outputs, then one output per
    /// forwarded global input (passThrough).
    std::vector<std::vector<ModuleOutputInfo>> outputs;
    std::vector<ModuleSummary> summaries; ///< Filled while modules are written.
    /// Per module, the name each interface input has in the module file (the writer's
    /// interfaceInputNames); set by useWriterNames().
    std::vector<std::vector<std::string>> inputNames;
    std::vector<Diagnostic> diagnostics;
    /// The export folder as the caller named it: scripts locate the source model from it.
    std::string folder;
};

/// The source model's file name, without its folder: what generated scripts print (they carry
/// no absolute path of the machine that wrote them).
std::string scriptSourceName(const ExportModel &model);
/// The source model's path relative to the export folder (`../model.relax.py`), for scripts
/// that re-run the source; the file name alone when no relative path exists.
std::string sourcePathFromFolder(const ExportModel &model);

/// Builds the connection model of a plan; errors (a cycle between partitions, a global
/// output no partition produces) go to `model.diagnostics`.
ExportModel buildExportModel(const PartitionPlan &plan, const BoundaryTable &boundary,
                             const ExportOptions &options);

/// Takes the writer's names for module inputs (ONNX tensor names instead of `data_n_<i>`) into
/// `inputNames` and into the output dependencies of pipeline_config.json.
void useWriterNames(ExportModel &model);

/// The kind of a target: its first word (`cuda` of `cuda -arch=sm_80`, `dnnl`), what device
/// numbering, device codes and BYOC detection go by.
std::string targetKind(const std::string &target);
/// `"<device_type>,<device_id>"` of a target (llvm 1, cuda 2, opencl 4, vulkan 7, metal 8,
/// rocm 10; BYOC compilers run from the host CPU).
std::string deviceOf(const std::string &target);
/// True when a target names a BYOC compiler rather than a TVM device target.
bool isByocTarget(const std::string &target);

/// partitions.json (Cleave's manifest).
nlohmann::ordered_json manifestJson(const ExportModel &model);
/// build_pipeline.py.
std::string buildScript(const ExportModel &model);
/// run_pipeline.py, for modules that are already compiled (graph executor JSON): loads the
/// source's library and params once per module and runs the modules in pipeline order.
std::string runScript(const ExportModel &model);

} // namespace cleave
