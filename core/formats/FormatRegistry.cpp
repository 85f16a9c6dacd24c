// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/formats/FormatRegistry.h"

#include "core/export/graphjson/GraphJsonModuleExporter.h"
#include "core/export/onnx/OnnxModuleExporter.h"
#include "core/export/relax/RelaxModuleExporter.h"
#include "core/export/relay/RelayModuleExporter.h"
#include "core/io/ContentSniffer.h"
#include "core/io/graphjson/GraphJsonImporter.h"
#include "core/io/onnx/OnnxImporter.h"
#include "core/io/relax/RelaxImporter.h"
#include "core/io/relay/RelayImporter.h"

namespace cleave {

const std::vector<std::unique_ptr<Importer>> &importers()
{
    static const std::vector<std::unique_ptr<Importer>> registry = [] {
        std::vector<std::unique_ptr<Importer>> list;
        list.push_back(std::make_unique<OnnxImporter>()); // strict sniffing first
        list.push_back(std::make_unique<RelaxImporter>());
        list.push_back(std::make_unique<RelayImporter>());
        list.push_back(std::make_unique<GraphJsonImporter>());
        return list;
    }();
    return registry;
}

const Importer *importerFor(std::string_view path, std::string_view head)
{
    for (const auto &importer : importers()) {
        if (importer->canRead(path, head))
            return importer.get();
    }
    return nullptr;
}

ImportResult importBytes(std::string_view bytes, const std::string &path)
{
    if (const std::optional<std::string> foreign = foreignContent(bytes)) {
        ImportResult r;
        Diagnostic d = fileError(path, "import.not_a_model", *foreign);
        d.where.line = 1;
        d.where.column = 1;
        r.diagnostics.push_back(std::move(d));
        return r;
    }
    const Importer *importer = importerFor(path, bytes.substr(0, 4096));
    if (!importer) {
        ImportResult r;
        r.diagnostics.push_back(fileError(path, "import.unknown_format",
                                          "not a model Cleave can read (expected Relay text, "
                                          "Relax TVMScript, TVM graph.json or ONNX)"));
        return r;
    }
    return importBytesWith(*importer, bytes, path);
}

ImportResult importFile(const std::string &path)
{
    std::string bytes;
    if (std::optional<ImportResult> failed = readModelFile(path, bytes))
        return std::move(*failed);
    return importBytes(bytes, path);
}

const std::vector<std::unique_ptr<ModuleExporter>> &moduleExporters()
{
    static const std::vector<std::unique_ptr<ModuleExporter>> list = [] {
        std::vector<std::unique_ptr<ModuleExporter>> v;
        v.push_back(std::make_unique<RelayModuleExporter>());
        v.push_back(std::make_unique<OnnxModuleExporter>());
        v.push_back(std::make_unique<GraphJsonModuleExporter>());
        v.push_back(std::make_unique<RelaxModuleExporter>());
        return v;
    }();
    return list;
}

const ModuleExporter *moduleExporterFor(const std::string &formatName)
{
    for (const auto &e : moduleExporters()) {
        if (e->formatName() == formatName)
            return e.get();
    }
    return nullptr;
}

const ModuleExporter *moduleExporterForSource(const Graph &graph)
{
    for (const auto &e : moduleExporters()) {
        if (e->acceptsSource(graph))
            return e.get();
    }
    return nullptr;
}

void applyWriterCapabilities(const Graph &graph, ValidationOptions &options)
{
    const ModuleExporter *writer = moduleExporterForSource(graph);
    options.forwardsAnyValue = writer && writer->forwardsAnyValue();
}

} // namespace cleave
