// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cleave {

/// Largest file Cleave reads whole: 2 GiB, protobuf's limit for one ONNX message (weights
/// beyond it live in external-data files, which are read apart, piece by piece).
inline constexpr std::uintmax_t maxReadFileBytes = std::uintmax_t(2) << 30;

/// The whole content of the regular file at `path`, at most `maxBytes` long. Anything else —
/// a missing file, a directory, a device such as /dev/zero or /dev/urandom, a FIFO, a file
/// over the limit — gives nullopt with `error` saying why; nothing that could block or never
/// end is opened.
std::optional<std::string> readRegularFile(const std::string &path, std::uintmax_t maxBytes,
                                           std::string &error);

/// readRegularFile with the default limit, for callers that report their own message.
std::optional<std::string> readFile(const std::string &path);

/// Writes `content` to `path` atomically: into `<path>.tmp` first, synced to disk (fsync), then
/// renamed over `path`, so an existing file is either replaced whole or left untouched, even by
/// a power cut. Returns false and sets `error` with the system's reason ("cannot write <path>:
/// No space left on device", "cannot replace <path>: <reason>") on failure; the temporary file
/// is removed then.
bool writeFileAtomically(const std::string &path, std::string_view content,
                         std::string *error = nullptr);

} // namespace cleave
