// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// What an import produced: a graph (when the input could be read) and every diagnostic.
/// `ok()` is true when there is a graph and no error.
struct ImportResult
{
    std::unique_ptr<Graph> graph;
    std::vector<Diagnostic> diagnostics;

    [[nodiscard]] bool ok() const { return graph != nullptr && !hasErrors(diagnostics); }
    /// The first error's `file:line:col: error: message`, or empty.
    [[nodiscard]] std::string firstError() const;
};

/// One model format reader. Implementations never throw: every problem becomes a Diagnostic
/// with file:line:column.
class Importer
{
public:
    virtual ~Importer() = default;
    /// Short format name, stored in Graph::format(): "relay", "graph.json", "onnx".
    [[nodiscard]] virtual std::string formatName() const = 0;
    /// True when this importer recognises the file by its name and first bytes.
    [[nodiscard]] virtual bool canRead(std::string_view path, std::string_view head) const = 0;
    /// Parses `bytes` (the whole file); `path` is used in diagnostics.
    [[nodiscard]] virtual ImportResult importBytes(std::string_view bytes,
                                                   const std::string &path) const = 0;
};

/// Runs `body` and turns any exception it lets escape (out of memory, an internal error) into
/// an error diagnostic naming `path`, so that no exception leaves an importer.
ImportResult guardedImport(const std::string &path, const std::string &internalCode,
                           const std::function<void(ImportResult &)> &body);

/// Every importer Cleave has, in probing order (the registry).
const std::vector<std::unique_ptr<Importer>> &importers();

/// Picks the importer for `path` from its name and content.
const Importer *importerFor(std::string_view path, std::string_view head);

/// Reads a file, picks the importer, imports, and stamps path, format and checksum on the graph.
/// Never throws; unreadable files give a diagnostic.
ImportResult importFile(const std::string &path);

/// Imports in-memory bytes as if read from `path` (used by tests and benchmarks).
ImportResult importBytes(std::string_view bytes, const std::string &path);

} // namespace cleave
