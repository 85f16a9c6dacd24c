// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// cleave: the desktop editor. Parses the command line, shows the main window, opens the model
// given as an argument.
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
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QApplication::translate("main", "The model file to open."),
                                 QStringLiteral("[model]"));
    parser.process(app);

    const QStringList args = parser.positionalArguments();
    if (args.size() > 1) {
        std::fputs("cleave: give at most one model file (see --help)\n", stderr);
        return 2;
    }

    cleave::ui::MainWindow window;
    window.show();
    // Open once the event loop runs, so the window is on screen before any error dialog.
    if (!args.isEmpty())
        QTimer::singleShot(0, &window,
                           [&window, path = args.constFirst()] { window.openFile(path); });
    return QApplication::exec();
}
