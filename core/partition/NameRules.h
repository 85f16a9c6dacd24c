// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cleave {

/// Longest partition name Cleave accepts, in bytes.
inline constexpr std::size_t maxPartitionNameBytes = 64;

/// Why `name` cannot name a partition, or nullopt when it can. Names end up in exported files,
/// Relay comments and build scripts, so they are short, printable and free of quotes,
/// backslashes, slashes and `..`: letters (UTF-8 included), digits, space, `_ - . + : # @ ( )`.
std::optional<std::string> partitionNameProblem(std::string_view name);

/// Why `target` cannot be a partition's target, or nullopt when it can. A target is a TVM
/// target kind — an identifier such as `llvm`, `cuda` or a BYOC compiler name like `dnnl` —
/// optionally followed, for built-in device kinds only, by options (`llvm -mcpu=skylake`) made
/// of letters, digits, space and `- _ = + , .`. A BYOC compiler name is pasted into Relay
/// identifiers (`tvmgen_default_<compiler>_main_0`), so it must be an identifier alone.
std::optional<std::string> targetProblem(std::string_view target);

} // namespace cleave
