// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <string>
#include <string_view>

namespace cleave {

/// Lower-case hex SHA-256 of `bytes`. Plans, projects and layout caches use it to tell whether
/// they belong to a model file.
std::string sha256Hex(std::string_view bytes);

} // namespace cleave
