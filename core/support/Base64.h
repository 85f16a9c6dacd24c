// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cleave {

/// Decodes standard base64 (RFC 4648 §4: `A–Z a–z 0–9 + /`, `=` padding, length a multiple of
/// 4, no blanks) with OpenSSL. nullopt when `text` is not such base64, naming nothing: the
/// caller says which payload it was.
std::optional<std::string> decodeBase64(std::string_view text);

} // namespace cleave
