// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// MainWindow: opening models and projects, saving, autosave and recovery, recent files,
// drag and drop, closing.
#include "core/io/Importer.h"
#include "core/project/ProjectFile.h"
#include "ui/MainWindow.h"
#include "ui/dialogs/ExportDialog.h"
#include "ui/document/Document.h"
#include "ui/scene/CanvasWidget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsView>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>

namespace cleave::ui {

namespace {

const QString recentFilesKey = QStringLiteral("recentFiles");
const QString lastDirectoryKey = QStringLiteral("lastOpenDirectory");
const QString geometryKey = QStringLiteral("mainWindow/geometry");
const QString stateKey = QStringLiteral("mainWindow/state");
constexpr int shownDiagnostics = 10;

void writeRecentFiles(const QStringList &files)
{
    QSettings().setValue(recentFilesKey, files);
}

// How a file is written in the recent-files list: absolute, without `..`.
QString recentEntry(const QString &path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

// The one local file a drag carries, or an empty string.
QString droppedFile(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1)
        return {};
    const QUrl url = mime->urls().constFirst();
    return url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile() ? url.toLocalFile()
                                                                      : QString();
}

// A project by its suffix, or by its content (a project saved under another name).
bool isProjectFile(const QString &path)
{
    if (path.endsWith(QStringLiteral(".cleave"), Qt::CaseInsensitive))
        return true;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(4096);
    return head.trimmed().startsWith('{') && head.contains("\"cleave_project\"");
}

QString diagnosticsText(const std::vector<cleave::Diagnostic> &diagnostics,
                        cleave::Severity atLeast)
{
    QStringList lines;
    int shown = 0;
    int hidden = 0;
    for (const cleave::Diagnostic &d : diagnostics) {
        if (static_cast<int>(d.severity) < static_cast<int>(atLeast))
            continue;
        if (shown++ < shownDiagnostics)
            lines.append(QString::fromStdString(d.toString()));
        else
            ++hidden;
    }
    if (hidden > 0)
        lines.append(QApplication::translate("MainWindow", "(%n more)", nullptr, hidden));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

bool MainWindow::openFile(const QString &path)
{
    if (!maybeSave())
        return false;
    return isProjectFile(path) ? openProject(path) : openModel(path);
}

bool MainWindow::openModel(const QString &path)
{
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool opened = m_document->open(path, &error);
    QApplication::restoreOverrideCursor();
    if (opened) {
        rememberRecentFile(path);
        return true;
    }
    if (!QFileInfo::exists(path))
        forgetRecentFile(path);
    showError(tr("Cannot open model"),
              tr("Cleave could not open %1.\n\n%2").arg(QDir::toNativeSeparators(path), error));
    return false;
}

bool MainWindow::openProject(const QString &path)
{
    const std::string projectPath
        = QDir::cleanPath(QFileInfo(path).absoluteFilePath()).toStdString();
    const cleave::ProjectLoadResult loaded = cleave::loadProjectFile(projectPath);
    if (!loaded.ok()) {
        if (!QFileInfo::exists(path))
            forgetRecentFile(path);
        showError(tr("Cannot open project"),
                  tr("Cleave could not open the project %1.\n\n%2")
                      .arg(QDir::toNativeSeparators(path),
                           diagnosticsText(loaded.diagnostics, cleave::Severity::Error)));
        return false;
    }
    const cleave::Project &project = *loaded.project;
    const QString modelPath
        = QString::fromStdString(cleave::resolveModelPath(project, projectPath));

    QApplication::setOverrideCursor(Qt::WaitCursor);
    cleave::ImportResult imported = cleave::importFile(modelPath.toStdString());
    QApplication::restoreOverrideCursor();
    if (!imported.ok()) {
        showError(tr("Cannot open project"),
                  tr("The model of the project %1 could not be read.\n\n%2")
                      .arg(QDir::toNativeSeparators(path),
                           diagnosticsText(imported.diagnostics, cleave::Severity::Error)));
        return false;
    }

    bool force = false;
    if (cleave::modelChanged(project, *imported.graph)) {
        QMessageBox box(QMessageBox::Warning, tr("Model changed"),
                        tr("The model %1 changed since the project was saved (its checksum "
                           "differs).\n\nApply the saved plan to the changed model anyway? Nodes "
                           "the model no longer has are reported.")
                            .arg(QDir::toNativeSeparators(modelPath)),
                        QMessageBox::NoButton, this);
        box.setTextFormat(Qt::PlainText);
        QPushButton *apply = box.addButton(tr("Apply Anyway"), QMessageBox::AcceptRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(apply);
        box.exec();
        if (box.clickedButton() != apply)
            return false;
        force = true;
    }

    cleave::PlanLoadResult plan = cleave::projectPlan(project, *imported.graph, projectPath, force);
    if (!plan.ok()) {
        showError(tr("Cannot open project"),
                  tr("The plan of the project %1 does not fit its model.\n\n%2")
                      .arg(QDir::toNativeSeparators(path),
                           diagnosticsText(plan.diagnostics, cleave::Severity::Error)));
        return false;
    }
    m_document->setGraph(std::move(imported.graph), modelPath, std::move(plan.plan));
    m_document->setProjectPath(QString::fromStdString(projectPath));
    m_pendingView = project.view;
    if (m_canvas->isLayoutReady()) {
        const cleave::ProjectViewState pending = *m_pendingView;
        m_pendingView.reset();
        applyViewState(pending);
    }
    const QString warnings = diagnosticsText(plan.diagnostics, cleave::Severity::Warning);
    if (!warnings.isEmpty())
        statusBar()->showMessage(warnings.section(QLatin1Char('\n'), 0, 0), 15000);
    rememberRecentFile(path);
    return true;
}

bool MainWindow::saveProject(const QString &path)
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan)
        return false;
    const std::string target = QDir::cleanPath(QFileInfo(path).absoluteFilePath()).toStdString();
    std::string error;
    if (!cleave::saveProjectFile(cleave::makeProject(*plan, target, viewState()), target, &error)) {
        showError(
            tr("Cannot save project"),
            tr("Cleave could not save the project.\n\n%1").arg(QString::fromStdString(error)));
        return false;
    }
    m_document->setProjectPath(QString::fromStdString(target));
    m_document->undoStack()->setClean();
    QFile::remove(recoveryFilePath());
    rememberRecentFile(path);
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 5000);
    return true;
}

bool MainWindow::save()
{
    if (m_document->projectPath().isEmpty())
        return saveAs();
    return saveProject(m_document->projectPath());
}

bool MainWindow::saveAs()
{
    if (!m_document->hasGraph())
        return false;
    QString suggestion = m_document->projectPath();
    if (suggestion.isEmpty()) {
        const QFileInfo model(m_document->filePath());
        suggestion = model.dir().filePath(model.completeBaseName() + QStringLiteral(".cleave"));
    }
    QString path = QFileDialog::getSaveFileName(this, tr("Save Project"), suggestion,
                                                tr("Cleave projects (*.cleave)"));
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".cleave");
    return saveProject(path);
}

QString MainWindow::recoveryFilePath()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("recovery.cleave"));
}

void MainWindow::autosave()
{
    const QString path = recoveryFilePath();
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan || !m_document->isModified()) {
        QFile::remove(path);
        return;
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::string error;
    const std::string target = path.toStdString();
    if (!cleave::saveProjectFile(cleave::makeProject(*plan, target, viewState()), target, &error))
        statusBar()->showMessage(tr("Autosave failed: %1").arg(QString::fromStdString(error)),
                                 10000);
}

bool MainWindow::offerRecovery()
{
    const QString path = recoveryFilePath();
    if (!QFileInfo::exists(path))
        return false;
    const cleave::ProjectLoadResult loaded = cleave::loadProjectFile(path.toStdString());
    const QString model = loaded.project
        ? QString::fromStdString(cleave::resolveModelPath(*loaded.project, path.toStdString()))
        : tr("an unknown model");
    QMessageBox box(
        QMessageBox::Question, tr("Recover unsaved work"),
        tr("Cleave was not closed properly. Unsaved changes to %1 were kept from %2."
           "\n\nRestore them?")
            .arg(QDir::toNativeSeparators(model),
                 QLocale().toString(QFileInfo(path).lastModified(), QLocale::ShortFormat)),
        QMessageBox::NoButton, this);
    box.setTextFormat(Qt::PlainText);
    QPushButton *restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Discard);
    box.setDefaultButton(restore);
    box.exec();
    if (box.clickedButton() != restore) {
        QFile::remove(path);
        return false;
    }
    if (!openProject(path))
        return false;
    // The restored work is not saved anywhere yet: Save asks where.
    m_document->setProjectPath({});
    m_document->undoStack()->resetClean();
    forgetRecentFile(path);
    return true;
}

ExportDialog *MainWindow::showExportDialog()
{
    if (!m_document->hasGraph())
        return nullptr;
    auto *dialog = new ExportDialog(m_document, m_canvas, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

bool MainWindow::maybeSave()
{
    if (!m_document->hasGraph() || !m_document->isModified())
        return true;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
                    tr("The plan of %1 has unsaved changes. Save them as a project?")
                        .arg(m_document->fileName()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return save();
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void MainWindow::showError(const QString &title, const QString &text)
{
    QMessageBox box(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
    box.setTextFormat(Qt::PlainText);
    box.exec();
}

cleave::ProjectViewState MainWindow::viewState() const
{
    cleave::ProjectViewState state;
    state.tool = m_canvas->tool() == CanvasWidget::Tool::Cut ? "cut" : "select";
    state.level = m_level == Level::Blocks ? "blocks" : "ops";
    if (QGraphicsView *view = m_canvas->view(); view && m_canvas->isLayoutReady()) {
        state.zoom = view->transform().m11();
        const QPointF centre = view->mapToScene(view->viewport()->rect().center());
        state.centerX = centre.x();
        state.centerY = centre.y();
        state.hasCenter = true;
    }
    return state;
}

void MainWindow::applyViewState(const cleave::ProjectViewState &state)
{
    (state.tool == "cut" ? m_cutToolAction : m_selectToolAction)->trigger();
    const Level level = state.level == "blocks" ? Level::Blocks : Level::Ops;
    if (level != m_level) {
        // The other level needs its own layout; the view is restored once it is ready.
        m_pendingView = state;
        setLevel(level);
        return;
    }
    QGraphicsView *view = m_canvas->view();
    if (!view || !state.hasCenter)
        return;
    view->setTransform(QTransform::fromScale(state.zoom, state.zoom));
    view->centerOn(QPointF(state.centerX, state.centerY));
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

QStringList MainWindow::recentFiles()
{
    return QSettings().value(recentFilesKey).toStringList();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString &file : files) {
        QAction *action = m_recentMenu->addAction(QFileInfo(file).fileName(), this,
                                                  [this, file] { openFile(file); });
        action->setToolTip(QDir::toNativeSeparators(file));
        action->setStatusTip(QDir::toNativeSeparators(file));
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear Menu"), this, [this] {
            writeRecentFiles({});
            m_recentMenu->setEnabled(false);
        });
    }
}

void MainWindow::rememberRecentFile(const QString &path)
{
    const QString absolute = recentEntry(path);
    if (absolute == recentEntry(recoveryFilePath()))
        return;
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    writeRecentFiles(files.mid(0, maxRecentFiles));
    m_recentMenu->setEnabled(true);
}

void MainWindow::forgetRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    if (files.removeAll(recentEntry(path)) > 0) {
        writeRecentFiles(files);
        m_recentMenu->setEnabled(!files.isEmpty());
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
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(geometryKey, saveGeometry());
    settings.setValue(stateKey, saveState());
    // A clean close leaves nothing to recover.
    m_autosaveTimer->stop();
    QFile::remove(recoveryFilePath());
    QMainWindow::closeEvent(event);
}

} // namespace cleave::ui
