// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// cleave: the desktop editor. Parses the command line, shows the main window, offers to recover
// unsaved work of a session that crashed, and opens the model or project given as an argument.
// --help and --version print text without a GUI, so they work without a display.
#include "ui/MainWindow.h"
#include "ui/document/MallocSettings.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringList>
#include <QTimer>

#include <cstdio>
#include <cstring>

namespace {

void describe(QCoreApplication &app, QCommandLineParser &parser)
{
    QCoreApplication::setOrganizationName(QStringLiteral("Cleave"));
    QCoreApplication::setApplicationName(QStringLiteral("Cleave"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CLEAVE_VERSION));
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Partition editor for deep-learning graphs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("file"),
        QCoreApplication::translate("main",
                                    "A model (Relay text, TVM graph.json, ONNX) or a Cleave "
                                    "project (.cleave) to open."),
        QStringLiteral("[MODEL|PROJECT]"));
    parser.process(app);
}

// True when the command line only asks for text (help, version): no GUI is created for it.
bool asksForText(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        for (const char *option : { "-h", "-?", "--help", "--help-all", "-v", "--version" }) {
            if (std::strcmp(argv[i], option) == 0)
                return true;
        }
    }
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    if (asksForText(argc, argv)) {
        QCoreApplication app(argc, argv);
        QCommandLineParser parser;
        describe(app, parser); // prints and exits
        return 0;
    }
    cleave::ui::applyMallocSettings();
    QApplication app(argc, argv);
    QCommandLineParser parser;
    describe(app, parser);

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
