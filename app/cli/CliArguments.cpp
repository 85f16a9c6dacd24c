// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "app/cli/CliArguments.h"

#include <algorithm>

namespace cleave::cli {

bool Arguments::has(std::string_view flag) const
{
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::vector<std::string> Arguments::values(std::string_view option) const
{
    std::vector<std::string> out;
    for (const auto &[name, value] : options) {
        if (name == option)
            out.push_back(value);
    }
    return out;
}

std::optional<std::string> Arguments::value(std::string_view option) const
{
    const std::vector<std::string> all = values(option);
    return all.empty() ? std::nullopt : std::optional<std::string>(all.back());
}

int CommandContext::usageError(const std::string &message) const
{
    err << "cleave-cli: " << message << "\n\n";
    if (command)
        printCommandHelp(*command, err);
    else
        printUsage(err);
    return exitBadInput;
}

void printUsage(std::ostream &out)
{
    out << "Usage: cleave-cli <command> [arguments]\n"
           "       cleave-cli --help | --version\n\n"
           "Commands:\n";
    for (const Command &c : commands())
        out << "  " << c.name << ' ' << c.synopsis << "\n      " << c.summary << '\n';
    out << "\nRun 'cleave-cli <command> --help' for a command's options.\n"
           "Exit status: 0 success, 1 invalid partition plan, 2 bad input or usage.\n";
}

void printCommandHelp(const Command &command, std::ostream &out)
{
    out << "Usage: cleave-cli " << command.name << ' ' << command.synopsis << "\n\n"
        << command.summary << "\n\nOptions:\n"
        << command.details << "  -h, --help print this help\n";
}

int runCommand(const Command &command, std::span<const std::string> rest, std::ostream &out,
               std::ostream &err)
{
    const CommandContext context { out, err, &command };
    Arguments args;
    bool onlyPositionals = false;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        const std::string &arg = rest[i];
        const auto eq = arg.find('=');
        const std::string optionName = arg.substr(0, eq);
        const bool isOption = !onlyPositionals && arg.size() >= 2 && arg.front() == '-'
            && std::find(command.options.begin(), command.options.end(), optionName)
                != command.options.end();
        if (isOption) {
            if (eq != std::string::npos)
                args.options.emplace_back(optionName, arg.substr(eq + 1));
            else if (i + 1 < rest.size())
                args.options.emplace_back(arg, rest[++i]);
            else
                return context.usageError("option '" + arg + "' needs a value");
        } else if (onlyPositionals || arg.size() < 2 || arg.front() != '-') {
            args.positionals.push_back(arg);
        } else if (arg == "--") {
            onlyPositionals = true;
        } else if (arg == "-h" || arg == "--help") {
            printCommandHelp(command, out);
            return exitOk;
        } else if (std::find(command.flags.begin(), command.flags.end(), arg)
                   != command.flags.end()) {
            args.flags.push_back(arg);
        } else {
            return context.usageError("unknown option '" + arg + "' for "
                                      + std::string(command.name));
        }
    }
    if (args.positionals.size() != command.positionals) {
        return context.usageError(std::string(command.name) + " takes "
                                  + std::to_string(command.positionals)
                                  + (command.positionals == 1 ? " argument, " : " arguments, ")
                                  + std::to_string(args.positionals.size()) + " given");
    }
    return command.run(args, context);
}

} // namespace cleave::cli
