// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// cleave-cli as a library: the executable's main() and the tests both call runCli().
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace cleave::cli {

/// Runs `cleave-cli args...` (args excludes the program name) writing what the command prints
/// to `out` and diagnostics / usage errors to `err`; returns the exit status (0 success,
/// 1 invalid partition plan, 2 bad input or usage).
int runCli(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace cleave::cli
