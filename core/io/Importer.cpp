// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/Importer.h"

#include "core/io/Checksum.h"
#include "core/io/graphjson/GraphJsonImporter.h"
#include "core/io/onnx/OnnxImporter.h"
#include "core/io/relax/RelaxImporter.h"
#include "core/io/relay/RelayImporter.h"

#include <cerrno>
#include <cstring>
#include <new>
#include <fstream>
#include <sstream>

namespace cleave {

std::string ImportResult::firstError() const
{
    for (const Diagnostic &d : diagnostics) {
        if (d.severity == Severity::Error)
            return d.toString();
    }
    return {};
}

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

namespace {

Diagnostic fileError(const std::string &path, std::string code, std::string message)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = std::move(code);
    d.message = std::move(message);
    d.where.file = path;
    return d;
}

} // namespace

ImportResult guardedImport(const std::string &path, const std::string &internalCode,
                           const std::function<void(ImportResult &)> &body)
{
    ImportResult result;
    try {
        body(result);
    } catch (const std::bad_alloc &) {
        result.graph.reset();
        result.diagnostics.push_back(fileError(path, "import.out_of_memory", "out of memory while reading the model"));
    } catch (const std::exception &e) {
        result.graph.reset();
        result.diagnostics.push_back(
            fileError(path, internalCode, std::string("internal error while reading the model: ") + e.what()));
    }
    return result;
}

ImportResult importBytes(std::string_view bytes, const std::string &path)
{
    const Importer *importer = importerFor(path, bytes.substr(0, 4096));
    if (!importer) {
        ImportResult r;
        r.diagnostics.push_back(fileError(path, "import.unknown_format",
                                          "not a model Cleave can read (expected Relay text, "
                                          "Relax TVMScript, TVM graph.json or ONNX)"));
        return r;
    }
    ImportResult r = importer->importBytes(bytes, path);
    if (r.graph) {
        r.graph->setFormat(importer->formatName());
        r.graph->setSourcePath(path);
        r.graph->setChecksum(sha256Hex(bytes));
    }
    return r;
}

ImportResult importFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ImportResult r;
        r.diagnostics.push_back(
            fileError(path, "import.unreadable", std::string("cannot open file: ") + std::strerror(errno)));
        return r;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
        ImportResult r;
        r.diagnostics.push_back(fileError(path, "import.unreadable", "read error"));
        return r;
    }
    const std::string bytes = buffer.str();
    return importBytes(bytes, path);
}

} // namespace cleave
