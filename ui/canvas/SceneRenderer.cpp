// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/SceneRenderer.h"

#include "ui/canvas/CanvasWidget.h"
#include "ui/document/Document.h"
#include "ui/document/LevelView.h"

#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>

#include <unistd.h>

namespace cleave::ui {

bool ensureDrawingApplication(QString *error)
{
    if (QCoreApplication::instance() != nullptr) {
        if (qobject_cast<QApplication *>(QCoreApplication::instance()) != nullptr)
            return true;
        if (error != nullptr)
            *error = QStringLiteral("drawing needs a QApplication, but another kind of "
                                    "application is running");
        return false;
    }
    // No display is needed: the drawing is made in memory.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Without XDG_RUNTIME_DIR (a shell over ssh, a container, CI) Qt falls back to
    // /tmp/runtime-$USER and prints a warning a command line tool should not: make that same
    // private folder ourselves.
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        const QString runtime
            = QDir::tempPath() + QStringLiteral("/runtime-") + QString::number(::getuid());
        if (QDir().mkpath(runtime)
            && QFile::setPermissions(
                runtime, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
            qputenv("XDG_RUNTIME_DIR", runtime.toLocal8Bit());
    }
    static int argc = 1;
    static char name[] = "cleave-cli";
    static char *argv[] = { name, nullptr };
    static QApplication application(argc, argv);
    return true;
}

bool renderDrawing(std::unique_ptr<Graph> graph, const QString &modelPath,
                   std::optional<PartitionPlan> plan, const RenderRequest &request, QString *error)
{
    Document document;
    LevelView levels(&document);
    if (request.blocks)
        levels.setLevel(LevelView::Level::Blocks);
    CanvasWidget canvas;
    canvas.setCacheDirectory({}); // a command line run leaves no cache behind
    canvas.resize(1200, 800);

    QEventLoop loop;
    QString layoutMessage;
    QObject::connect(&canvas, &CanvasWidget::layoutFinished, &loop,
                     [&](bool, const QString &message) {
                         layoutMessage = message;
                         loop.quit();
                     });
    canvas.observe(&levels);
    document.setGraph(std::move(graph), modelPath, std::move(plan));
    if (!canvas.isLayoutReady())
        loop.exec();
    canvas.observe(nullptr);
    if (!canvas.isLayoutReady()) {
        if (error != nullptr)
            *error = layoutMessage.isEmpty() ? QStringLiteral("the layout did not finish")
                                             : layoutMessage;
        return false;
    }
    return canvas.exportImage(request.output, error, request.dpi);
}

} // namespace cleave::ui
