// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// cleave: the desktop editor. Parses the command line, shows the main window, offers to recover
// unsaved work of a session that crashed, and opens the model or project given as an argument.
#include "ui/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QStringList>
#include <QTimer>

#include <cstdio>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Cleave"));
    QApplication::setApplicationName(QStringLiteral("Cleave"));
    QApplication::setApplicationVersion(QStringLiteral(CLEAVE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("main", "Partition editor for deep-learning graphs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("file"),
        QApplication::translate("main",
                                "A model (Relay text, TVM graph.json, ONNX) or a Cleave project "
                                "(.cleave) to open."),
        QStringLiteral("[MODEL|PROJECT]"));
    parser.process(app);

    const QStringList args = parser.positionalArguments();
    if (args.size() > 1) {
        std::fputs("cleave: give at most one model or project file (see --help)\n", stderr);
        return 2;
    }

    cleave::ui::MainWindow window;
    window.show();
    // Once the event loop runs, so the window is on screen before any dialog: recovered work
    // first (a restored session wins over the file named on the command line).
    const QString path = args.isEmpty() ? QString() : args.constFirst();
    QTimer::singleShot(0, &window, [&window, path] {
        if (!window.offerRecovery() && !path.isEmpty())
            window.openFile(path);
    });
    return QApplication::exec();
}
