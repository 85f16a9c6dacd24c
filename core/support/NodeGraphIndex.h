// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>

namespace cleave {

/// A node index of TVM's JSON node graph (the `#[metadata]` section of Relay text, the metadata
/// header of Relax TVMScript): a non-negative JSON integer, or a string of decimal digits as TVM
/// writes references. Anything else — a negative number, a float, a sign, spaces, a value too
/// large for `size_t` — is nullopt, never a wrapped-around index. `JsonValue` is any
/// nlohmann::basic_json (ordered or not).
template <class JsonValue>
std::optional<std::size_t> nodeGraphIndex(const JsonValue &value)
{
    if (value.is_number_unsigned())
        return value.template get<std::size_t>();
    if (value.is_number_integer()) {
        const auto signedValue = value.template get<long long>();
        if (signedValue < 0)
            return std::nullopt;
        return static_cast<std::size_t>(signedValue);
    }
    if (!value.is_string())
        return std::nullopt;
    const auto &text = value.template get_ref<const std::string &>();
    std::size_t index = 0;
    const char *end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, index);
    if (text.empty() || error != std::errc {} || ptr != end)
        return std::nullopt;
    return index;
}

} // namespace cleave
