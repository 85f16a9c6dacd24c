// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Running cleave-cli from a test: in process through cleave_cli_lib (runCli, for tests that use
// a command to produce or check their fixture), or as the real executable (runCliBinary, for the
// tests in tests/cli/ whose subject is the program itself).
#pragma once

#include "app/cli/Cli.h"

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <sstream>
#include <string>
#include <vector>

namespace cleave::test {

/// What one run of cleave-cli printed and returned; exitCode is -1 when it crashed or hung.
struct CliRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

/// Runs `cleave-cli args...` in this process (cleave::cli::runCli).
inline CliRun runCli(const QStringList &args)
{
    std::vector<std::string> words;
    for (const QString &a : args)
        words.push_back(a.toStdString());
    std::ostringstream out;
    std::ostringstream err;
    CliRun run;
    run.exitCode = cli::runCli(words, out, err);
    run.out = QByteArray::fromStdString(out.str());
    run.err = QByteArray::fromStdString(err.str());
    return run;
}

#ifdef CLEAVE_CLI_PATH
/// Runs the built cleave-cli executable (CLEAVE_CLI_PATH) and waits up to a minute for it.
inline CliRun runCliBinary(const QStringList &args)
{
    QProcess process;
    process.start(QStringLiteral(CLEAVE_CLI_PATH), args);
    CliRun run;
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit)
        return run;
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}
#endif

} // namespace cleave::test
