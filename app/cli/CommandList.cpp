// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// THE COMMAND LIST of cleave-cli, in the order `cleave-cli --help` shows it.
//
// Adding a verb `foo` takes two steps and touches nothing else:
//   1. write app/cli/commands/foo.cpp defining `Command fooCommand()` in namespace cleave::cli:
//      its name, synopsis, summary, option help, accepted flags / options, positional count and
//      the function that runs it (verify.cpp is the smallest example; load models with
//      CliModel.h, write to context.out / context.err, return exitOk / exitInvalidPlan /
//      exitBadInput, report usage errors with context.usageError());
//   2. add the line `X(foo)` below.
// CMake compiles every app/cli/commands/*.cpp; argument parsing, --help, the usage text and the
// dispatcher all read this table.
#include "app/cli/CliArguments.h"

#define CLEAVE_CLI_COMMANDS(X)                                                                     \
    X(inspect)                                                                                     \
    X(validate)                                                                                    \
    X(partition)                                                                                   \
    X(verify)                                                                                      \
    X(map)                                                                                         \
    X(auto)                                                                                        \
    X(profile)                                                                                     \
    X(render)                                                                                      \
    X(diff)

namespace cleave::cli {

#define CLEAVE_CLI_DECLARE_COMMAND(verb) Command verb##Command();
CLEAVE_CLI_COMMANDS(CLEAVE_CLI_DECLARE_COMMAND)
#undef CLEAVE_CLI_DECLARE_COMMAND

const std::vector<Command> &commands()
{
#define CLEAVE_CLI_COMMAND_ROW(verb) verb##Command(),
    static const std::vector<Command> table = { CLEAVE_CLI_COMMANDS(CLEAVE_CLI_COMMAND_ROW) };
#undef CLEAVE_CLI_COMMAND_ROW
    return table;
}

const Command *findCommand(std::string_view name)
{
    for (const Command &c : commands()) {
        if (c.name == name)
            return &c;
    }
    return nullptr;
}

} // namespace cleave::cli
