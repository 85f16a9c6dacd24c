// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cleave {

/// Recognises files that are certainly not models from their content (empty, white space only,
/// or the magic number of a picture, document, archive or another framework's format), so an
/// error names the real cause ("the file is empty", "this is a PNG image") instead of the first
/// token a model reader trips over. Returns that cause, or nothing when `content` may be a model
/// (the importers decide). Reads only the first bytes unless the file is blank.
std::optional<std::string> foreignContent(std::string_view content);

} // namespace cleave
