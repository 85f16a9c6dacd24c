// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// Deepest nesting of arrays and objects any Cleave JSON reader accepts. Plans, projects and
/// tables nest a handful of levels; the bound keeps recursive code (dump, comparisons) safe.
inline constexpr std::size_t maxJsonDepth = 128;

/// Parses `text` (the content of `file`) without throwing. On any failure — a syntax error, a
/// number out of range such as `1e999`, invalid UTF-8, nesting deeper than `maxDepth` — returns
/// nullopt and appends one error diagnostic with `code` at the offending byte's line:column,
/// its message starting with `what` ("the plan file is not valid JSON: ...").
std::optional<nlohmann::json> parseJsonLocated(std::string_view text, const std::string &file,
                                               const std::string &code,
                                               std::vector<Diagnostic> &diagnostics,
                                               const std::string &what = "invalid JSON",
                                               std::size_t maxDepth = maxJsonDepth);

/// Where the value at `pointer` (RFC 6901, e.g. `/partitions/3/name`) starts in `text`, or, when
/// the path does not exist, where its deepest existing ancestor starts. `text` must be valid JSON
/// (it is scanned, not parsed). Used to point semantic errors at the offending value.
SourceLocation locateJsonValue(std::string_view text, const std::string &file,
                               std::string_view pointer);

/// `s` quoted for a message, cut to `limit` bytes (on a UTF-8 boundary) with "…" so that
/// diagnostics never echo unbounded input.
std::string quoteBounded(std::string_view s, std::size_t limit = 60);

/// A JSON value as compact text for a message, cut to about 60 bytes with "…".
std::string boundedJson(const nlohmann::json &value);

} // namespace cleave
