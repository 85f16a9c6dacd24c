// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Runs the real cleave-cli binary (CLEAVE_CLI_PATH) for the tests that check its behaviour.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace cleave::test {

/// What one run of cleave-cli printed and returned; exitCode is -1 when it crashed or hung.
struct CliRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

/// Runs `cleave-cli args...` and waits up to a minute for it.
inline CliRun runCli(const QStringList &args)
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

} // namespace cleave::test
