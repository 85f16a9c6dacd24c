// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/Utf8.h"

#include <cstdint>
#include <cstring>

namespace cleave {

std::size_t firstInvalidUtf8(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        // Eight ASCII bytes at a time (no byte has its top bit set).
        while (i + 8 <= s.size()) {
            std::uint64_t word = 0;
            std::memcpy(&word, s.data() + i, 8);
            if ((word & 0x8080808080808080ULL) != 0)
                break;
            i += 8;
        }
        if (i >= s.size())
            break;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t length = 0;
        unsigned char low = 0x80; // bounds of the second byte
        unsigned char high = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            low = c == 0xE0 ? 0xA0 : 0x80;
            high = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            low = c == 0xF0 ? 0x90 : 0x80;
            high = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return i;
        }
        if (i + length > s.size())
            return i;
        const auto second = static_cast<unsigned char>(s[i + 1]);
        if (second < low || second > high)
            return i;
        for (std::size_t k = 2; k < length; ++k) {
            const auto next = static_cast<unsigned char>(s[i + k]);
            if (next < 0x80 || next > 0xBF)
                return i;
        }
        i += length;
    }
    return std::string_view::npos;
}

std::string unexpectedByteMessage(char c)
{
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
        const char *hex = "0123456789ABCDEF";
        return std::string("unexpected byte 0x") + hex[byte >> 4] + hex[byte & 0xF];
    }
    return std::string("unexpected character '") + c + "'";
}

} // namespace cleave
