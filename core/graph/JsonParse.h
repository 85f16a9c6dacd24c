// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/support/JsonLocator.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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

/// Locates many values of one JSON text, as locateJsonValue does, in O(text) overall: every
/// object and array on a located path is scanned once and its member or element offsets kept.
/// Readers that report a finding per entry use it, so that 50,000 bad entries do not rescan the
/// text 50,000 times. `text` must be valid JSON and outlive the locator.
class JsonValueLocator
{
public:
    JsonValueLocator(std::string_view text, std::string file);

    /// Where the value at `pointer` starts, or its deepest existing ancestor.
    [[nodiscard]] SourceLocation at(std::string_view pointer);

private:
    std::string_view m_text;
    JsonLocator m_lines;
    /// Object offset → its members (raw name → value offset); array offset → element offsets.
    std::unordered_map<std::size_t, std::unordered_map<std::string, std::size_t>> m_members;
    std::unordered_map<std::size_t, std::vector<std::size_t>> m_elements;
};

/// `s` quoted for a message, cut to `limit` bytes (on a UTF-8 boundary) with "…" so that
/// diagnostics never echo unbounded input.
std::string quoteBounded(std::string_view s, std::size_t limit = 60);

/// A JSON value as compact text for a message, cut to about 60 bytes with "…".
std::string boundedJson(const nlohmann::json &value);

} // namespace cleave
