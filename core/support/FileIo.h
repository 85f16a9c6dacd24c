// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cleave {

/// The whole content of the file at `path` (bytes as they are), or nullopt when it cannot be
/// opened. Callers turn nullopt into their own diagnostic.
std::optional<std::string> readFile(const std::string &path);

/// Writes `content` to `path` atomically: into `<path>.tmp` first, then renamed over `path`,
/// so an existing file is either replaced whole or left untouched. Returns false and sets
/// `error` ("cannot write <path>.tmp", "cannot replace <path>: <reason>") on failure; the
/// temporary file is removed then.
bool writeFileAtomically(const std::string &path, std::string_view content,
                         std::string *error = nullptr);

} // namespace cleave
