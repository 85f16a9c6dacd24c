// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/Exporter.h"

#include "core/export/ByocExport.h"
#include "core/export/ExportModel.h"
#include "core/export/relax/RelaxArtefacts.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

namespace cleave {

namespace fs = std::filesystem;

namespace {

Diagnostic exportError(std::string code, std::string message)
{
    return Diagnostic::make(Severity::Error, std::move(code), std::move(message));
}

/// A name for a sibling of `target` that nothing else uses.
fs::path siblingName(const fs::path &target, const std::string &tag)
{
    thread_local std::mt19937_64 rng(static_cast<std::uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count()));
    for (;;) {
        fs::path p = target.parent_path()
            / ("." + target.filename().string() + "." + tag + "-" + std::to_string(rng() % 1000000000));
        std::error_code ec;
        if (!fs::exists(p, ec))
            return p;
    }
}

/// Writes the files into a temporary folder beside `dir`, then swaps it into place.
bool writeFolder(const std::vector<std::pair<std::string, std::string>> &files,
                 const std::string &dir, std::vector<Diagnostic> &diagnostics)
{
    fs::path target = fs::path(dir).lexically_normal();
    if (target.filename().empty())
        target = target.parent_path();
    if (target.empty()) {
        diagnostics.push_back(exportError("export.io", "no output folder given"));
        return false;
    }
    std::error_code ec;
    if (target.parent_path().empty())
        target = fs::path(".") / target;
    if (fs::exists(target, ec) && !fs::is_directory(target, ec)) {
        diagnostics.push_back(
            exportError("export.io", target.string() + " exists and is not a folder"));
        return false;
    }
    fs::create_directories(target.parent_path(), ec);
    const fs::path tmp = siblingName(target, "tmp");
    if (!fs::create_directory(tmp, ec)) {
        diagnostics.push_back(exportError(
            "export.io", "cannot create " + tmp.string() + ": " + ec.message()));
        return false;
    }
    auto fail = [&](const std::string &message) {
        std::error_code ignored;
        fs::remove_all(tmp, ignored);
        diagnostics.push_back(exportError("export.io", message));
        return false;
    };
    for (const auto &[name, content] : files) {
        // File names are ours (mod<k>.relay, ...): never a path that leaves the folder.
        if (name.empty() || name.find_first_of("/\\") != std::string::npos || name == "."
            || name == "..")
            return fail("refusing to write '" + name + "': not a plain file name");
        std::ofstream out(tmp / name, std::ios::binary | std::ios::trunc);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.close();
        if (!out)
            return fail("cannot write " + (tmp / name).string());
    }
    if (fs::exists(target, ec)) {
        const fs::path old = siblingName(target, "old");
        fs::rename(target, old, ec);
        if (ec)
            return fail("cannot replace " + target.string() + ": " + ec.message());
        fs::rename(tmp, target, ec);
        if (ec) {
            std::error_code ignored;
            fs::rename(old, target, ignored);
            return fail("cannot move the export into " + target.string() + ": " + ec.message());
        }
        fs::remove_all(old, ec);
    } else {
        fs::rename(tmp, target, ec);
        if (ec)
            return fail("cannot move the export into " + target.string() + ": " + ec.message());
    }
    return true;
}

ExportResult runExport(const PartitionPlan &plan, const BoundaryTable &boundary,
                       const ExportOptions &options, const std::string &dir)
{
    ExportResult result;
    ExportModel model = buildExportModel(plan, boundary, options);
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
        model.diagnostics.push_back(exportError(
            "export.format", "cannot write " + options.moduleFormat + " modules for a "
                                 + plan.graph().format() + " model"));
    }
    if (hasErrors(model.diagnostics)) {
        result.diagnostics = std::move(model.diagnostics);
        return result;
    }
    useWriterNames(model);
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
    // Relax (TVM >= 0.20) has no pipeline executor: partitions.json wires the modules and
    // build_relax.py, placed.relax.py and byoc.relax.py replace the Relay artefacts.
    const bool relax = model.writer->formatName() == "relax";
    if (relax && !relaxArtefacts(model, files, model.diagnostics)) {
        result.diagnostics = std::move(model.diagnostics);
        return result;
    }
    if (options.pipelineConfig && !relax)
        files.emplace_back("pipeline_config.json", dumpPythonJson(pipelineConfigJson(model)) + "\n");
    if (options.byoc && !relax && hasByocPartition(model)) {
        std::string byoc, annotated, error;
        if (!byocModules(model, byoc, annotated, error)) {
            model.diagnostics.push_back(exportError("export.byoc", error));
            result.diagnostics = std::move(model.diagnostics);
            return result;
        }
        files.emplace_back("byoc.relay", std::move(byoc));
        files.emplace_back("byoc_annotated.relay", std::move(annotated));
    }
    if (options.buildScript && !relax)
        files.emplace_back("build_pipeline.py", buildScript(model));
    if (options.manifest)
        files.emplace_back("partitions.json", manifestJson(model).dump(2) + "\n");
    if (!writeFolder(files, dir, model.diagnostics)) {
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
        r.diagnostics.push_back(exportError("export.internal", std::string("export failed: ") + e.what()));
        return r;
    }
}

} // namespace cleave
