// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/Importer.h"

#include "core/support/Checksum.h"
#include "core/support/FileIo.h"

#include <new>

namespace cleave {

std::string ImportResult::firstError() const
{
    for (const Diagnostic &d : diagnostics) {
        if (d.severity == Severity::Error)
            return d.toString();
    }
    return {};
}

Diagnostic fileError(const std::string &path, std::string code, std::string message)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = std::move(code);
    d.message = std::move(message);
    d.where.file = path;
    return d;
}

ImportResult guardedImport(const std::string &path, const std::string &internalCode,
                           const std::function<void(ImportResult &)> &body)
{
    ImportResult result;
    try {
        body(result);
    } catch (const std::bad_alloc &) {
        result.graph.reset();
        result.diagnostics.push_back(
            fileError(path, "import.out_of_memory", "out of memory while reading the model"));
    } catch (const std::exception &e) {
        result.graph.reset();
        result.diagnostics.push_back(
            fileError(path, internalCode,
                      std::string("internal error while reading the model: ") + e.what()));
    }
    return result;
}

std::optional<ImportResult> readModelFile(const std::string &path, std::string &bytes)
{
    std::string problem;
    std::optional<std::string> read = readRegularFile(path, maxReadFileBytes, problem);
    if (!read) {
        ImportResult r;
        r.diagnostics.push_back(
            fileError(path, "import.unreadable", "cannot open file: " + problem));
        r.diagnostics.back().where.line = 1;
        r.diagnostics.back().where.column = 1;
        return r;
    }
    bytes = std::move(*read);
    return std::nullopt;
}

ImportResult importBytesWith(const Importer &importer, std::string_view bytes,
                             const std::string &path)
{
    ImportResult r = importer.importBytes(bytes, path);
    if (r.graph) {
        r.graph->setFormat(importer.formatName());
        r.graph->setSourcePath(path);
        r.graph->setChecksum(sha256Hex(bytes));
    }
    return r;
}

ImportResult importFileWith(const Importer &importer, const std::string &path)
{
    std::string bytes;
    if (std::optional<ImportResult> failed = readModelFile(path, bytes))
        return std::move(*failed);
    return importBytesWith(importer, bytes, path);
}

std::unique_ptr<Graph> readGraphWith(const Importer &importer, const std::string &path,
                                     std::vector<Diagnostic> &diagnostics)
{
    ImportResult r = importFileWith(importer, path);
    for (Diagnostic &d : r.diagnostics)
        diagnostics.push_back(std::move(d));
    return r.ok() ? std::move(r.graph) : nullptr;
}

} // namespace cleave
