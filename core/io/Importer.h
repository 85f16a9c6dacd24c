// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/graph/Graph.h"

#include <functional>
#include <memory>
#include <optional>
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

/// Reads the whole file `path` into `bytes`; on failure returns the result to give back (an
/// `import.unreadable` diagnostic).
std::optional<ImportResult> readModelFile(const std::string &path, std::string &bytes);

/// Imports `bytes` with one given importer as if read from `path`, and stamps path, format and
/// checksum on the graph. Never throws.
ImportResult importBytesWith(const Importer &importer, std::string_view bytes,
                             const std::string &path);

/// Reads the file `path` and imports it with one given importer (importBytesWith). Unreadable
/// files give a diagnostic. Never throws.
ImportResult importFileWith(const Importer &importer, const std::string &path);

/// importFileWith, keeping only the graph: its diagnostics are appended to `diagnostics`, and
/// the result is null unless the file imported without error (module writers reading back
/// what they wrote).
std::unique_ptr<Graph> readGraphWith(const Importer &importer, const std::string &path,
                                     std::vector<Diagnostic> &diagnostics);

/// The error diagnostic of a parser's exception: its code and message at its line and column of
/// `path`. `ParseErrorT` has `code`, `message`, `line` and `column` (relay::ParseError,
/// relax::ParseError).
template <class ParseErrorT>
Diagnostic parseErrorDiagnostic(const ParseErrorT &error, const std::string &path)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = error.code;
    d.message = error.message;
    d.where = SourceLocation { path, error.line, error.column };
    return d;
}

/// An error diagnostic about the file `path` as a whole (no line or column).
Diagnostic fileError(const std::string &path, std::string code, std::string message);

} // namespace cleave
