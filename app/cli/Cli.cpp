// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The dispatcher: top-level --help / --version, then the command the first word names (the
// table is in CommandList.cpp, each command in commands/<verb>.cpp).
#include "app/cli/Cli.h"

#include "app/cli/CliArguments.h"

#include <span>

namespace cleave::cli {

int runCli(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    const CommandContext topLevel { out, err };
    if (args.empty())
        return topLevel.usageError("no command given");

    const std::string &first = args.front();
    if (first == "-h" || first == "--help" || first == "help") {
        printUsage(out);
        return exitOk;
    }
    if (first == "--version") {
        out << "cleave-cli " << CLEAVE_VERSION << '\n';
        return exitOk;
    }
    if (const Command *command = findCommand(first))
        return runCommand(*command, std::span(args).subspan(1), out, err);
    return topLevel.usageError("unknown command '" + first + "'");
}

} // namespace cleave::cli
