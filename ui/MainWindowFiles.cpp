// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// MainWindow: the File menu's wiring to the ProjectSession (open dialog, recent files, export),
// drag and drop, closing.
#include "ui/MainWindow.h"
#include "ui/dialogs/ExportDialog.h"
#include "ui/document/Document.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QSettings>

namespace cleave::ui {

namespace {

const QString lastDirectoryKey = QStringLiteral("lastOpenDirectory");
const QString geometryKey = QStringLiteral("mainWindow/geometry");
const QString stateKey = QStringLiteral("mainWindow/state");

// The one local file a drag carries, or an empty string.
QString droppedFile(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1)
        return {};
    const QUrl url = mime->urls().constFirst();
    return url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile() ? url.toLocalFile()
                                                                      : QString();
}

} // namespace

ExportDialog *MainWindow::showExportDialog()
{
    if (!m_document->hasGraph())
        return nullptr;
    auto *dialog = new ExportDialog(m_document, m_canvas, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

void MainWindow::showOpenDialog()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Model or Project"),
        settings.value(lastDirectoryKey, QDir::homePath()).toString(),
        tr("Models and projects (*.relay *.txt *.py *.json *.onnx *.cleave);;Cleave projects "
           "(*.cleave);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(lastDirectoryKey, QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = ProjectSession::recentFiles();
    for (const QString &file : files) {
        QAction *action = m_recentMenu->addAction(QFileInfo(file).fileName(), this,
                                                  [this, file] { openFile(file); });
        action->setToolTip(QDir::toNativeSeparators(file));
        action->setStatusTip(QDir::toNativeSeparators(file));
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear Menu"), this, [this] {
            ProjectSession::clearRecentFiles();
            m_recentMenu->setEnabled(false);
        });
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedFile(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = droppedFile(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    // Open after the drop returns, so an error dialog does not run inside the drag.
    QMetaObject::invokeMethod(
        this, [this, path] { openFile(path); }, Qt::QueuedConnection);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_session->maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(geometryKey, saveGeometry());
    settings.setValue(stateKey, saveState());
    // A clean close leaves nothing to recover.
    m_session->close();
    QMainWindow::closeEvent(event);
}

} // namespace cleave::ui
