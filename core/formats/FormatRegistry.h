// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The one place that lists every format Cleave reads and writes: the importer registry (with
// the file entry points that sniff a format) and the module-writer registry.
#pragma once

#include "core/export/ModuleExporter.h"
#include "core/io/Importer.h"
#include "core/validation/Validation.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// Every importer Cleave has, in probing order (the registry).
const std::vector<std::unique_ptr<Importer>> &importers();

/// Picks the importer for `path` from its name and content.
const Importer *importerFor(std::string_view path, std::string_view head);

/// Reads a file, picks the importer, imports, and stamps path, format and checksum on the graph.
/// Never throws; unreadable files give a diagnostic.
ImportResult importFile(const std::string &path);

/// Imports in-memory bytes as if read from `path` (used by tests and benchmarks).
ImportResult importBytes(std::string_view bytes, const std::string &path);

/// Every module writer Cleave has (the registry); RelayModuleExporter first.
const std::vector<std::unique_ptr<ModuleExporter>> &moduleExporters();

/// The module writer for a format name, or nullptr.
const ModuleExporter *moduleExporterFor(const std::string &formatName);

/// The module writer an export of `graph` uses by default (the first that accepts its source
/// format), or nullptr.
const ModuleExporter *moduleExporterForSource(const Graph &graph);

/// Sets what validation must know about the writer that exports `graph` (whether it forwards
/// values of any type between modules), so a rule fires only when that writer cannot route.
void applyWriterCapabilities(const Graph &graph, ValidationOptions &options);

} // namespace cleave
