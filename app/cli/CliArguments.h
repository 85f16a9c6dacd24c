// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// What every cleave-cli command shares: the exit statuses, the parsed arguments, the row a
// command contributes to the command table, and the usage / help text built from those rows.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cleave::cli {

/// Exit status as docs/DESIGN.md §9 fixes it.
constexpr int exitOk = 0;
constexpr int exitInvalidPlan = 1;
constexpr int exitBadInput = 2;

/// The arguments of one command: positionals in order, the flags that were given, and the
/// options with their values (an option may repeat).
struct Arguments
{
    std::vector<std::string> positionals;
    std::vector<std::string> flags;
    std::vector<std::pair<std::string, std::string>> options;

    /// Whether the flag was given.
    [[nodiscard]] bool has(std::string_view flag) const;
    /// Every value given for `option`, in order.
    [[nodiscard]] std::vector<std::string> values(std::string_view option) const;
    /// The last value given for `option`.
    [[nodiscard]] std::optional<std::string> value(std::string_view option) const;
};

struct Command;

/// Where a running command writes, and which command it is (for its usage errors).
struct CommandContext
{
    std::ostream &out;
    std::ostream &err;
    const Command *command = nullptr; ///< Null outside a command (top-level usage errors).

    /// Prints `cleave-cli: message` and the command's help (or the general usage) to `err`;
    /// returns exitBadInput.
    int usageError(const std::string &message) const;
};

/// One verb of cleave-cli: its help text, the flags and options it accepts, and the function
/// that runs it once the arguments have been checked against this row.
struct Command
{
    std::string_view name;
    std::string_view synopsis; ///< Arguments after the command name.
    std::string_view summary;
    std::string_view details; ///< Option descriptions for `<command> --help`.
    std::vector<std::string_view> flags; ///< Flags the command accepts (besides --help).
    std::size_t positionals; ///< Exactly this many positional arguments.
    int (*run)(const Arguments &args, const CommandContext &context);
    std::vector<std::string_view> options = {}; ///< Options taking a value (`--plan FILE`).
};

/// The options of the FuseOps-style grouping, shared by the commands that form blocks.
#define CLEAVE_CLI_FUSION_OPTIONS_HELP                                                             \
    "  --fold-batch-norm   group as after SimplifyInference: batch_norm acts as its folded add\n"  \
    "  --transparent-stop-fusion\n"                                                                \
    "                      let blocks grow across annotation.stop_fusion\n"                        \
    "  --op-patterns FILE  {\"op\": \"injective\", ...}: extra or overriding op patterns\n"

/// Every command of cleave-cli, in the order of the explicit list in CommandList.cpp.
const std::vector<Command> &commands();

/// The command called `name`, or null.
const Command *findCommand(std::string_view name);

/// `cleave-cli --help`: every command of the table with its synopsis and summary.
void printUsage(std::ostream &out);

/// `cleave-cli <command> --help`.
void printCommandHelp(const Command &command, std::ostream &out);

/// Parses `rest` (the words after the command name) against the command's row, handles
/// `--help`, rejects unknown flags and wrong positional counts, and runs the command.
int runCommand(const Command &command, std::span<const std::string> rest, std::ostream &out,
               std::ostream &err);

} // namespace cleave::cli
