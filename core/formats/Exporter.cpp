// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/formats/Exporter.h"

#include "core/export/ExportFolder.h"
#include "core/export/ExportModel.h"
#include "core/export/PipelineConfig.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/JsonParse.h"
#include "core/partition/NameRules.h"

namespace cleave {

namespace {

Diagnostic exportError(std::string code, std::string message)
{
    return Diagnostic::make(Severity::Error, std::move(code), std::move(message));
}

/// Names and targets end up in Relay identifiers, attributes and scripts: each must pass
/// the rules of NameRules.h (a plan file is checked when read; the editor and --targets are
/// checked here).
bool checkNames(const PartitionPlan &plan, const ExportOptions &options,
                std::vector<Diagnostic> &diagnostics)
{
    bool ok = true;
    for (std::size_t k = 0; k < plan.partitionCount(); ++k) {
        const Partition &p = plan.partitions()[k];
        const std::string &target = k < options.targets.size() && !options.targets[k].empty()
            ? options.targets[k]
            : p.target;
        if (const auto problem = partitionNameProblem(p.name)) {
            diagnostics.push_back(exportError("export.bad_name",
                                              "partition " + std::to_string(k) + " is named "
                                                  + quoteBounded(p.name) + ": " + *problem));
            ok = false;
        }
        if (const auto problem = targetProblem(target)) {
            diagnostics.push_back(exportError("export.bad_target",
                                              "partition " + quoteBounded(p.name)
                                                  + " has the target " + quoteBounded(target) + ": "
                                                  + *problem));
            ok = false;
        }
    }
    return ok;
}

/// Re-reads every model and JSON file the export is about to write, with the same readers a
/// user's tools would meet: a file that does not parse is an `export.reparse` error and
/// nothing is written.
bool reparseFiles(const std::vector<std::pair<std::string, std::string>> &files,
                  std::vector<Diagnostic> &diagnostics)
{
    bool ok = true;
    for (const auto &[name, content] : files) {
        const bool json = name.ends_with(".json");
        const bool model = name.ends_with(".relay") || name.ends_with(".onnx");
        if (!json && !model)
            continue;
        std::vector<Diagnostic> found;
        if (json) {
            parseJsonLocated(content, name, "export.reparse", found);
        } else {
            ImportResult again = importBytes(content, name);
            for (Diagnostic &d : again.diagnostics) {
                if (d.severity == Severity::Error)
                    found.push_back(std::move(d));
            }
        }
        if (!found.empty()) {
            Diagnostic d
                = exportError("export.reparse",
                              "the exported " + name + " does not read back (nothing was written): "
                                  + found.front().toString());
            diagnostics.push_back(std::move(d));
            ok = false;
        }
    }
    return ok;
}

ExportResult runExport(const PartitionPlan &plan, const BoundaryTable &boundary,
                       const ExportOptions &options, const std::string &dir)
{
    ExportResult result;
    ExportModel model = buildExportModel(plan, boundary, options);
    model.folder = dir;
    model.writer = moduleExporterFor(options.moduleFormat);
    if (model.writer && !model.writer->acceptsSource(plan.graph())) {
        // The default format does not fit this source (an ONNX model): use the writer that does.
        for (const auto &writer : moduleExporters()) {
            if (writer->acceptsSource(plan.graph())) {
                model.writer = writer.get();
                break;
            }
        }
    }
    if (!model.writer) {
        model.diagnostics.push_back(
            exportError("export.format", "unknown module format '" + options.moduleFormat + "'"));
    } else if (!model.writer->acceptsSource(plan.graph())) {
        model.diagnostics.push_back(exportError("export.format",
                                                "cannot write " + options.moduleFormat
                                                    + " modules for a " + plan.graph().format()
                                                    + " model"));
    }
    if (hasErrors(model.diagnostics) || !checkNames(plan, options, model.diagnostics)) {
        result.diagnostics = std::move(model.diagnostics);
        return result;
    }
    useWriterNames(model);
    // What the modules read of the source file, read once and freed when the export ends.
    std::shared_ptr<const void> source = model.writer->holdSource(plan.graph());
    const std::size_t n = plan.partitionCount();
    std::vector<std::pair<std::string, std::string>> files;
    model.summaries.resize(n);
    for (std::size_t k = 0; k < n; ++k)
        model.files.push_back("mod" + std::to_string(k) + "." + model.writer->extension());
    for (std::size_t k = 0; k < n; ++k) {
        std::string content;
        model.summaries[k].file = model.files[k];
        if (!model.writer->writeModule(plan, boundary, k, options, model.passThrough[k], content,
                                       model.summaries[k], model.diagnostics)) {
            result.diagnostics = std::move(model.diagnostics);
            return result;
        }
        if (options.modules)
            files.emplace_back(model.files[k], std::move(content));
    }
    source.reset();
    const bool pipeline = model.writer->usesPipelineExecutor();
    if (options.pipelineConfig && pipeline)
        files.emplace_back("pipeline_config.json",
                           dumpPythonJson(pipelineConfigJson(model)) + "\n");
    if (!model.writer->writeModelArtefacts(model, options, files, model.diagnostics)) {
        result.diagnostics = std::move(model.diagnostics);
        return result;
    }
    if (options.buildScript && pipeline && model.writer->modulesAreCompiled())
        files.emplace_back("run_pipeline.py", runScript(model));
    else if (options.buildScript && pipeline)
        files.emplace_back("build_pipeline.py", buildScript(model));
    if (options.manifest)
        files.emplace_back(
            "partitions.json",
            manifestJson(model).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                + "\n");
    if (!reparseFiles(files, model.diagnostics)
        || !writeExportFolder(files, dir, options, model.diagnostics)) {
        result.diagnostics = std::move(model.diagnostics);
        return result;
    }
    for (const auto &f : files)
        result.files.push_back(f.first);
    result.diagnostics = std::move(model.diagnostics);
    result.ok = true;
    return result;
}

} // namespace

ExportResult exportPartitions(const PartitionPlan &plan, const BoundaryTable &boundary,
                              const ExportOptions &options, const std::string &dir)
{
    try {
        return runExport(plan, boundary, options, dir);
    } catch (const std::exception &e) {
        ExportResult r;
        r.diagnostics.push_back(
            exportError("export.internal", std::string("export failed: ") + e.what()));
        return r;
    }
}

} // namespace cleave
