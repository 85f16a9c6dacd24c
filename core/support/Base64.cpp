// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/Base64.h"

#include <openssl/evp.h>

#include <algorithm>
#include <climits>

namespace cleave {

std::optional<std::string> decodeBase64(std::string_view text)
{
    if (text.size() % 4 != 0 || text.size() > static_cast<std::size_t>(INT_MAX))
        return std::nullopt;
    // EVP_DecodeBlock skips blanks at both ends and accepts '=' anywhere in the last block;
    // base64 has neither.
    const auto isAlphabet = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || c == '+' || c == '/';
    };
    std::size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=')
        ++padding;
    if (!std::all_of(text.begin(), text.end() - static_cast<long>(padding), isAlphabet))
        return std::nullopt;
    std::string out(text.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                                  reinterpret_cast<const unsigned char *>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0)
        return std::nullopt;
    out.resize(static_cast<std::size_t>(n) - padding); // EVP counts the padding as zero bytes
    return out;
}

} // namespace cleave
