// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// cleave-cli: the engine without the editor. The commands live in app/cli/commands/, one file
// per verb, listed in app/cli/CommandList.cpp; this is only the process entry point.
#include "app/cli/Cli.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    return cleave::cli::runCli(std::vector<std::string>(argv + 1, argv + argc), std::cout,
                               std::cerr);
}
