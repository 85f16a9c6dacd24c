// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cleave {

/// Offset of the first byte of `s` that does not start a well-formed UTF-8 sequence (RFC 3629:
/// no overlong forms, no surrogates, nothing above U+10FFFF), or npos when `s` is valid.
/// Importers reject invalid names so that no later JSON output (nlohmann throws on them) sees
/// one.
std::size_t firstInvalidUtf8(std::string_view s);

/// "unexpected character 'c'" for a printable ASCII byte, "unexpected byte 0xHH" for any other
/// (a control byte or a raw byte of UTF-8 would break the message's line and its JSON form).
std::string unexpectedByteMessage(char c);

} // namespace cleave
